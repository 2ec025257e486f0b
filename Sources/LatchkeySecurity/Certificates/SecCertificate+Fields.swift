#if !canImport(Darwin)
import Foundation

extension SecCertificate {
    /// `rsaEncryption` (1.2.840.113549.1.1.1).
    private static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// `id-ecPublicKey` (1.2.840.10045.2.1).
    private static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]

    /// The certificate's public key as a `SecKey`; `nil` for key types this module does not support
    /// (anything but RSA and uncompressed P-256/P-384/P-521 points).
    var publicKey: SecKey? {
        let bits = Data(fields.subjectPublicKey)
        switch fields.publicKeyAlgorithm {
        case Self.rsaEncryption: return try? SecKey.make(type: 42, isPrivate: false, size: nil, data: bits)
        case Self.ecPublicKey: return try? SecKey.make(type: 73, isPrivate: false, size: nil, data: bits)
        default: return nil
        }
    }
}

/// `SecCertificateCopyKey`: the certificate's public key (mirrors Apple's function).
///
/// - Parameter certificate: The certificate.
/// - Returns: An RSA or EC public key, or `nil` when the key type is not supported (e.g. Ed25519, DSA, a
///   compressed EC point).
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.publicKey
}

/// `SecCertificateCopySerialNumberData`: the content octets of the serial number INTEGER, leading zero
/// included (mirrors Apple's function).
///
/// - Parameters:
///   - certificate: The certificate.
///   - error: Not written: every parsed certificate has a serial number.
/// - Returns: The serial number bytes (big-endian).
public func SecCertificateCopySerialNumberData(
    _ certificate: SecCertificate,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    NSData(data: Data(certificate.fields.serialContent))
}

/// `SecCertificateCopyNormalizedIssuerSequence`: the issuer Name, normalized as the keychain stores it in
/// `kSecAttrIssuer`, as a DER SEQUENCE (mirrors Apple's function).
///
/// Usable as a `kSecAttrIssuer` query value: the keychain accepts the full SEQUENCE or its contents.
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: Data(DERReader.encode(0x30, DERReader.normalizedNameContents(certificate.fields.issuerContent))))
}

/// `SecCertificateCopyNormalizedSubjectSequence`: the subject Name, normalized as the keychain stores it in
/// `kSecAttrSubject`, as a DER SEQUENCE (mirrors Apple's function).
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: Data(DERReader.encode(0x30, DERReader.normalizedNameContents(certificate.fields.subjectContent))))
}
#endif
