import ArgumentParser
import Foundation
import Latchkey

/// How a keychain passphrase or key file is given to the keychain management commands.
struct CredentialOptions: ParsableArguments {
    @Option(
        name: .customShort("p"),
        help: "The passphrase (visible in the process list: prefer --passphrase-stdin or the prompt)."
    )
    var passphrase: String?

    @Flag(name: .customLong("passphrase-stdin"), help: "Read the passphrase from standard input.")
    var passphraseStdin = false

    @Option(name: .customLong("key-file"), help: "A key file (32 random bytes, or 64 hex digits).")
    var keyFile: String?

    /// The credentials given on the command line (none when the user gave none).
    func credentials() throws -> [UnlockCredential] {
        var credentials: [UnlockCredential] = []
        if let passphrase { credentials.append(.passphrase(SecretData(string: passphrase))) }
        if passphraseStdin { credentials.append(.passphrase(Terminal.readStandardInput())) }
        if let keyFile { credentials.append(try .keyFile(at: keyFile)) }
        return credentials
    }
}

/// `create-keychain`: makes a new keychain protected by a passphrase and/or a key file.
struct CreateKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-keychain",
        abstract: "Create a keychain.",
        discussion: """
            The keychain is protected by the passphrase and/or key file given; without one, by the \
            environment's (LATCHKEY_KEY_FILE, LATCHKEY_PASSPHRASE_FILE, LATCHKEY_PASSPHRASE), else by a \
            passphrase asked twice on the terminal. Without a terminal and without a source the command fails \
            at once. An empty passphrase is refused: a keychain without one is protected by a key file alone \
            (--new-key-file). Paths are kept absolute and symlink-free. New keychains are added to the list \
            shown by list-keychains.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var given: CredentialOptions
    @Flag(name: .customShort("P"), help: "Prompt for the passphrase (the default on a terminal).") var prompt = false
    @Option(name: .customLong("new-key-file"), help: "Create a new key file (mode 0600) and protect with it.")
    var newKeyFile: String?
    @Argument(help: "Keychain files or names (default: -k, $LATCHKEY_KEYCHAIN or the default keychain).")
    var names: [String] = []

    func run() throws {
        try runReportingErrors {
            let paths = names.isEmpty ? [keychain.path] : try names.map { try KeychainName.resolve($0) }
            var credentials = try given.credentials()
            // Checked before --new-key-file writes its file, so a refused command leaves nothing behind.
            try KeychainName.refuseEmptyPassphrase(credentials)
            if let newKeyFile { credentials.append(try .createKeyFile(at: newKeyFile)) }
            if credentials.isEmpty && !prompt { credentials = try UnlockCredential.fromEnvironment() }
            if credentials.isEmpty {
                guard Terminal.isInteractive else {
                    throw KeychainError(
                        .interactionNotAllowed,
                        "Give --passphrase-stdin, --key-file or --new-key-file (no terminal to prompt on)."
                    )
                }
                credentials = [.passphrase(try Terminal.newPassphrase(for: paths.count == 1 ? paths[0] : nil))]
            }
            try KeychainName.refuseEmptyPassphrase(credentials)
            var config = KeychainConfig.load()
            for path in paths {
                let file = try KeychainFile.create(at: path, credentials: credentials, options: keychain.storeOptions)
                print("created \(file.path)")
                config.remember(file.path)
            }
            try config.save()
        }
    }
}

/// `show-keychain-info`: path, lock state (this process's, or the agent's), protections and item counts.
struct ShowKeychainInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show-keychain-info",
        abstract: "Show a keychain's state.",
        discussion: """
            When a latchkey agent serves the keychain, the lock state is the agent's (shared by every client) \
            and the item counts are those this executable sees through it. Otherwise the lock state is this \
            process's: it is unlocked when the environment (or -p/--key-file) unlocks it. Item counts need an \
            unlocked keychain; they are omitted otherwise. No prompt is shown.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var given: CredentialOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let path = keychain.path
            guard FileManager.default.fileExists(atPath: path) else {
                throw KeychainName.missing(path, named: keychain.isNamed)
            }
            let agent = try KeychainContext.agent(serving: path)
            let file = KeychainFile(path: path)
            let service =
                try agent
                ?? file.open(
                    credentials: try given.credentials() + UnlockCredential.fromEnvironment(),
                    options: keychain.storeOptions
                )
            let lockState = try service.perform(.lockState).lockState()
            var counts: [String: Int]?
            if lockState == .unlocked {
                var found: [String: Int] = [:]
                for itemClass in ItemClass.storable {
                    found[itemClass.rawValue] = try service.allItems(itemClass, withData: false).count
                }
                counts = found
            }
            let hasPassphrase = try file.facts(options: keychain.storeOptions).hasPassphrase
            let settings = try KeychainSettings.load(for: path)
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if output.json {
                var object: [String: JSONValue] = [
                    "keychain": .string(path),
                    "lockState": .string(lockState.rawValue),
                    "hasPassphrase": .bool(hasPassphrase),
                    "fileSize": .integer(Int64(size)),
                    "items": counts.map { .object($0.mapValues { .integer(Int64($0)) }) } ?? .null,
                ]
                object["default"] = .bool(path == KeychainConfig.effectiveDefault())
                object["settings"] = .object([
                    "idleLock": settings.idleLock.map { .integer(Int64($0)) } ?? .null,
                    "lockOnSleep": .bool(settings.lockOnSleep),
                ])
                if let agent {
                    object["agent"] = .object([
                        "socket": .string(agent.socketPath),
                        "pid": .integer(Int64(agent.welcome.agentProcess)),
                    ])
                }
                try JSONValue.object(object).print()
                return
            }
            var out = "Keychain \"\(path)\" \(lockState.words)\n"
            if let agent {
                out += "    agent: \(agent.socketPath) (pid \(agent.welcome.agentProcess)), shared lock state\n"
            }
            out += "    settings: \(settings.words)\n"
            out += "    passphrase: \(hasPassphrase ? "yes" : "no")\n"
            out += "    file size: \(size) bytes\n"
            if let counts {
                for itemClass in ItemClass.storable {
                    out += "    \(itemClass.rawValue) items: \(counts[itemClass.rawValue] ?? 0)\n"
                }
            }
            ItemOutput.write(out)
        }
    }
}

