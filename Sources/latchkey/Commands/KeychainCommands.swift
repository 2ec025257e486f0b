import ArgumentParser
import Foundation
import Latchkey

/// `create-keychain`: makes a new keychain protected by a passphrase and/or a key file.
struct CreateKeychain: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create-keychain", abstract: "Create a keychain.")

    @OptionGroup var keychain: KeychainOptions

    @Flag(name: .customLong("passphrase-stdin"), help: "Read the new passphrase from standard input.")
    var passphraseStdin = false

    @Option(name: .customLong("key-file"), help: "Protect with an existing key file (32 random bytes).")
    var keyFile: String?

    @Option(name: .customLong("new-key-file"), help: "Create a new key file (mode 0600) and protect with it.")
    var newKeyFile: String?

    func run() throws {
        try runReportingErrors {
            var credentials: [UnlockCredential] = []
            if passphraseStdin { credentials.append(.passphrase(Terminal.readStandardInput())) }
            if let keyFile { credentials.append(try .keyFile(at: keyFile)) }
            if let newKeyFile { credentials.append(try .createKeyFile(at: newKeyFile)) }
            if credentials.isEmpty { credentials = try UnlockCredential.fromEnvironment() }
            if credentials.isEmpty {
                guard Terminal.isInteractive else {
                    throw KeychainError(.param, "Give --passphrase-stdin, --key-file or --new-key-file (no terminal to prompt on).")
                }
                credentials = [.passphrase(try Terminal.newPassphrase())]
            }
            let store = try KeychainStore.create(path: keychain.path, credentials: credentials, options: keychain.storeOptions)
            print("created \(store.path)")
        }
    }
}

/// `show-keychain-info`: path, lock state and item counts.
struct ShowKeychainInfo: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show-keychain-info", abstract: "Show a keychain's state.")

    @OptionGroup var keychain: KeychainOptions

    func run() throws {
        try runReportingErrors {
            let store = try keychain.open(unlock: false)
            print("Keychain \"\(store.path)\" \(store.lockState.rawValue)")
        }
    }
}

/// `set-keychain-password`: replaces the passphrase (only the master key is rewrapped).
struct SetKeychainPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-password",
        abstract: "Change a keychain's passphrase."
    )

    @OptionGroup var keychain: KeychainOptions

    @Flag(name: .customLong("new-passphrase-stdin"), help: "Read the new passphrase from standard input.")
    var newPassphraseStdin = false

    func run() throws {
        try runReportingErrors {
            let store = try keychain.open()
            let passphrase = newPassphraseStdin ? Terminal.readStandardInput() : try Terminal.newPassphrase()
            try store.changePassphrase(to: passphrase)
        }
    }
}
