import Foundation
import LatchkeyCrypto
import Synchronization

/// The one process-wide keychain context every face shares: the keychain service (and so the access
/// groups and lock state) and the passphrase check used to confirm the user's presence.
///
/// `Keychain` values made without a store, the `SecItem*` functions and `LAContext` all read
/// `KeychainContext.current()`, so a process has one connection pool and one lock state, not one per face.
/// By default the first use looks for the per-user agent (`AgentClient.discover()`): when one answers
/// and serves the default keychain (and `LATCHKEY_AGENT` is not `off`), the context sends its operations
/// there, with the agent's lock state and the access groups the agent gives this executable. Otherwise it
/// opens `KeychainStore.open()` (the default keychain, unlocked with the credentials the environment
/// names, the process's access groups); a failed open is retried next time.
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
    ///
    /// For an agent's context this is the default keychain opened in this process on first use (`nil`
    /// when that fails), for code that asks for a file rather than a service (`Keychain.defaultStore()`,
    /// `Keychain.resolvedStore()`); it then sees this process's lock state, not the agent's. The faces
    /// themselves (the typed `Keychain`, its observation and readiness, `SecItem*`, `LatchkeyTokens`) use
    /// `service`.
    public var store: KeychainStore? {
        switch backing {
        case .store(let store): store
        case .service: nil
        case .agent(let environment):
            fallbackStore.withLock { (slot: inout KeychainStore?) -> KeychainStore? in
                if let store = slot { return store }
                slot = try? Self.openDefaultStore(environment: environment)
                return slot
            }
        }
    }

    private enum Backing: Sendable {
        case store(KeychainStore)
        case service
        /// The agent's client; the environment names the default keychain to open in process for `store`.
        case agent([String: String])
    }

    private let backing: Backing
    private let fallbackStore = Mutex<KeychainStore?>(nil)
    /// Checks a passphrase typed to confirm the user's presence (`kSecAttrAccessControl` items).
    public let verifyPassphrase: @Sendable (SecretData) -> Bool

    /// A context over an in-process store; the passphrase check unlocks that store with the passphrase.
    public init(store: KeychainStore) {
        self.service = store
        self.backing = .store(store)
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
        self.backing = (service as? KeychainStore).map { .store($0) } ?? .service
        self.verifyPassphrase = verifyPassphrase
    }

    /// A context over the per-user agent: operations go to `agent`; a passphrase is checked by unlocking the
    /// agent with it (`KeychainOperation.unlock`), as `init(store:)` unlocks its store.
    public convenience init(agent: AgentClient) {
        self.init(agent: agent, environment: ProcessInfo.processInfo.environment)
    }

    private init(agent: AgentClient, environment: [String: String]) {
        self.service = agent
        self.backing = .agent(environment)
        self.verifyPassphrase = { passphrase in
            do {
                _ = try agent.perform(.unlock(.passphrase(passphrase)))
                return true
            } catch {
                return false
            }
        }
    }

    /// The context a process gets when none is installed: the agent's when `AgentClient.discover()` finds
    /// one serving the default keychain, else the default keychain opened in process.
    ///
    /// - Throws: The `KeychainError` of `AgentClient.discover()` (`LATCHKEY_AGENT=required` without an
    ///   agent, a refused `LATCHKEY_ACCESS_GROUPS`) or of `KeychainStore.open()`.
    public static func makeDefault(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeychainError) -> KeychainContext {
        if let agent = try AgentClient.discover(environment: environment) {
            let keychain = KeychainLocation.defaultKeychainPath(environment: environment)
            if agent.serves(keychain) { return KeychainContext(agent: agent, environment: environment) }
            if AgentMode.current(environment: environment) == .required {
                throw KeychainError(
                    .notAvailable,
                    "LATCHKEY_AGENT=required but the agent serves \(agent.welcome.keychain), not \(keychain)."
                )
            }
        }
        return KeychainContext(store: try openDefaultStore(environment: environment))
    }

    /// The default keychain of `environment`, opened in process with its credentials, device secret and
    /// access groups (`KeychainStore.open()` for the process's own environment).
    static func openDefaultStore(environment: [String: String]) throws(KeychainError) -> KeychainStore {
        try KeychainStore.open(
            path: KeychainLocation.defaultKeychainPath(environment: environment),
            credentials: UnlockCredential.fromEnvironment(environment),
            options: KeychainStore.Options(
                accessGroups: AccessGroups.current(environment: environment),
                deviceSecretPath: KeychainLocation.defaultDeviceSecretPath(environment: environment)
            )
        )
    }

    private static let installed = Mutex<KeychainContext?>(nil)
    @TaskLocal private static var scoped: KeychainContext?

    /// The context in effect: the innermost `with` scope, else the installed one, else `makeDefault()`
    /// (the agent, or the default keychain opened now).
    ///
    /// - Throws: The `KeychainError` of `makeDefault()`.
    public static func current() throws(KeychainError) -> KeychainContext {
        if let scoped { return scoped }
        return try installed.withLock { (slot: inout KeychainContext?) throws(KeychainError) -> KeychainContext in
            if let context = slot { return context }
            let context = try makeDefault()
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