/// `set-keychain-password`: replaces the passphrase, or adds a key file (only the master key is rewrapped).
struct SetKeychainPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-password",
        abstract: "Change a keychain's passphrase, or add a key file.",
        discussion: """
            The current credential comes from -o, --old-passphrase-stdin, the environment or a prompt. The new \
            passphrase comes from -p, --new-passphrase-stdin or a prompt (asked twice). With both stdin flags, \
            standard input holds the old passphrase on its first line and the new one on the second. \
            --new-key-file/--set-key-file replace the key-file slot instead of the passphrase. When a latchkey \
            agent serves the keychain, the agent checks the current credential and makes the change; it keeps \
            serving, unlocked, and the next `latchkey unlock` takes the new passphrase.
            """
    )

    @OptionGroup var keychain: KeychainOptions

    @Option(name: .customShort("o"), help: "The current passphrase (visible in the process list).")
    var oldPassphrase: String?
    @Flag(name: .customLong("old-passphrase-stdin"), help: "Read the current passphrase from standard input.")
    var oldPassphraseStdin = false
    @Option(name: .customShort("p"), help: "The new passphrase (visible in the process list).")
    var newPassphrase: String?
    @Flag(name: .customLong("new-passphrase-stdin"), help: "Read the new passphrase from standard input.")
    var newPassphraseStdin = false
    @Option(
        name: .customLong("new-key-file"),
        help: "Create a new key file (mode 0600) that also unlocks the keychain."
    )
    var newKeyFile: String?
    @Option(name: .customLong("set-key-file"), help: "Let an existing key file unlock the keychain.")
    var setKeyFile: String?

    func run() throws {
        try runReportingErrors {
            var old: [UnlockCredential] = []
            if let oldPassphrase { old.append(.passphrase(SecretData(string: oldPassphrase))) }
            var newFromStdin: SecretData?
            if oldPassphraseStdin {
                guard let line = Terminal.readStandardInputLine() else {
                    throw KeychainError(.param, "Standard input is empty: the current passphrase was expected.")
                }
                old.append(.passphrase(line))
                if newPassphraseStdin { newFromStdin = Terminal.readStandardInputLine() }
            } else if newPassphraseStdin {
                newFromStdin = Terminal.readStandardInput()
            }
            // The agent's keychain or the file opened in process, locked: every change proves the current
            // credential itself (`.changeCredential`), the same way through both.
            let service: any KeychainService
            if let agent = try KeychainContext.agent(serving: keychain.path) {
                service = agent
            } else {
                try KeychainOpener.refuseIfMissing(keychain.path, .refuse, named: keychain.isNamed)
                service = try KeychainFile(path: keychain.path).open(options: keychain.storeOptions)
            }
            try change(service, old: old, newFromStdin: newFromStdin)
        }
    }

    /// Whether a new passphrase is asked for: given, or no key file given instead.
    private var wantsPassphrase: Bool {
        newPassphrase != nil || newPassphraseStdin || (newKeyFile == nil && setKeyFile == nil)
    }

    /// The new passphrase (`-p`, standard input or a prompt asked twice), or `nil` when only a key file changes.
    private func newPassphraseValue(newFromStdin: SecretData?) throws -> SecretData? {
        guard wantsPassphrase else { return nil }
        let passphrase: SecretData
        if let newPassphrase {
            passphrase = SecretData(string: newPassphrase)
        } else if newPassphraseStdin {
            guard let newFromStdin else {
                throw KeychainError(.param, "Standard input ended before the new passphrase.")
            }
            passphrase = newFromStdin
        } else {
            guard Terminal.isInteractive else {
                throw KeychainError(
                    .interactionNotAllowed,
                    "The new passphrase is needed but standard input is not a terminal: use --new-passphrase-stdin."
                )
            }
            passphrase = try Terminal.newPassphrase()
        }
        guard !passphrase.isEmpty else { throw KeychainError(.param, "The passphrase must not be empty.") }
        return passphrase
    }

    /// Changes the credential in the agent, which keeps serving (unlocked) with the new one: each change is
    /// one `.changeCredential` request carrying the current credential, which the agent checks first.
    private func change(_ service: any KeychainService, old: [UnlockCredential], newFromStdin: SecretData?) throws {
        let current = try currentCredentials(old)
        if let newKeyFile { try Self.change(service, current: current, to: try .createKeyFile(at: newKeyFile)) }
        if let setKeyFile { try Self.change(service, current: current, to: try .keyFile(at: setKeyFile)) }
        guard let passphrase = try newPassphraseValue(newFromStdin: newFromStdin) else { return }
        try Self.change(service, current: current, to: .passphrase(passphrase))
    }

    /// The current credentials: given, from the environment, else asked on the terminal.
    private func currentCredentials(_ old: [UnlockCredential]) throws -> [UnlockCredential] {
        let given = old + (try UnlockCredential.fromEnvironment())
        guard given.isEmpty else { return given }
        guard Terminal.isInteractive else {
            throw KeychainError(
                .interactionNotAllowed,
                "The passphrase changes only with the current one: give -o, --old-passphrase-stdin or "
                    + "LATCHKEY_KEY_FILE (no terminal to ask on)."
            )
        }
        return [.passphrase(try Terminal.readSecret(prompt: "Current passphrase for \(keychain.path): "))]
    }

    /// One `.changeCredential` request per current credential until one is accepted; the last refusal
    /// otherwise.
    private static func change(
        _ service: any KeychainService,
        current: [UnlockCredential],
        to new: UnlockCredential
    ) throws {
        for (index, credential) in current.enumerated() {
            do throws(KeychainError) {
                try service.changeCredential(current: credential, to: new)
                return
            } catch {
                // No `var` for the last error and no `catch let … as`: both sent Swift 6.3.1's AllocBoxToStack
                // pass astray here.
                if error.code != .authFailed || index == current.count - 1 { throw error }
            }
        }
    }
}
