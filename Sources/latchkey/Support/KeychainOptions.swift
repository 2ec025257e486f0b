import ArgumentParser
import Foundation
import Latchkey

/// Options every keychain command shares.
struct KeychainOptions: ParsableArguments {
    @Option(
        name: [.customLong("keychain"), .customShort("k")],
        help: "The keychain file or name (default: $LATCHKEY_KEYCHAIN, else the default keychain)."
    )
    var keychain: String?

    @Option(
        name: .customLong("kdf-cost"),
        help: ArgumentHelp("Passphrase KDF cost for new slots and archives: standard or testing.", visibility: .hidden)
    )
    var kdfCost: String = "standard"

    /// The keychain: `-k`, else `$LATCHKEY_KEYCHAIN`, else the default set with `default-keychain -s`, else
    /// the login keychain.
    var path: String {
        keychain.map { KeychainLocation.resolve($0) } ?? KeychainConfig.effectiveDefault()
    }

    var cost: KDFCost { kdfCost == "testing" ? .testing : .standard }

    var storeOptions: KeychainStore.Options {
        var options = KeychainStore.Options()
        options.kdfCost = cost
        return options
    }

    func validate() throws {
        guard ["standard", "testing"].contains(kdfCost) else {
            throw ValidationError("--kdf-cost is standard or testing.")
        }
    }

    /// The keychain as a service: the agent's client when a per-user agent serves this keychain (unless
    /// `LATCHKEY_AGENT=off`), else the file opened in process as `open` does. Through the agent no
    /// credential is read, no key is loaded and no database is opened in this process.
    func service(unlock: Bool = true, promptOnControllingTerminal: Bool = false) throws -> any KeychainService {
        try KeychainOpener.service(
            path: path,
            options: storeOptions,
            unlock: unlock,
            promptOnControllingTerminal: promptOnControllingTerminal
        )
    }

    /// Opens the keychain, creating it from the environment (or an interactive prompt) when missing, and
    /// unlocking it from the environment or a prompt when it is locked.
    ///
    /// - Parameters:
    ///   - unlock: Whether to prompt for the passphrase when the environment does not unlock it.
    ///   - credentials: Credentials given on the command line, tried before the environment's.
    ///   - promptOnControllingTerminal: Prompt on `/dev/tty` rather than standard input (for commands whose
    ///     standard input carries a protocol).
    func open(
        unlock: Bool = true,
        credentials given: [UnlockCredential] = [],
        promptOnControllingTerminal: Bool = false
    ) throws -> KeychainStore {
        try KeychainOpener.open(
            path: path,
            options: storeOptions,
            unlock: unlock,
            credentials: given,
            promptOnControllingTerminal: promptOnControllingTerminal
        )
    }
}

/// Opens a keychain the way every command does; shared by `KeychainOptions` and the fast path.
enum KeychainOpener {
    /// The agent's client when an agent answers and serves `path`; `nil` to open the file in process.
    ///
    /// - Throws: `notAvailable` when `LATCHKEY_AGENT=required` and no agent serves `path`; the agent's
    ///   refusal (`missingEntitlement` for a group of `LATCHKEY_ACCESS_GROUPS` it does not grant).
    static func agent(serving path: String) throws -> AgentClient? {
        guard let agent = try AgentClient.discover() else { return nil }
        if agent.serves(path) { return agent }
        if AgentMode.current() == .required {
            throw KeychainError(
                .notAvailable,
                "LATCHKEY_AGENT=required but the agent serves \(agent.welcome.keychain), not \(path)."
            )
        }
        return nil
    }

    /// `path` as a service: the agent's client when an agent serves it, else `open(...)`.
    static func service(
        path: String,
        options: KeychainStore.Options,
        unlock: Bool = true,
        promptOnControllingTerminal: Bool = false
    ) throws -> any KeychainService {
        if let agent = try agent(serving: path) { return agent }
        return try open(
            path: path,
            options: options,
            unlock: unlock,
            promptOnControllingTerminal: promptOnControllingTerminal
        )
    }

    /// Opens `path`, creating it from the environment (or an interactive prompt) when missing, and unlocking
    /// it from the given credentials, the environment or a prompt when it is locked.
    static func open(
        path: String,
        options: KeychainStore.Options,
        unlock: Bool = true,
        credentials given: [UnlockCredential] = [],
        promptOnControllingTerminal: Bool = false
    ) throws -> KeychainStore {
        var credentials = try given + UnlockCredential.fromEnvironment()
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists && credentials.isEmpty {
            guard Terminal.isInteractive, !promptOnControllingTerminal else {
                throw KeychainError(
                    .interactionNotAllowed,
                    "No keychain at \(path) and no passphrase source: set LATCHKEY_KEY_FILE or LATCHKEY_PASSPHRASE_FILE, or run on a terminal."
                )
            }
            credentials = [.passphrase(try Terminal.newPassphrase())]
        }
        let store = try KeychainStore.open(path: path, credentials: credentials, options: options)
        if unlock && store.lockState != .unlocked {
            if promptOnControllingTerminal {
                let passphrase = try Terminal.readSecretFromControllingTerminal(prompt: "Passphrase for \(path): ")
                try store.unlock(with: .passphrase(passphrase))
            } else if Terminal.isInteractive {
                try store.unlock(with: .passphrase(try Terminal.readSecret(prompt: "Passphrase for \(path): ")))
            }
        }
        return store
    }
}
