#if !canImport(Darwin)
import Foundation

/// `SecTrustResultType`: the outcome of the deprecated `SecTrustEvaluate` (mirrors Apple's enumeration and its
/// raw values).
///
/// Here an evaluation answers `.unspecified` (trusted; no user trust settings exist) or
/// `.recoverableTrustFailure` (every check implemented is one Apple classes as recoverable).
public enum SecTrustResultType: UInt32, Sendable {
    /// Not evaluated, or the evaluation could not run.
    case invalid = 0
    /// Trusted because a user explicitly trusted the certificate (never answered here).
    case proceed = 1
    /// Deprecated by Apple: confirmation required (never answered here).
    case confirm = 2
    /// Distrusted by a user setting (never answered here).
    case deny = 3
    /// Trusted: the chain passed every policy.
    case unspecified = 4
    /// Not trusted, for a reason a user could override (expired, wrong host, unknown root...).
    case recoverableTrustFailure = 5
    /// Not trusted, for a reason nobody can override (never answered here).
    case fatalTrustFailure = 6
    /// Evaluation failed for another reason (never answered here).
    case otherError = 7
}

/// `SecTrustEvaluate`: evaluates the trust object and reports a `SecTrustResultType` (mirrors Apple's function,
/// deprecated there in favour of `SecTrustEvaluateWithError`, and still used by older pinning code).
///
/// The evaluation is `SecTrustEvaluateWithError`'s, and shares its cached result.
///
/// - Parameters:
///   - trust: The trust object.
///   - result: Receives `.unspecified` when trusted, `.recoverableTrustFailure` when not.
/// - Returns: `errSecSuccess` (a chain that is not trusted is a result, not an error).
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.evaluateIfNecessary().resultType
    return errSecSuccess
}

/// `SecTrustGetTrustResult`: the result of the last evaluation, evaluating first when there is none (mirrors
/// Apple's function).
///
/// - Parameters:
///   - trust: The trust object.
///   - result: Receives `.unspecified` when trusted, `.recoverableTrustFailure` when not.
/// - Returns: `errSecSuccess`.
public func SecTrustGetTrustResult(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.evaluateIfNecessary().resultType
    return errSecSuccess
}

extension TrustResult {
    /// The `SecTrustResultType` of this result.
    var resultType: SecTrustResultType {
        failure == nil ? .unspecified : .recoverableTrustFailure
    }
}
#endif
