import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeySecretService

/// The agent's offer to import gnome-keyring's keyrings after an unlock by passphrase (docs/install.md,
/// "Moving from gnome-keyring"): at the first login through PAM the passphrase is the login password, which
/// is also the password of gnome-keyring's `login` keyring.
enum AgentKeyringImport {
    /// Registers the import with `server`: after each unlock by passphrase, while nothing was imported, the
    /// keyrings of `$XDG_DATA_HOME/keyrings` (else `~/.local/share/keyrings`) that the passphrase opens are
    /// imported into the Secret Service's collections. The outcome goes to standard error and the log.
    static func offer(on server: AgentServer) {
        let directory = GnomeKeyringFile.defaultDirectory()
        let service = server.inProcessService(accessGroups: [SecretServiceBackend.accessGroup])
        let logger = server.configuration.logger
        server.onPassphraseUnlock { passphrase in
            do throws(KeychainError) {
                guard
                    let summary = try GnomeKeyringImport.importAtUnlock(
                        from: directory,
                        password: passphrase,
                        into: service
                    )
                else { return }
                let skipped = summary.skipped.map(\.path)
                var text =
                    "agent: imported \(summary.imported) items of gnome-keyring's keyrings in \(directory) "
                    + "(\(summary.duplicates) already there); the files are left as they were."
                if !skipped.isEmpty {
                    text +=
                        " Not opened by this passphrase: \(skipped.joined(separator: ", ")); import them with "
                        + "`latchkey import --from gnome-keyring FILE`."
                }
                FileHandle.standardError.write(Data((text + "\n").utf8))
                logger.info(
                    "imported gnome-keyring's keyrings",
                    metadata: ["items": "\(summary.imported)", "skipped": "\(skipped.count)"]
                )
            } catch {
                let text =
                    "agent: gnome-keyring's keyrings were not imported: \(error.message) Run `latchkey import "
                    + "--from gnome-keyring` to try again.\n"
                FileHandle.standardError.write(Data(text.utf8))
            }
        }
    }
}
