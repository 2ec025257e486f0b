#if !canImport(Darwin)
import Foundation

/// `SecTrustCreateWithCertificates`: makes a trust object for a certificate chain and policies (mirrors
/// Apple's function).
///
/// - Parameters:
///   - certificates: The certificate to evaluate, or an array of certificates: the leaf first, then any
///     certificates that may help build its chain, in any order.
///   - policies: A `SecPolicy`, an array of them (all must pass), or `nil` for the basic X.509 policy.
///   - trust: Receives the trust object.
/// - Returns: `errSecSuccess`; `errSecParam` (with `trust` untouched) when `certificates` is not a certificate
///   or a non-empty array of certificates, or `policies` is not a policy or a non-empty array of policies.
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef,
    _ policies: CFTypeRef?,
    _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
    guard let certificateList = TrustArguments.certificates(certificates) else { return errSecParam }
    let policyList: [SecPolicy]
    if let policies {
        guard let list = TrustArguments.policies(policies) else { return errSecParam }
        policyList = list
    } else {
        policyList = [SecPolicyCreateBasicX509()]
    }
    trust.pointee = SecTrust(certificates: certificateList, policies: policyList)
    return errSecSuccess
}

/// How the trust calls read their `CFTypeRef` arguments, as Apple's do: one object or a non-empty array of
/// objects of the one expected type.
enum TrustArguments {
    /// A certificate, or a non-empty array holding only certificates.
    static func certificates(_ value: CFTypeRef) -> [SecCertificate]? {
        if let certificate = value as? SecCertificate { return [certificate] }
        return nonEmptyArray(value, of: SecCertificate.self)
    }

    /// A policy, or a non-empty array holding only policies.
    static func policies(_ value: CFTypeRef) -> [SecPolicy]? {
        if let policy = value as? SecPolicy { return [policy] }
        return nonEmptyArray(value, of: SecPolicy.self)
    }

    /// An array (possibly empty) holding only certificates.
    static func certificateArray(_ value: CFArray) -> [SecCertificate]? {
        let items = value.map { $0 as AnyObject }
        let certificates = items.compactMap { $0 as? SecCertificate }
        return certificates.count == items.count ? certificates : nil
    }

    private static func nonEmptyArray<Element>(_ value: CFTypeRef, of type: Element.Type) -> [Element]? {
        guard let array = value as? NSArray, array.count > 0 else { return nil }
        let elements = array.compactMap { $0 as AnyObject as? Element }
        return elements.count == array.count ? elements : nil
    }
}
#endif
