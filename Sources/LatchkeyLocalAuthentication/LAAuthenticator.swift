#if !canImport(Darwin)
import Foundation
import Latchkey
import Synchronization

/// What an authenticator is asked to confirm (Latchkey-specific; Apple has no pluggable authenticators).
public struct LAAuthenticationRequest: Sendable {
    /// The policy being evaluated.
    public var policy: LAPolicy
    /// The text that tells the user why (`localizedReason`, or the keychain's `kSecUseOperationPrompt`).
    public var localizedReason: String
    /// The cancel button's title, when the app set one.
    public var localizedCancelTitle: String?
    /// The fallback button's title, when the app set one.
    public var localizedFallbackTitle: String?
    /// Checks a typed passphrase against the keychain in use; `true` when it unlocks it.
    public var verifyPassphrase: @Sendable (SecretData) -> Bool

    /// Makes a request.
    public init(
        policy: LAPolicy,
        localizedReason: String,
        localizedCancelTitle: String? = nil,
        localizedFallbackTitle: String? = nil,
        verifyPassphrase: @escaping @Sendable (SecretData) -> Bool
    ) {
        self.policy = policy
        self.localizedReason = localizedReason
        self.localizedCancelTitle = localizedCancelTitle
        self.localizedFallbackTitle = localizedFallbackTitle
        self.verifyPassphrase = verifyPassphrase
    }
}

/// Confirms the user's presence for `LAContext` (Latchkey-specific; stands in for Apple's biometry and
/// passcode UI).
///
/// The default, `LATerminalAuthenticator`, asks for the keychain passphrase on the controlling terminal.
/// Tests and headless apps install another with `LAAuthentication.install(_:)` or scope one with
/// `LAAuthentication.withAuthenticator(_:operation:)`.
public protocol LAAuthenticator: Sendable {
    /// Whether `policy` can be evaluated at all; `nil` when it can, else the reason it cannot.
    func availability(of policy: LAPolicy) -> LAError.Code?

    /// Authenticates the user for `request`.
    ///
    /// - Throws: `LAError` — `.userCancel`, `.authenticationFailed`, `.notInteractive` ...
    func authenticate(_ request: LAAuthenticationRequest) throws(LAError)
}

/// Where `LAContext` finds its authenticator (Latchkey-specific).
public enum LAAuthentication {
    private static let installed = Mutex<any LAAuthenticator>(LATerminalAuthenticator())
    @TaskLocal private static var scoped: (any LAAuthenticator)?

    /// The authenticator in effect: the innermost `withAuthenticator` scope, else the installed one.
    public static var current: any LAAuthenticator {
        scoped ?? installed.withLock { $0 }
    }

    /// Installs `authenticator` for the whole process.
    public static func install(_ authenticator: any LAAuthenticator) {
        installed.withLock { $0 = authenticator }
    }

    /// Runs `operation` with `authenticator` in effect for the current task (and its child tasks) only.
    public static func withAuthenticator<T>(
        _ authenticator: any LAAuthenticator,
        operation: () throws -> T
    ) rethrows
        -> T
    {
        try $scoped.withValue(authenticator, operation: operation)
    }

    /// Async variant of `withAuthenticator(_:operation:)`.
    public static func withAuthenticator<T>(
        _ authenticator: any LAAuthenticator,
        operation: () async throws -> T
    ) async rethrows -> T {
        try await $scoped.withValue(authenticator, operation: operation)
    }

    /// The passphrase check used by `evaluatePolicy`: the process keychain context's
    /// (`KeychainContext.current().verifyPassphrase`); `false` when no keychain can be opened.
    static var passphraseVerifier: @Sendable (SecretData) -> Bool {
        do {
            return try KeychainContext.current().verifyPassphrase
        } catch {
            return { _ in false }
        }
    }
}
#endif
