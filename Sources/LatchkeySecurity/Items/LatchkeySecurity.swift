#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication

/// Which keychain the `SecItem*` functions use, and the last error's message (Latchkey-specific; Apple's
/// `Security` has no equivalent because the system owns the keychain).
///
/// By default the first `SecItem*` call opens `KeychainLocation.defaultKeychainPath()`
/// (`$LATCHKEY_KEYCHAIN`, else `$XDG_DATA_HOME/latchkey/login.keychain-db`) with the credentials named by
/// the environment (`LATCHKEY_KEY_FILE`, `LATCHKEY_PASSPHRASE_FILE`, `LATCHKEY_PASSPHRASE`) and the
/// process's access groups (`AccessGroups.current()`). When it cannot be opened the call returns the
/// reason as an OSStatus (e.g. `errSecInteractionNotAllowed` when the keychain does not exist and there
/// is no credential to create it); the next call tries again.
///
/// ```swift
/// let store = try KeychainStore.open(path: "/tmp/test.keychain-db", credentials: [.passphrase(secret)])
/// LatchkeySecurity.useStore(store)          // whole process
/// LatchkeySecurity.withStore(store) { ... } // this task (or thread) only
/// ```
public enum LatchkeySecurity {
    /// Points every `SecItem*` call of the process (and every `Keychain` made without a store) at `store` (a
    /// keychain opened in process, or an agent's client);
    /// `nil` returns to the lazily opened default. The same as `KeychainContext.install`.
    public static func useStore(_ store: (any KeychainService)?) {
        KeychainContext.install(store.map { KeychainContext(service: $0) })
    }

    /// Runs `operation` with `SecItem*` calls of the current task (or thread) using `store`.
    public static func withStore<T>(_ store: any KeychainService, operation: () throws -> T) rethrows -> T {
        try KeychainContext.with(KeychainContext(service: store), operation: operation)
    }

    /// Async variant of `withStore(_:operation:)`.
    public static func withStore<T>(
        _ store: any KeychainService,
        operation: () async throws -> T
    ) async rethrows -> T {
        try await KeychainContext.with(KeychainContext(service: store), operation: operation)
    }

    /// The service `SecItem*` calls use now (the agent's client or the file opened in process), opening the
    /// default one if needed.
    ///
    /// - Throws: `KeychainError` when the default keychain cannot be opened.
    public static func currentService() throws(KeychainError) -> any KeychainService {
        try KeychainContext.current().service
    }

    /// The in-process store `SecItem*` calls use now, opening the default one if needed.
    ///
    /// - Throws: `KeychainError` when the default keychain cannot be opened, `notAvailable` when an agent
    ///   serves it (there is no in-process store then).
    @available(*, deprecated, renamed: "currentService()", message: "An agent's keychain has no in-process store.")
    public static func currentStore() throws(KeychainError) -> KeychainStore {
        guard let store = try KeychainContext.current().store else {
            throw KeychainError(.notAvailable, "The process's keychain context has no in-process store.")
        }
        return store
    }

    /// The message of the last failed `SecItem*` call on this thread (what failed and what to do);
    /// `nil` after a successful call. Apple only logs these; messages never contain secrets or values.
    public static var lastErrorMessage: String? {
        LastErrorSlot.message
    }

    static func recordLastError(_ message: String?) {
        LastErrorSlot.record(message)
    }
}
#endif
