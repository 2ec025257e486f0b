import Foundation
import LatchkeyCrypto
import Synchronization

/// The one process-wide keychain context every face shares: the keychain service (and so the access
/// groups and lock state) and the passphrase check used to confirm the user's presence.
///
/// `Keychain` values made without a store, the `SecItem*` functions and `LAContext` all read
/// `KeychainContext.current()`, so a process has one connection pool and one lock state, not one per face.
/// By default the first use opens `KeychainStore.open()` (the default keychain, unlocked with the
/// credentials the environment names, the process's access groups); a failed open is retried next time.
///
/// ```swift
/// let store = try KeychainStore.open(path: "/tmp/test.keychain-db", credentials: [.passphrase(secret)])
/// KeychainContext.install(KeychainContext(store: store))          // whole process
/// try KeychainContext.with(KeychainContext(store: store)) { ... }  // this task (or thread) only
/// ```
public final class KeychainContext: Sendable {
    /// The service every face sends its operations to.
    public let service: any KeychainService
    /// The in-process store behind `service`, when the keychain is opened in this process.
    public let store: KeychainStore?
    /// Checks a passphrase typed to confirm the user's presence (`kSecAttrAccessControl` items).
    public let verifyPassphrase: @Sendable (SecretData) -> Bool

    /// A context over an in-process store; the passphrase check unlocks that store with the passphrase.
    public init(store: KeychainStore) {
        self.service = store
        self.store = store
        self.verifyPassphrase = { passphrase in
            do {
                try store.unlock(with: .passphrase(passphrase))
                return true
            } catch {
                return false
            }
        }
    }

    /// A context over any service (for example an agent's client) with its own passphrase check.
    public init(service: any KeychainService, verifyPassphrase: @escaping @Sendable (SecretData) -> Bool) {
        self.service = service
        self.store = service as? KeychainStore
        self.verifyPassphrase = verifyPassphrase
    }

    private static let installed = Mutex<KeychainContext?>(nil)
    @TaskLocal private static var scoped: KeychainContext?

    /// The context in effect: the innermost `with` scope, else the installed one, else the default
    /// keychain opened now.
    ///
    /// - Throws: The `KeychainError` of `KeychainStore.open()` when the default keychain cannot be opened.
    public static func current() throws(KeychainError) -> KeychainContext {
        if let scoped { return scoped }
        return try installed.withLock { (slot: inout KeychainContext?) throws(KeychainError) -> KeychainContext in
            if let context = slot { return context }
            let context = KeychainContext(store: try KeychainStore.open())
            slot = context
            return context
        }
    }

    /// Installs `context` for the whole process; `nil` returns to the lazily opened default.
    public static func install(_ context: KeychainContext?) {
        installed.withLock { $0 = context }
    }

    /// Runs `operation` with `context` in effect for the current task (and its child tasks) only.
    public static func with<T>(_ context: KeychainContext, operation: () throws -> T) rethrows -> T {
        try $scoped.withValue(context, operation: operation)
    }

    /// Async variant of `with(_:operation:)`.
    public static func with<T>(_ context: KeychainContext, operation: () async throws -> T) async rethrows -> T {
        try await $scoped.withValue(context, operation: operation)
    }
}
