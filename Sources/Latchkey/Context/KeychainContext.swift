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
    /// The keychain opened in this process behind `service`, when there is one; `nil` when the context
    /// goes through the per-user agent (a context never opens a second copy of the agent's keychain).
    ///
    /// For code that wants the file itself (`Keychain.defaultStore()`, to unlock it); the faces (the typed
    /// `Keychain`, its observation and readiness, `SecItem*`, `LatchkeyTokens`) use `service`.
    public var store: KeychainStore? { service as? KeychainStore }
    /// Checks a passphrase typed to confirm the user's presence (`kSecAttrAccessControl` items).
    public let verifyPassphrase: @Sendable (SecretData) -> Bool

    /// A context over an in-process store; the passphrase check unlocks that store with the passphrase.
    public init(store: KeychainStore) {
        self.service = store
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
        self.verifyPassphrase = verifyPassphrase
    }

    /// A context over `service`, checking a passphrase by unlocking it (`init(store:)` for a keychain opened in
    /// process, `init(agent:)` for the per-user agent's client, else an `.unlock` operation).
    public convenience init(service: any KeychainService) {
        if let store = service as? KeychainStore {
            self.init(store: store)
        } else if let agent = service as? AgentClient {
            self.init(agent: agent)
        } else {
            self.init(service: service) { passphrase in
                do {
                    _ = try service.perform(.unlock(.passphrase(passphrase)))
                    return true
                } catch {
                    return false
                }
            }
        }
    }

    /// A context over the per-user agent: operations go to `agent`; a passphrase is checked by unlocking the
    /// agent with it (`KeychainOperation.unlock`), as `init(store:)` unlocks its store.
    public init(agent: AgentClient) {
        self.service = agent
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
        let keychain = KeychainLocation.defaultKeychainPath(environment: environment)
        if let agent = try agent(serving: keychain, environment: environment) { return KeychainContext(agent: agent) }
        return KeychainContext(store: try openDefaultStore(environment: environment))
    }

    /// The one decision between the per-user agent and a keychain opened in process, for the default keychain
    /// (`makeDefault`) and for any other file (the CLI's `-k`): the agent's client when an agent answers and
    /// serves `path`, `nil` to open the file in process.
    ///
    /// - Throws: `notAvailable` when `LATCHKEY_AGENT=required` and no agent serves `path`; the agent's refusal
    ///   (`missingEntitlement` for a group of `LATCHKEY_ACCESS_GROUPS` it does not grant).
    public static func agent(
        serving path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeychainError) -> AgentClient? {
        guard let agent = try AgentClient.discover(environment: environment) else { return nil }
        if agent.serves(path) { return agent }
        if AgentMode.current(environment: environment) == .required {
            throw KeychainError(
                .notAvailable,
                "LATCHKEY_AGENT=required but the agent serves \(agent.welcome.keychain), not \(path)."
            )
        }
        return nil
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
