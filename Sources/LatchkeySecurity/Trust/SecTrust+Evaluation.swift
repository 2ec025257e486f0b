#if !canImport(Darwin)
import Dispatch
import Foundation

/// `SecTrustEvaluateWithError`: evaluates the trust object's chain against its policies (mirrors Apple's
/// function).
///
/// The chain is built from the leaf through the given certificates to a trusted root (the anchors, or the
/// system's roots from `/etc/ssl/certs/ca-certificates.crt`) with swift-certificates' `Verifier`, every
/// signature checked, every certificate valid on the verify date, RFC 5280's basic and name constraints
/// honoured, and the SSL policies' host names matched. The result is cached until a setter changes the object.
///
/// The call is synchronous and may take milliseconds: the evaluation runs on the calling thread (it needs no
/// other thread; see `TrustExecutor`). Use `SecTrustEvaluateAsyncWithError` to stay off the caller's thread.
///
/// On failure `error` receives a `CFError` as Apple builds it: domain `NSOSStatusErrorDomain`, code one of
/// `errSecNotTrusted` (root not trusted), `errSecCreateChainFailed` (an intermediate is missing),
/// `errSecHostNameMismatch`, `errSecCertificateExpired` (also for not yet valid), `errSecNoBasicConstraintsCA`
/// (an issuer that is not a CA), `errSecInvalidCertificateRef` (other RFC 5280 rules broken) or
/// `errSecUnknownCriticalExtensionFlag`; the most severe problem wins, in Apple's
/// order (compliance, then trust, then name, then validity). Its localized description is Apple's, e.g.
/// `“www.example.com” certificate is expired`, naming the certificate's subject summary; the underlying error
/// (`NSUnderlyingErrorKey`) lists every problem per certificate.
///
/// Known differences from Apple: no revocation checking (OCSP, CRL), no fetching of missing intermediates
/// (AIA), no Certificate Transparency, EV, pinning or user trust settings; an RFC 5280 violation is reported
/// for the leaf whichever certificate broke it (but a non-CA issuer for itself).
///
/// - Parameters:
///   - trust: The trust object.
///   - error: Receives the error when the chain is not trusted; may be `nil`.
/// - Returns: `true` when the chain is trusted.
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    let result = trust.evaluateIfNecessary()
    error?.pointee = result.failure?.cfError
    return result.failure == nil
}

/// `SecTrustWithErrorCallback`: the completion of `SecTrustEvaluateAsyncWithError`: the trust object, whether
/// it is trusted, and the error when it is not.
public typealias SecTrustWithErrorCallback = (SecTrust, Bool, CFError?) -> Void

/// `SecTrustEvaluateAsyncWithError`: evaluates as `SecTrustEvaluateWithError` does, off the calling thread,
/// then calls `result` on `queue` (mirrors Apple's function).
///
/// Known difference from Apple: Apple requires the call to be made on `queue` and traps otherwise; here any
/// thread may call.
///
/// - Parameters:
///   - trust: The trust object.
///   - queue: The queue `result` is called on.
///   - result: Called once with the trust object, whether it is trusted, and the error when it is not.
/// - Returns: `errSecSuccess`.
public func SecTrustEvaluateAsyncWithError(
    _ trust: SecTrust,
    _ queue: DispatchQueue,
    _ result: @escaping SecTrustWithErrorCallback
) -> OSStatus {
    let callback = TrustCallback(result)
    Task.detached {
        let outcome = await trust.evaluate()
        let error = outcome.failure.map { TrustError($0.cfError) }
        queue.async { callback.body(trust, outcome.failure == nil, error?.error) }
    }
    return errSecSuccess
}

/// The caller's completion, carried to the queue it names.
private final class TrustCallback: @unchecked Sendable {
    // SAFETY: `body` is called exactly once, on the caller's queue, after the evaluation task finished; nothing
    // else reads it, so it is never used from two threads at once (Apple's callback type is not `Sendable`
    // either, and its API makes the same promise).
    let body: SecTrustWithErrorCallback

    init(_ body: @escaping SecTrustWithErrorCallback) {
        self.body = body
    }
}

/// An error handed from the evaluation task to the caller's queue.
private struct TrustError: @unchecked Sendable {
    // SAFETY: made by the task and not touched again before the queue's block hands it to the caller.
    let error: CFError

    init(_ error: CFError) {
        self.error = error
    }
}

/// `SecTrustCopyCertificateChain`: the chain built by the evaluation, leaf first, root last (mirrors Apple's
/// function).
///
/// Evaluates first when no result is cached. When the chain is not trusted this is the best chain found: as
/// far as the given certificates reach, or up to the root whose chain failed the policies.
///
/// - Parameter trust: The trust object.
/// - Returns: An array of `SecCertificate`.
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    trust.evaluateIfNecessary().chain as NSArray
}

/// `SecTrustGetCertificateCount`: the number of certificates in the built chain (mirrors Apple's function).
///
/// Evaluates first when no result is cached.
///
/// - Parameter trust: The trust object.
/// - Returns: The chain's length (at least 1).
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex {
    max(trust.evaluateIfNecessary().chain.count, 1)
}

/// `SecTrustGetCertificateAtIndex`: a certificate of the built chain (mirrors Apple's function, deprecated
/// there in favour of `SecTrustCopyCertificateChain`).
///
/// Index 0 is the leaf and needs no evaluation; other indexes evaluate first when no result is cached.
///
/// - Parameters:
///   - trust: The trust object.
///   - ix: The index in the chain (leaf = 0).
/// - Returns: The certificate, or `nil` when `ix` is out of range.
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
    if ix == 0 { return trust.settings.certificates.first }
    let chain = trust.evaluateIfNecessary().chain
    return chain.indices.contains(ix) ? chain[ix] : nil
}

/// `SecTrustCopyKey`: the leaf certificate's public key (mirrors Apple's function).
///
/// Needs no evaluation: the key is read from the leaf, as `SecCertificateCopyKey` reads it.
///
/// - Parameter trust: The trust object.
/// - Returns: The public key, or `nil` when its type is not supported.
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
    trust.settings.certificates.first.flatMap { SecCertificateCopyKey($0) }
}

/// `SecTrustCopyPublicKey`: the leaf certificate's public key (mirrors Apple's function, deprecated there in
/// favour of `SecTrustCopyKey`).
///
/// - Parameter trust: The trust object.
/// - Returns: The public key, or `nil` when its type is not supported.
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? {
    SecTrustCopyKey(trust)
}
#endif
