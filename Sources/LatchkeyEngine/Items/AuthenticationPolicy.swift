import Foundation
import LatchkeyCrypto

/// What the caller has done about items whose secret needs user authentication (`accc` with a
/// user-presence, passcode or biometry constraint).
public enum AuthenticationPolicy: String, Sendable, Hashable, Codable {
    /// Fail with `interactionRequired` (-25315) when a protected item's secret would be read or
    /// rewritten; the caller then authenticates the user and repeats the request with `.confirmed`.
    case ask
    /// Leave protected items out (Apple's `kSecUseAuthenticationUISkip`).
    case skip
    /// Fail with `interactionNotAllowed` (Apple's `kSecUseAuthenticationUIFail`).
    case fail
    /// The caller authenticated the user for this request.
    case confirmed
}

/// The reuse duration of the user-presence confirmation that requests made in a scope carry
/// (`FindRequest.authenticationReuse`, `UpdateRequest.authenticationReuse`).
///
/// The Apple face binds it from the request's `LAContext` around its calls, so a request built deeper
/// down carries it without every call site passing it:
///
/// ```swift
/// try AuthenticationReuse.$duration.withValue(context.touchIDAuthenticationAllowableReuseDuration) {
///     try service.findOne(query, withData: true, authentication: .ask)
/// }
/// ```
public enum AuthenticationReuse {
    /// The duration in seconds, or `nil` outside a scope.
    @TaskLocal public static var duration: TimeInterval?
}
