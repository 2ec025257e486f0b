import ArgumentParser
import Foundation
import Latchkey

/// `list-keychains`: the keychains this user works with (`-s` sets the list).
struct ListKeychains: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list-keychains",
        abstract: "Display or set the keychain list.",
        discussion: """
            The list is kept in <data directory>/keychains.json (paths only). The default keychain comes first; \
            keychains made with create-keychain are added. Commands act on one keychain (-k or the default); \
            the list does not make them search several.
            """
    )

    @Option(name: .customShort("s"), parsing: .upToNextOption, help: "Set the list to these keychains.")
    var set: [String] = []
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            var config = KeychainConfig.load()
            if !set.isEmpty {
                config.searchList = try set.map { try KeychainName.resolve($0) }
                try config.save()
                return
            }
            var paths = [KeychainConfig.effectiveDefault()]
            for path in config.searchList where !paths.contains(path) { paths.append(path) }
            paths = paths.filter { FileManager.default.fileExists(atPath: $0) }
            if output.json {
                try JSONValue.array(paths.map { .string($0) }).print()
            } else {
                ItemOutput.write(paths.map { "    \"\($0)\"\n" }.joined())
            }
        }
    }
}

/// `default-keychain`: shows or sets the default keychain (`$LATCHKEY_KEYCHAIN` still wins).
struct DefaultKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "default-keychain",
        abstract: "Display or set the default keychain.",
        discussion: """
            The default is $LATCHKEY_KEYCHAIN when set, else the keychain set here (kept in \
            <data directory>/keychains.json), else login.keychain-db in the data directory.
            """
    )

    @Option(name: .customShort("s"), help: "Make this keychain (file or name) the default.") var set: String?
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            if let set {
                let path = try KeychainName.resolve(set)
                var config = KeychainConfig.load()
                config.defaultKeychain = path
                config.remember(path)
                try config.save()
                if let overriding = ProcessInfo.processInfo.environment["LATCHKEY_KEYCHAIN"], !overriding.isEmpty {
                    warn("LATCHKEY_KEYCHAIN is set and still takes precedence over the default keychain.")
                }
                return
            }
            let environment = ProcessInfo.processInfo.environment["LATCHKEY_KEYCHAIN"] ?? ""
            let source: String
            if !environment.isEmpty {
                source = "environment"
            } else if KeychainConfig.load().defaultKeychain?.isEmpty == false {
                source = "config"
            } else {
                source = "login"
            }
            let path = KeychainConfig.effectiveDefault()
            if output.json {
                try JSONValue.object(["keychain": .string(path), "source": .string(source)]).print()
            } else {
                print("    \"\(path)\"")
            }
        }
    }
}

/// `delete-keychain`: removes keychain files (after checking they are keychains) and forgets them.
struct DeleteKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-keychain",
        abstract: "Delete keychains and remove them from the keychain list.",
        discussion: "Every item in the keychain is lost. Files that are not Latchkey keychains are left alone."
    )

    @OptionGroup var keychain: KeychainOptions
    @Argument(help: "Keychain files or names (default: -k or $LATCHKEY_KEYCHAIN).") var names: [String] = []

    func run() throws {
        try runReportingErrors {
            let paths: [String]
            if !names.isEmpty {
                paths = try names.map { try KeychainName.resolve($0) }
            } else if keychain.keychain != nil || ProcessInfo.processInfo.environment["LATCHKEY_KEYCHAIN"] != nil {
                paths = [keychain.path]
            } else {
                throw KeychainError(.param, "Name the keychain to delete (or give -k).")
            }
            var config = KeychainConfig.load()
            for path in paths {
                guard FileManager.default.fileExists(atPath: path) else {
                    throw KeychainName.missing(path, named: true)
                }
                try KeychainFile(path: path).delete(options: keychain.storeOptions)
                config.forget(path)
            }
            try config.save()
        }
    }
}

/// `lock-keychain`: locks the agent's keychain; without an agent, checks that the keychain exists.
struct LockKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock-keychain",
        abstract: "Lock the agent's keychain for every client; without an agent, check that the keychain exists.",
        discussion: """
            When a latchkey agent serves the keychain, this locks it in the agent for every client, as \
            `latchkey lock` does (-a too). With no daemon (no latchkey agent), every latchkey process unlocks the \
            keychain for itself (from the environment, a key file or a prompt) and forgets the keys when it \
            exits. There is therefore no unlocked session to lock. This command then checks that the keychain \
            exists and exits 0, so scripts written for security keep working. To stop unattended access, remove \
            the key file or passphrase file that LATCHKEY_KEY_FILE / LATCHKEY_PASSPHRASE_FILE point to.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Flag(name: .customShort("a"), help: "Lock all keychains (the agent's; without an agent there is nothing to lock).")
    var all = false
    @Argument(help: "Keychain file or name.") var name: String?

    func run() throws {
        try runReportingErrors {
            if all {
                if let agent = try AgentClient.discover() { _ = try agent.perform(.lock) }
                return
            }
            let path = try name.map { try KeychainName.resolve($0) } ?? keychain.path
            if let agent = try KeychainContext.agent(serving: path) {
                _ = try agent.perform(.lock)
                return
            }
            guard FileManager.default.fileExists(atPath: path) else {
                throw KeychainName.missing(path, named: name != nil || keychain.isNamed)
            }
        }
    }
}

/// `unlock-keychain`: checks a passphrase or key file against a keychain; nothing stays unlocked afterwards.
struct UnlockKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock-keychain",
        abstract: "Unlock the agent's keychain, or check that a passphrase or key file unlocks a keychain.",
        discussion: """
            When a latchkey agent serves the keychain, the credential (from -p, --passphrase-stdin, --key-file, \
            the environment or a prompt) is handed to the agent, which unlocks the keychain for every client, as \
            `latchkey unlock` does. Without the agent no later command can inherit an unlock: each process \
            unlocks for itself, and this command only verifies the credential. Either way it exits 0 when the \
            credential unlocks the keychain, 1 with OSStatus -25293 when it does not. Nothing is written. For \
            unattended use set LATCHKEY_KEY_FILE or LATCHKEY_PASSPHRASE_FILE.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var given: CredentialOptions
    @Flag(name: .customShort("u"), help: "Do not prompt; use only the environment and the options given.")
    var noPrompt = false
    @Argument(help: "Keychain file or name.") var name: String?

    func run() throws {
        try runReportingErrors {
            let path = try name.map { try KeychainName.resolve($0) } ?? keychain.path
            guard FileManager.default.fileExists(atPath: path) else {
                throw KeychainName.missing(path, named: name != nil || keychain.isNamed)
            }
            let agent = try KeychainContext.agent(serving: path)
            let service = try agent ?? KeychainFile(path: path).open(options: keychain.storeOptions)
            var credentials = try given.credentials()
            if credentials.isEmpty { credentials = try UnlockCredential.fromEnvironment() }
            if credentials.isEmpty {
                guard !noPrompt, Terminal.isInteractive else {
                    throw KeychainError(
                        .interactionNotAllowed,
                        "No passphrase given and no terminal to ask on: use --passphrase-stdin or --key-file."
                    )
                }
                credentials = [.passphrase(try Terminal.readSecret(prompt: "Passphrase for \(path): "))]
            }
            for (index, credential) in credentials.enumerated() {
                do throws(KeychainError) {
                    _ = try service.perform(.unlock(credential))
                    return
                } catch {
                    // No `var` for the last error and no `catch let … as`: that sent Swift 6.3.1's
                    // AllocBoxToStack pass into a loop that never ends.
                    if index == credentials.count - 1 { throw error }
                }
            }
        }
    }
}
