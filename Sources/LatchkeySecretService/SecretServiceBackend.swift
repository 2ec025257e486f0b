import Foundation
import Latchkey

/// What the Secret Service needs from the agent that runs it: the keychain and the agent's lock state.
///
/// The agent builds it from its own open store (`KeychainStore.scoped(accessGroups:)` with
/// `SecretServiceBackend.accessGroup`), so Secret Service items live in the agent's keychain file under the
/// agent's one lock state.
public struct SecretServiceBackend: Sendable {
    /// The access group of every Secret Service item (`org.freedesktop.secrets`).
    public static let accessGroup = SecretItemStore.accessGroup

    /// The keychain, seen with the Secret Service's access group only.
    public var keychain: any KeychainService
    /// The agent's lock state.
    public var lockState: @Sendable () -> LockState
    /// Locks the keychain for every client (the service's `Lock`).
    public var lock: @Sendable () -> Void
    /// Called before each request (the agent's idle timer).
    public var willHandleRequest: @Sendable () -> Void
    /// Called after each committed write (the agent remembers its ledger state).
    public var didWrite: @Sendable () -> Void
    /// Registers a callback run on the changing thread at each lock-state change, so that clients hear
    /// `Locked` change, returning what keeps it registered; `nil` for none. Synchronous on purpose: a hop
    /// through the cooperative pool, which blocking work can hold up, announced changes late.
    public var observeLockState: (@Sendable (_ onChange: @escaping @Sendable () -> Void) -> any Sendable)?
    /// How callers are identified and asked (confinement), or `nil` to treat every caller alike and record
    /// no owner (shared, with no prompts).
    public var applications: SecretServiceApplications?

    /// A backend.
    ///
    /// - Parameters:
    ///   - keychain: The keychain scoped to `SecretServiceBackend.accessGroup`.
    ///   - lockState: The agent's lock state.
    ///   - lock: Locks the agent's keychain.
    ///   - willHandleRequest: Called before each request.
    ///   - didWrite: Called after each committed write.
    ///   - observeLockState: Registers a synchronous lock-state callback, or `nil`.
    ///   - applications: Caller identification, confinement and prompts, or `nil`.
    public init(
        keychain: any KeychainService,
        lockState: @escaping @Sendable () -> LockState,
        lock: @escaping @Sendable () -> Void,
        willHandleRequest: @escaping @Sendable () -> Void = {},
        didWrite: @escaping @Sendable () -> Void = {},
        observeLockState: (@Sendable (_ onChange: @escaping @Sendable () -> Void) -> any Sendable)? = nil,
        applications: SecretServiceApplications? = nil
    ) {
        self.keychain = keychain
        self.lockState = lockState
        self.lock = lock
        self.willHandleRequest = willHandleRequest
        self.didWrite = didWrite
        self.observeLockState = observeLockState
        self.applications = applications
    }
}
