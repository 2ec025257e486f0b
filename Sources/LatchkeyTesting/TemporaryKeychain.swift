import Foundation
import Latchkey

/// A keychain's files in a private temporary directory (mode 0700), with its own device secret, removed
/// when the value is released: nothing touches the user's real keychain. Unlike `TestKeychain`, nothing is
/// opened until the test asks: `open()` creates the keychain on first use, and a test can open several
/// stores on it (as several processes would), read-only ones, or ones with other credentials.
///
/// ```swift
/// let keychain = TemporaryKeychain()
/// let store = try keychain.open()                       // created, unlocked with the test passphrase
/// let locked = try keychain.open(credentials: [])        // a second store, never unlocked
/// let child = try ChildProcess("/usr/bin/env", ["latchkey", "find-generic-password"],
///                              environment: keychain.environment())
/// ```
///
/// The stores use the cheap test KDF cost, so creating one takes about a millisecond.
///
/// `Sendable`: every property is immutable; the class exists for its `deinit` clean-up.
public final class TemporaryKeychain: Sendable {
    /// The private directory holding every file of this keychain.
    public let directory: String
    /// The keychain file (`<directory>/test.keychain-db`); it exists once a store was opened.
    public let path: String
    /// The device secret file used instead of the user's real one.
    public let deviceSecretPath: String
    /// The passphrase `open()` creates and unlocks the keychain with (test-only: never use a fixed
    /// passphrase elsewhere).
    public let passphrase = SecretData(string: TemporaryKeychain.passphraseText)
    /// The access groups of the stores `open()` makes; the first is where new items go.
    public let accessGroups: [String]

    private static let passphraseText = "correct horse battery staple"

    /// Makes the private directory; the keychain file itself is created by the first `open()`.
    ///
    /// Stops the test process when no temporary directory can be made (nothing else could run).
    ///
    /// - Parameter accessGroups: The groups of the stores `open()` makes.
    public init(accessGroups: [String] = ["com.example.app", "com.example.shared"]) {
        let directory: String
        do {
            directory = try TemporaryDirectory.make()
        } catch {
            preconditionFailure("TemporaryKeychain: \(error.message)")
        }
        self.directory = directory
        path = directory + "/test.keychain-db"
        deviceSecretPath = directory + "/device-secret"
        self.accessGroups = accessGroups
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Store options with this keychain's groups, device secret and the cheap test KDF cost.
    ///
    /// - Parameters:
    ///   - accessGroups: Other groups than this keychain's.
    ///   - deviceSecretPath: Another device secret file than this keychain's.
    ///   - readOnly: Open read-only.
    public func options(
        accessGroups: [String]? = nil,
        deviceSecretPath: String? = nil,
        readOnly: Bool = false
    )
        -> KeychainStore.Options
    {
        KeychainStore.Options(
            accessGroups: accessGroups ?? self.accessGroups,
            readOnly: readOnly,
            kdfCost: .testing,
            deviceSecretPath: deviceSecretPath ?? self.deviceSecretPath
        )
    }

    /// Opens a store on the keychain, creating the keychain on first use; unlocked with the test
    /// passphrase unless `credentials` says otherwise.
    ///
    /// - Parameters:
    ///   - credentials: The unlock credentials (`[]` opens it locked); default: the test passphrase.
    ///   - accessGroups: Other groups than this keychain's.
    ///   - deviceSecretPath: Another device secret file than this keychain's.
    ///   - readOnly: Open read-only.
    /// - Returns: A new store; close it, or release it, when done.
    /// - Throws: The errors of `KeychainStore.open(path:credentials:options:)`.
    public func open(
        credentials: [UnlockCredential]? = nil,
        accessGroups: [String]? = nil,
        deviceSecretPath: String? = nil,
        readOnly: Bool = false
    ) throws -> KeychainStore {
        try KeychainStore.open(
            path: path,
            credentials: credentials ?? [.passphrase(passphrase)],
            options: options(accessGroups: accessGroups, deviceSecretPath: deviceSecretPath, readOnly: readOnly)
        )
    }

    /// The environment for a child process (such as the `latchkey` CLI) to use this keychain: this
    /// process's environment with `LATCHKEY_KEYCHAIN`, `LATCHKEY_DEVICE_SECRET`, `LATCHKEY_PASSPHRASE` and
    /// `LATCHKEY_ACCESS_GROUPS` set, and `extra` on top.
    public func environment(extra: [String: String] = [:]) -> [String: String] {
        TemporaryDirectory.environment(
            path: path,
            deviceSecretPath: deviceSecretPath,
            passphrase: Self.passphraseText,
            accessGroups: accessGroups,
            extra: extra
        )
    }
}
