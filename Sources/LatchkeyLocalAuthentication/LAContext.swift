#if !canImport(Darwin)
import Foundation
import Latchkey
import Synchronization

/// An authentication context; mirrors Apple's `LAContext`.
///
/// Evaluations are answered by `LAAuthentication.current` (by default the keychain passphrase typed on
/// the terminal). Pass a context to the keychain under `kSecUseAuthenticationContext`: once it has
/// been evaluated successfully, keychain reads of items protected by `kSecAttrAccessControl` reuse it
/// without asking again, until `invalidate()`.
///
/// Known differences from Apple:
/// - `evaluatePolicy(_:localizedReason:reply:)` calls `reply` on the calling thread before returning
///   (Apple calls it later on a private queue); pinned by `LocalAuthenticationTests.replyRunsBeforeReturn`.
/// - There is no biometry: `biometryType` is `.none` and the terminal authenticator reports the
///   biometric-only policies as unavailable.
/// - In process, `touchIDAuthenticationAllowableReuseDuration` is stored (capped at 300 s) but has no
///   effect. Through the per-user agent it is sent with each keychain request and honoured by the agent,
///   which confirms presence with its own prompter and does not ask the same executable again within it
///   (docs/agent.md, "User presence"); an evaluation of this context in the client process is then not
///   used by the keychain (any process could claim one). Pinned by
///   `AgentPresenceTests.aSecondReadWithinTheReuseDurationIsNotPromptedOnTheAgentsClock`.
open class LAContext: NSObject, @unchecked Sendable {
    // SAFETY: every mutable property lives in `state`, a Mutex; subclasses that add state must
    // synchronize it themselves.
    private struct State {
        var localizedReason = ""
        var localizedFallbackTitle: String?
        var localizedCancelTitle: String?
        var interactionNotAllowed = false
        var reuseDuration: TimeInterval = 0
        var evaluated = false
        var invalidated = false
    }

    private let state = Mutex(State())

    /// `LAContext.init()`: a fresh, unevaluated context.
    public override init() {
        super.init()
    }

    /// `LAContext.localizedReason`: the reason shown when the keychain asks for authentication.
    open var localizedReason: String {
        get { state.withLock { $0.localizedReason } }
        set { state.withLock { $0.localizedReason = newValue } }
    }

    /// `LAContext.localizedFallbackTitle`.
    open var localizedFallbackTitle: String? {
        get { state.withLock { $0.localizedFallbackTitle } }
        set { state.withLock { $0.localizedFallbackTitle = newValue } }
    }

    /// `LAContext.localizedCancelTitle`.
    open var localizedCancelTitle: String? {
        get { state.withLock { $0.localizedCancelTitle } }
        set { state.withLock { $0.localizedCancelTitle = newValue } }
    }

