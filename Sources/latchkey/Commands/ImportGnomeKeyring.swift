import ArgumentParser
import Foundation
import Latchkey
import LatchkeySecretService

/// The options of `import --from gnome-keyring`.
struct GnomeKeyringImportOptions: ParsableArguments {
    @Option(
        name: .customLong("from"),
        help: ArgumentHelp(
            "Import another keychain's files: gnome-keyring (its keyrings, default: every *.keyring in "
                + "$XDG_DATA_HOME/keyrings, else ~/.local/share/keyrings).",
            valueName: "source"
        )
    )
    var from: String?
    @Flag(
        name: .customLong("skip-locked"),
        help: "With --from gnome-keyring: skip (and report) a keyring that the password does not open."
    )
    var skipLocked = false

    func validate() throws {
        if let from, from != "gnome-keyring" { throw ValidationError("--from takes gnome-keyring.") }
        if from == nil && skipLocked { throw ValidationError("--skip-locked goes with --from gnome-keyring.") }
    }
}

extension Import {
    /// `import --from gnome-keyring [FILE...]`: gnome-keyring's keyrings into the Secret Service's collections
    /// (docs/install.md, "Moving from gnome-keyring: importing its keyrings").
    func importGnomeKeyring() throws {
        let directory = GnomeKeyringFile.defaultDirectory()
        let paths = files.isEmpty ? try GnomeKeyringFile.paths(in: directory) : files
        let keyrings = try paths.map { (path) throws(KeychainError) in try GnomeKeyringFile.read(path) }
        let folders = Set(paths.map { ($0 as NSString).deletingLastPathComponent })
        let defaultKeyring = folders.count == 1 ? folders.first.flatMap(GnomeKeyringFile.defaultKeyring(in:)) : nil
        if keyrings.isEmpty {
            warn(
                "no gnome-keyring keyring in \(directory): nothing to import (name the keyring files to import others)."
            )
            return
        }
        let encrypted = keyrings.filter(\.isEncrypted).map(\.name)
        let password = encrypted.isEmpty ? nil : try gnomeKeyringPassword(for: encrypted)
        try keychain.refuseIfMissing(.createDefault)
        let service = try Self.secretServiceKeychain(keychain)
        let summary = try GnomeKeyringImport.importFiles(
            keyrings,
            password: password,
            defaultKeyring: defaultKeyring,
            skipLocked: gnomeKeyring.skipLocked,
            into: service
        )
        for skipped in summary.skipped {
            warn("skipped \(skipped.path): the password does not open it (import it again with its own password).")
        }
        if format.json {
            try JSONValue.object([
                "imported": .integer(Int64(summary.imported)),
                "duplicates": .integer(Int64(summary.duplicates)),
                "defaultAlias": summary.defaultAlias.map(JSONValue.string) ?? .null,
                "keyrings": .array(
                    summary.keyrings.map { keyring in
                        .object([
                            "file": .string(keyring.path),
                            "collection": keyring.collection.map(JSONValue.string) ?? .null,
                            "label": .string(keyring.label),
                            "format": .string(keyring.encrypted ? "encrypted" : "plain"),
                            "items": .integer(Int64(keyring.items)),
                            "imported": .integer(Int64(keyring.imported)),
                            "duplicates": .integer(Int64(keyring.duplicates)),
                            "skipped": .bool(keyring.skipped),
                        ])
                    }
                ),
            ]).print()
            return
        }
        var out = ""
        for keyring in summary.keyrings where !keyring.skipped {
            out += "\(keyring.path): imported \(keyring.imported) of \(keyring.items) items into the collection "
            out += "\(keyring.collection ?? "")"
            if keyring.duplicates > 0 { out += ", \(keyring.duplicates) duplicates (already there) left alone" }
            out += "\n"
        }
        if let alias = summary.defaultAlias { out += "the default alias names the collection \(alias)\n" }
        out += "imported \(summary.imported) items, \(summary.duplicates) duplicates left alone\n"
        ItemOutput.write(out)
    }

    /// The password of the encrypted keyrings: `--passphrase-stdin`, `--passphrase-file`,
    /// `LATCHKEY_IMPORT_PASSPHRASE`, else a no-echo prompt on a terminal.
    ///
    /// - Throws: `interactionNotAllowed` (-25308) when none is given and there is no terminal to ask on.
    private func gnomeKeyringPassword(for names: [String]) throws -> SecretData {
        if archivePassphrase.passphraseStdin || archivePassphrase.passphraseFile != nil {
            return try archivePassphrase.passphrase(confirm: false)
        }
        if let value = ProcessInfo.processInfo.environment["LATCHKEY_IMPORT_PASSPHRASE"] {
            return SecretData(string: value)
        }
        guard Terminal.isInteractive else {
            throw KeychainError(
                .interactionNotAllowed,
                "The gnome-keyring keyrings \(names.joined(separator: ", ")) are encrypted and no password was given: "
                    + "use --passphrase-stdin, --passphrase-file or LATCHKEY_IMPORT_PASSPHRASE."
            )
        }
        return try Terminal.readSecret(prompt: "gnome-keyring password (\(names.joined(separator: ", "))): ")
    }

    /// The keychain seen with the Secret Service's access group only: the agent's client asking for that group
    /// when an agent serves the keychain, else the file opened in process with that group.
    ///
    /// - Throws: `missingEntitlement` (-34018) when the agent does not give the group to this program, with the
    ///   grant that does.
    static func secretServiceKeychain(_ keychain: KeychainOptions) throws -> any KeychainService {
        let group = SecretServiceBackend.accessGroup
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_ACCESS_GROUPS"] = group
        do {
            if let agent = try AgentClient.discover(environment: environment) {
                if agent.serves(keychain.path) { return agent }
                if AgentMode.current() == .required {
                    throw KeychainError(
                        .notAvailable,
                        "LATCHKEY_AGENT=required but the agent serves \(agent.welcome.keychain), not \(keychain.path)."
                    )
                }
            }
        } catch let error as KeychainError where error.code == .missingEntitlement {
            let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            throw KeychainError(
                .missingEntitlement,
                "The agent does not let this program write the Secret Service's items (access group \(group)): run "
                    + "`latchkey access grant \(program ?? "latchkey") \(group)`, then import again."
            )
        }
        var options = keychain.storeOptions
        options.accessGroups = [group]
        return try KeychainOpener.open(
            path: keychain.path,
            named: keychain.isNamed,
            options: options,
            ifMissing: .createDefault
        )
    }
}
