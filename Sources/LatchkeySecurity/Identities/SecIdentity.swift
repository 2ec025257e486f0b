#if !canImport(Darwin)
import Foundation

/// `SecIdentity`: a certificate together with the private key of its public key (mirrors Apple's
/// `SecIdentityRef`).
///
/// Identities come from `SecPKCS12Import` or from `SecItemCopyMatching` with `kSecClassIdentity` and
/// `kSecReturnRef`; in the keychain an identity is not stored as such but joins a private key and the
/// certificate whose `kSecAttrPublicKeyHash` equals the key's `kSecAttrApplicationLabel`
/// (docs/apple-semantics.md §2.2).
/// Two identities are equal when their certificates and keys are.
public final class SecIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The certificate.
    let certificate: SecCertificate
    /// The private key matching the certificate's public key.
    let privateKey: SecKey

    /// Pairs a certificate with its private key.
    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Equal when certificate and key are equal.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    /// Hashes the certificate and the key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate)
        hasher.combine(privateKey)
    }

    /// A description naming the certificate's subject summary and the key type (never key material).
    public var description: String {
        "<SecIdentity \(certificate.subjectSummary ?? "(no subject)"), \(privateKey)>"
    }
}

/// `SecIdentityCopyCertificate`: the identity's certificate (mirrors Apple's function).
///
/// - Parameters:
///   - identityRef: The identity.
///   - certificateRef: Receives the certificate.
/// - Returns: `errSecSuccess`.
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity,
    _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// `SecIdentityCopyPrivateKey`: the identity's private key (mirrors Apple's function).
///
/// - Parameters:
///   - identityRef: The identity.
///   - privateKeyRef: Receives the private key.
/// - Returns: `errSecSuccess`.
public func SecIdentityCopyPrivateKey(
    _ identityRef: SecIdentity,
    _ privateKeyRef: UnsafeMutablePointer<SecKey?>
) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}
#endif
