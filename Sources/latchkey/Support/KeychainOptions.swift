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
