import Foundation
import Latchkey

/// An isolated keychain for tests: its own file, device secret and access groups in a fresh private
/// directory, removed when the value is released. Nothing touches the user's real keychain.
///
/// ```swift
/// import LatchkeyTesting
///
/// @Test func tokenRoundTrips() throws {
///     let test = try TestKeychain()                   // or TestKeychain.inMemory()
///     let keychain = test.keychain(service: "com.example.app")
///     try keychain.set("s3cret", forKey: "token")
///     #expect(try keychain.string(forKey: "token") == "s3cret")
///     test.lock()                                      // exercise the locked paths
/// }
/// ```
///
/// The keychain uses the cheap test KDF cost, so creating one takes about a millisecond; pass it to
/// your code as a `Keychain` (through `keychain(service:)`) or a `KeychainStore` (`store`). Child
/// processes (for example the `latchkey` CLI) reach it through `environment()`.
///
/// `Sendable`: every property is immutable; the class exists for its `deinit` clean-up.
public final class TestKeychain: Sendable {
    /// Where the keychain's files live.
    public enum Location: Sendable, Hashable {
        /// A new directory under the system's temporary directory (`$TMPDIR`, usually `/tmp`).
        case temporaryDirectory
        /// A new directory under `/dev/shm`, a RAM-backed file system on Linux: the keychain never
        /// reaches a disk and is as fast as memory allows. It is still a real keychain file (SQLite
        /// needs one for its write-ahead log), so every behaviour is the production one, including
        /// several stores or processes sharing it. Falls back to `.temporaryDirectory` where
        /// `/dev/shm` does not exist.
        case memory
    }

    /// The private directory holding every file of this keychain (mode 0700).
    public let directory: String
    /// The keychain file.
    public let path: String
    /// The device secret file used instead of the user's real one.
    public let deviceSecretPath: String
    /// The passphrase protecting the keychain (test-only; never use a fixed passphrase elsewhere).
    public let passphrase: String
    /// The access groups the test process has for this keychain.
    public let accessGroups: [String]
    /// The open store, unlocked unless `startsLocked` was asked for.
    public let store: KeychainStore
    /// Where the stores of this keychain read the time (`SystemClock` unless the test gave a
    /// `ManualClock` or another clock).
    public let clock: any KeychainClock
    /// Where the stores of this keychain take identifiers (`SystemRandom` unless the test gave a
    /// `SeededRandom` or another source).
    public let random: any KeychainRandom

    /// Creates a keychain in a fresh private directory.
    ///
    /// - Parameters:
    ///   - location: `.temporaryDirectory` (default) or `.memory` (`/dev/shm`).
    ///   - accessGroups: The process's groups for this keychain; the first is where new items go.
    ///   - passphrase: The passphrase of the keychain's only slot.
    ///   - startsLocked: Open it without unlocking (lock state `.neverUnlocked`): only `always` items
    ///     are readable until `unlock()`.
    ///   - clock: Where item dates come from; pass a `ManualClock` to control them.
    ///   - random: Where persistent-reference identifiers come from; pass a `SeededRandom` to make them
    ///     reproducible.
    /// - Throws: `KeychainError.Code.io` when the directory cannot be made; errors of `KeychainStore.create`.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let test = try TestKeychain(clock: clock, random: SeededRandom(seed: 1))
    /// ```
    public init(
        location: Location = .temporaryDirectory,
        accessGroups: [String] = ["com.example.tests"],
        passphrase: String = "latchkey-testing-passphrase",
        startsLocked: Bool = false,
        clock: any KeychainClock = SystemClock(),
        random: any KeychainRandom = SystemRandom()
    ) throws(KeychainError) {
        let directory = try TemporaryDirectory.make(inMemory: location == .memory)
        self.directory = directory
        self.path = directory + "/test.keychain-db"
        self.deviceSecretPath = directory + "/device-secret"
        self.passphrase = passphrase
        self.accessGroups = accessGroups
        self.clock = clock
        self.random = random
        do {
            let options = Self.options(
                accessGroups: accessGroups,
                deviceSecretPath: deviceSecretPath,
                clock: clock,
                random: random
            )
            let created = try KeychainStore.create(
                path: path,
                credentials: [.passphrase(SecretData(string: passphrase))],
                options: options
            )
            if startsLocked {
                try created.close()
                store = try KeychainStore.open(path: path, credentials: [], createIfMissing: false, options: options)
            } else {
                store = created
            }
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Creates a keychain whose files live in memory (`/dev/shm`); see `Location.memory` and
    /// `init(location:accessGroups:passphrase:startsLocked:clock:random:)` for the parameters.
    public static func inMemory(
        accessGroups: [String] = ["com.example.tests"],
        startsLocked: Bool = false,
        clock: any KeychainClock = SystemClock(),
        random: any KeychainRandom = SystemRandom()
    ) throws(KeychainError) -> TestKeychain {
        try TestKeychain(
            location: .memory,
            accessGroups: accessGroups,
            startsLocked: startsLocked,
            clock: clock,
            random: random
        )
    }

    deinit {
        try? store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A `Keychain` for `service` backed by this test keychain.
    ///
    /// The keychain value keeps this test keychain (and so its files) alive, so
    /// `let keychain = try TestKeychain.inMemory().keychain()` is enough for a test. A bare `store`
    /// does not: keep the `TestKeychain` while you use it.
    public func keychain(service: String = "com.example.tests") -> Keychain {
        Keychain(service: service).store(store, keepingAlive: self)
    }

    /// The credential that unlocks this keychain.
    public var credential: UnlockCredential { .passphrase(SecretData(string: passphrase)) }

    /// Locks the store (as `KeychainStore.lock()`): `whenUnlocked` items become unreadable.
    public func lock() {
        store.lock()
    }

    /// Unlocks the store with the test passphrase.
    public func unlock() throws(KeychainError) {
        try store.unlock(with: credential)
    }

    /// Opens a second, independent store on the same file, as another process would see it (with
    /// this keychain's clock and identifier source).
    ///
    /// - Parameters:
    ///   - unlocked: Unlock it with the test passphrase (default) or leave it `.neverUnlocked`.
    ///   - accessGroups: Its groups (default: this keychain's).
    public func openAnotherStore(
        unlocked: Bool = true,
        accessGroups: [String]? = nil
    ) throws(KeychainError)
        -> KeychainStore
    {
        try KeychainStore.open(
            path: path,
            credentials: unlocked ? [credential] : [],
            createIfMissing: false,
            options: Self.options(
                accessGroups: accessGroups ?? self.accessGroups,
                deviceSecretPath: deviceSecretPath,
                clock: clock,
                random: random
            )
        )
    }

    /// The environment for a child process (such as the `latchkey` CLI) to use this keychain:
    /// `LATCHKEY_KEYCHAIN`, `LATCHKEY_DEVICE_SECRET`, `LATCHKEY_PASSPHRASE` and `LATCHKEY_ACCESS_GROUPS`
    /// set, on top of this process's environment and `extra`.
    public func environment(extra: [String: String] = [:]) -> [String: String] {
        TemporaryDirectory.environment(
            path: path,
            deviceSecretPath: deviceSecretPath,
            passphrase: passphrase,
            accessGroups: accessGroups,
            extra: extra
        )
    }

    private static func options(
        accessGroups: [String],
        deviceSecretPath: String,
        clock: any KeychainClock,
        random: any KeychainRandom
    ) -> KeychainStore.Options {
        KeychainStore.Options(
            accessGroups: accessGroups,
            kdfCost: .testing,
            deviceSecretPath: deviceSecretPath,
            clock: clock,
            random: random
        )
    }
}
