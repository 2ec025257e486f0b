#if !canImport(Darwin)
import Foundation

/// `SecTrustSetAnchorCertificates`: the certificates this trust object trusts as roots (mirrors Apple's
/// function).
///
/// As on Apple platforms, setting anchors makes them the only roots trusted; call
/// `SecTrustSetAnchorCertificatesOnly(trust, false)` afterwards to trust the system's roots as well. `nil`
/// removes the anchors and trusts the system's roots again.
///
/// - Parameters:
///   - trust: The trust object.
///   - anchorCertificates: An array of certificates, or `nil`.
/// - Returns: `errSecSuccess`; `errSecParam` when the array holds anything but certificates.
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    guard let anchorCertificates else {
        trust.update { settings in
            settings.anchors = nil
            settings.anchorsOnly = false
        }
        return errSecSuccess
    }
    guard let anchors = TrustArguments.certificateArray(anchorCertificates) else { return errSecParam }
    trust.update { settings in
        settings.anchors = anchors
        settings.anchorsOnly = true
    }
    return errSecSuccess
}

/// `SecTrustSetAnchorCertificatesOnly`: whether only the anchors set with `SecTrustSetAnchorCertificates` are
/// trusted (`true`), or the system's roots too (`false`) (mirrors Apple's function).
///
/// The system's roots are Debian's `ca-certificates` bundle, `/etc/ssl/certs/ca-certificates.crt`.
///
/// - Parameters:
///   - trust: The trust object.
///   - anchorCertificatesOnly: `true` to trust only the anchors.
/// - Returns: `errSecSuccess`.
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.update { $0.anchorsOnly = anchorCertificatesOnly }
    return errSecSuccess
}

/// `SecTrustSetVerifyDate`: the date the certificates must be valid on, instead of the time of evaluation
/// (mirrors Apple's function).
///
/// - Parameters:
///   - trust: The trust object.
///   - verifyDate: The date.
/// - Returns: `errSecSuccess`.
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    let date = Date(timeIntervalSinceReferenceDate: verifyDate.timeIntervalSinceReferenceDate)
    trust.update { $0.verifyDate = date }
    return errSecSuccess
}

/// `SecTrustGetVerifyTime`: the date set with `SecTrustSetVerifyDate` as seconds since 2001-01-01, else now
/// (mirrors Apple's function).
///
/// - Parameter trust: The trust object.
/// - Returns: The verify time (`CFAbsoluteTime`).
public func SecTrustGetVerifyTime(_ trust: SecTrust) -> Double {
    (trust.settings.verifyDate ?? Date()).timeIntervalSinceReferenceDate
}

/// `SecTrustSetPolicies`: replaces the policies (mirrors Apple's function).
///
/// - Parameters:
///   - trust: The trust object.
///   - policies: A `SecPolicy` or a non-empty array of them.
/// - Returns: `errSecSuccess`; `errSecParam` when `policies` is neither.
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
    guard let list = TrustArguments.policies(policies) else { return errSecParam }
    trust.update { $0.policies = list }
    return errSecSuccess
}

/// `SecTrustCopyPolicies`: the trust object's policies (mirrors Apple's function).
///
/// - Parameters:
///   - trust: The trust object.
///   - policies: Receives an array of `SecPolicy`.
/// - Returns: `errSecSuccess`.
public func SecTrustCopyPolicies(_ trust: SecTrust, _ policies: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    policies.pointee = trust.settings.policies as NSArray
    return errSecSuccess
}

/// `SecTrustCopyCustomAnchorCertificates`: the anchors set with `SecTrustSetAnchorCertificates` (mirrors
/// Apple's function).
///
/// - Parameters:
///   - trust: The trust object.
///   - anchors: Receives the array of anchors, or `nil` when none were set.
/// - Returns: `errSecSuccess`.
public func SecTrustCopyCustomAnchorCertificates(
    _ trust: SecTrust,
    _ anchors: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    anchors.pointee = trust.settings.anchors.map { $0 as NSArray }
    return errSecSuccess
}

/// `SecTrustSetNetworkFetchAllowed`: whether evaluation may fetch missing intermediates and revocation
/// information from the network (mirrors Apple's function).
///
/// Known difference from Apple: nothing is ever fetched (no AIA intermediates, no OCSP or CRL), so the value
/// is only recorded and read back by `SecTrustGetNetworkFetchAllowed`.
///
/// - Parameters:
///   - trust: The trust object.
///   - allowFetch: The value to record.
/// - Returns: `errSecSuccess`.
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus {
    trust.update { $0.networkFetchAllowed = allowFetch }
    return errSecSuccess
}

/// `SecTrustGetNetworkFetchAllowed`: the value set with `SecTrustSetNetworkFetchAllowed` (`true` until one is
/// set) (mirrors Apple's function).
///
/// - Parameters:
///   - trust: The trust object.
///   - allowFetch: Receives the value.
/// - Returns: `errSecSuccess`.
public func SecTrustGetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: UnsafeMutablePointer<Bool>) -> OSStatus {
    allowFetch.pointee = trust.settings.networkFetchAllowed
    return errSecSuccess
}
#endif
