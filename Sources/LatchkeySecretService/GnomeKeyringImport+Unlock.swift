import Foundation
import Latchkey

extension GnomeKeyringImport {
    /// What the agent does after an unlock by passphrase: imports gnome-keyring's keyrings when the keychain
    /// has none imported yet and `password` (the login password, when PAM unlocked the agent) opens at least
    /// one of them, as oo7 imports gnome-keyring's keyrings at its first unlock; the originals stay as they are.
    ///
    /// A keyring that `password` does not open is skipped and named in the summary; when it opens none (or
    /// there are none), nothing is written, not even the marker, so that `latchkey import --from
    /// gnome-keyring` with the keyring's own password remains the way to import them.
    ///
    /// - Parameters:
    ///   - directory: gnome-keyring's keyrings (`GnomeKeyringFile.defaultDirectory()`).
    ///   - password: The passphrase that unlocked the keychain.
    ///   - service: The keychain, seen with the Secret Service's access group.
    /// - Returns: What was imported, or `nil` when nothing was to be done.
    /// - Throws: `decode` naming a damaged file, and what the keychain throws; nothing is written then.
    public static func importAtUnlock(
        from directory: String,
        password: SecretData,
        into service: any KeychainService
    ) throws(KeychainError) -> Summary? {
        let paths = try GnomeKeyringFile.paths(in: directory)
        guard !paths.isEmpty, try !hasImported(in: service) else { return nil }
        let files = try paths.map { (path) throws(KeychainError) in try GnomeKeyringFile.read(path) }
        let opens = files.contains { file in
            do {
                _ = try file.open(password: password)
                return true
            } catch {
                return false
            }
        }
        guard opens else { return nil }
        return try importFiles(
            files,
            password: password,
            defaultKeyring: GnomeKeyringFile.defaultKeyring(in: directory),
            skipLocked: true,
            into: service
        )
    }
}
