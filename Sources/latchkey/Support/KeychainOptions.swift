import ArgumentParser
import Foundation
import Latchkey

/// Options every keychain command shares.
struct KeychainOptions: ParsableArguments {
    @Option(name: [.customLong("keychain"), .customShort("k")], help: "The keychain file (default: $LATCHKEY_KEYCHAIN or the login keychain).")
    var keychain: String?

    @Option(name: .customLong("kdf-cost"), help: ArgumentHelp("Passphrase KDF cost for new slots: standard or testing.", visibility: .hidden))
    var kdfCost: String = "standard"

    var path: String {
        keychain.map { KeychainLocation.resolve($0) } ?? KeychainLocation.defaultKeychainPath()
    }

    var storeOptions: KeychainStore.Options {
        var options = KeychainStore.Options()
        options.kdfCost = kdfCost == "testing" ? .testing : .standard
        return options
    }

    /// Opens the keychain, creating it from the environment (or an interactive prompt) when missing, and
    /// unlocking it from the environment or a prompt when it is locked.
    func open(unlock: Bool = true) throws -> KeychainStore {
        var credentials = try UnlockCredential.fromEnvironment()
        let exists = FileManager.default.fileExists(atPath: path)
        if !exists && credentials.isEmpty {
            guard Terminal.isInteractive else {
                throw KeychainError(
                    .interactionNotAllowed,
                    "No keychain at \(path) and no passphrase source: set LATCHKEY_KEY_FILE or LATCHKEY_PASSPHRASE_FILE, or run on a terminal."
                )
            }
            credentials = [.passphrase(try Terminal.newPassphrase())]
        }
        let store = try KeychainStore.open(path: path, credentials: credentials, options: storeOptions)
        if unlock && store.lockState != .unlocked && Terminal.isInteractive {
            try store.unlock(with: .passphrase(try Terminal.readSecret(prompt: "Passphrase for \(path): ")))
        }
        return store
    }
}
