import Latchkey

/// The keychain a command acts on and the KDF cost of the passphrase slots it creates, as `-k`/`--keychain` (or a
/// keychain given last) and `--kdf-cost` say: built by `KeychainOptions` for ArgumentParser's commands and by
/// `FastPath`, so that both open a keychain the same way.
struct KeychainSelection {
    /// The KDF costs `--kdf-cost` names.
    static let costs: [String: KDFCost] = ["standard": .standard, "testing": .testing]

    /// The keychain file or name given, or `nil` for the effective default (`KeychainOptions.path(_:)`).
    var name: String?
    /// The KDF cost of new passphrase slots.
    var cost: KDFCost = costs[ItemDefaults.kdfCost] ?? .standard

    /// The keychain: the one named, else `$LATCHKEY_KEYCHAIN`, else the default set with `default-keychain -s`,
    /// else the login keychain; absolute and symlink-free (`KeychainName.canonical`).
    var path: String { KeychainOptions.path(name) }

    /// Whether the keychain was named (`-k` or `$LATCHKEY_KEYCHAIN`) rather than taken as the default: a missing
    /// named keychain is errSecNoSuchKeychain (-25294), the missing default errSecNoDefaultKeychain (-25307).
    var isNamed: Bool { KeychainName.isNamed(name) }

    /// The options the keychain is opened with in process.
    var storeOptions: KeychainFileOptions {
        var options = KeychainFileOptions()
        options.kdfCost = cost
        return options
    }

    /// The keychain as a service: the agent's client when a per-user agent serves it (unless
    /// `LATCHKEY_AGENT=off`), else the file opened in process (`KeychainOpener.service`).
    func service(
        unlock: Bool = true,
        promptOnControllingTerminal: Bool = false,
        ifMissing missing: MissingKeychain = .refuse
    ) throws -> any KeychainService {
        try KeychainOpener.service(
            path: path,
            named: isNamed,
            options: storeOptions,
            unlock: unlock,
            promptOnControllingTerminal: promptOnControllingTerminal,
            ifMissing: missing
        )
    }

    /// Refuses at once a keychain that does not exist and that `missing` does not create, before a command asks
    /// for anything else (an item's password at a prompt).
    func refuseIfMissing(_ missing: MissingKeychain) throws {
        try KeychainOpener.refuseIfMissing(path, missing, named: isNamed)
    }
}