    /// `LAContext.interactionNotAllowed`: when `true`, any evaluation that would need the user fails
    /// with `.notInteractive` (the keychain reports `errSecInteractionNotAllowed`).
    open var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// `LAContext.touchIDAuthenticationAllowableReuseDuration` (capped at
    /// `LATouchIDAuthenticationMaximumAllowableReuseDuration`; honoured by the agent, no effect in process).
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { state.withLock { $0.reuseDuration } }
        set {
            state.withLock {
                $0.reuseDuration = min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            }
        }
    }

    /// `LAContext.biometryType`: always `.none` on Linux.
    open var biometryType: LABiometryType { .none }

    /// `LAContext.evaluatedPolicyDomainState`: always `nil` on Linux (no biometric enrolment).
    open var evaluatedPolicyDomainState: Data? { nil }

    /// `LAContext.canEvaluatePolicy(_:error:)`: whether `policy` can be evaluated.
    ///
    /// - Parameters:
    ///   - policy: The policy.
    ///   - error: Receives an `NSError` in `LAErrorDomain` when the answer is `false`.
    /// - Returns: `false` after `invalidate()` (`.invalidContext`) or when the authenticator cannot
    ///   serve the policy.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        let code: LAError.Code? =
            state.withLock { $0.invalidated } ? .invalidContext : LAAuthentication.current.availability(of: policy)
        if let code {
            error?.pointee = LAError(code).nsError
            return false
        }
        return true
    }

    /// `LAContext.evaluatePolicy(_:localizedReason:reply:)`: authenticates the user.
    ///
    /// - Parameters:
    ///   - policy: The policy.
    ///   - localizedReason: Why the app asks (shown by the authenticator).
    ///   - reply: Called once with `(true, nil)` or `(false, LAError)`. Unlike Apple, it runs on the calling
    ///     thread before this method returns.
    open func evaluatePolicy(
        _ policy: LAPolicy,
        localizedReason: String,
        reply: @escaping (Bool, (any Error)?) -> Void
    ) {
        do {
            try evaluate(policy, reason: localizedReason, verifier: LAAuthentication.passphraseVerifier, reuse: false)
            reply(true, nil)
        } catch {
            reply(false, error)
        }
    }

    /// `LAContext.evaluatePolicy(_:localizedReason:) async throws -> Bool`.
    ///
    /// - Throws: `LAError`.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try evaluate(policy, reason: localizedReason, verifier: LAAuthentication.passphraseVerifier, reuse: false)
        return true
    }

    /// `LAContext.evaluateAccessControl(_:operation:localizedReason:reply:)`: authenticates the user for
    /// an access control (a `SecAccessControl`), so that keychain calls given this context reuse it.
    ///
    /// - Parameters:
    ///   - accessControl: The `SecAccessControl` (typed `AnyObject` here because `LatchkeySecurity` builds
    ///     on this module; call sites are unchanged).
    ///   - operation: The operation (informational on Linux).
    ///   - localizedReason: Why the app asks.
    ///   - reply: As for `evaluatePolicy(_:localizedReason:reply:)`, called before this method returns.
    open func evaluateAccessControl(
        _ accessControl: AnyObject,
        operation: LAAccessControlOperation,
        localizedReason: String,
        reply: @escaping (Bool, (any Error)?) -> Void
    ) {
        evaluatePolicy(.deviceOwnerAuthentication, localizedReason: localizedReason, reply: reply)
    }

    /// `LAContext.evaluateAccessControl(_:operation:localizedReason:) async throws -> Bool`.
    ///
    /// - Throws: `LAError`.
    open func evaluateAccessControl(
        _ accessControl: AnyObject,
        operation: LAAccessControlOperation,
        localizedReason: String
    ) async throws -> Bool {
        try await evaluatePolicy(.deviceOwnerAuthentication, localizedReason: localizedReason)
    }

    /// `LAContext.invalidate()`: the context can no longer be evaluated or used by the keychain.
    open func invalidate() {
        state.withLock {
            $0.invalidated = true
            $0.evaluated = false
        }
    }

    /// Authenticates for a keychain operation: reuses an earlier successful evaluation of this context,
    /// else asks the current authenticator (unless interaction is not allowed).
    ///
    /// - Throws: `LAError` (`.invalidContext`, `.notInteractive`, `.userCancel`, `.authenticationFailed` ...).
    package func authenticateForKeychain(
        reason: String?,
        verifier: @escaping @Sendable (SecretData) -> Bool
    ) throws(LAError) {
        let text = reason ?? (localizedReason.isEmpty ? "Access a protected keychain item." : localizedReason)
        try evaluate(.deviceOwnerAuthentication, reason: text, verifier: verifier, reuse: true)
    }

    private func evaluate(
        _ policy: LAPolicy,
        reason: String,
        verifier: @escaping @Sendable (SecretData) -> Bool,
        reuse: Bool
    ) throws(LAError) {
        let snapshot = state.withLock { $0 }
        if snapshot.invalidated { throw LAError(.invalidContext) }
        if reuse, snapshot.evaluated { return }
        if snapshot.interactionNotAllowed { throw LAError(.notInteractive) }
        let authenticator = LAAuthentication.current
        if let unavailable = authenticator.availability(of: policy) { throw LAError(unavailable) }
        try authenticator.authenticate(
            LAAuthenticationRequest(
                policy: policy,
                localizedReason: reason,
                localizedCancelTitle: snapshot.localizedCancelTitle,
                localizedFallbackTitle: snapshot.localizedFallbackTitle,
                verifyPassphrase: verifier
            )
        )
        state.withLock { $0.evaluated = !$0.invalidated }
    }
}
#endif
