#if !canImport(Darwin)
import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

extension SecCertificate {
    /// The certificate's public key as a `SecKey`, from swift-certificates' decoded key; `nil` for key types
    /// `SecKey` does not support (Ed25519) or swift-certificates could not decode.
    var publicKey: SecKey? {
        guard let key = certificate?.publicKey else { return nil }
        if let p256 = P256.Signing.PublicKey(key) { return SecKey(.p256Public(p256)) }
        if let p384 = P384.Signing.PublicKey(key) { return SecKey(.p384Public(p384)) }
        if let p521 = P521.Signing.PublicKey(key) { return SecKey(.p521Public(p521)) }
        if let rsa = _RSA.Signing.PublicKey(key) { return SecKey(.rsaPublic(rsa)) }
        return nil
    }

    /// A normalized Name's contents as one DER SEQUENCE.
    static func nameSequence(_ contents: [UInt8]) -> Data {
        var serializer = DER.Serializer()
        serializer.appendConstructedNode(identifier: .sequence) { $0.serializeRawBytes(contents) }
        return Data(serializer.serializedBytes)
    }
}

/// `SecCertificateCopyKey`: the certificate's public key (mirrors Apple's function).
///
/// - Parameter certificate: The certificate.
/// - Returns: An RSA (2048 bits or more) or EC (P-256, P-384, P-521) public key, or `nil` when the key type is
///   not supported (Ed25519, DSA, RSA under 2048 bits, other curves).
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
    NSData(data: Data(certificate.fields.serialNumber))
}

/// `SecCertificateCopyNormalizedIssuerSequence`: the issuer Name, normalized as the keychain stores it in
/// `kSecAttrIssuer`, as a DER SEQUENCE (mirrors Apple's function).
///
/// Usable as a `kSecAttrIssuer` query value: the keychain accepts the full SEQUENCE or its contents.
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: SecCertificate.nameSequence(certificate.normalizedIssuer))
}

/// `SecCertificateCopyNormalizedSubjectSequence`: the subject Name, normalized as the keychain stores it in
/// `kSecAttrSubject`, as a DER SEQUENCE (mirrors Apple's function).
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: SecCertificate.nameSequence(certificate.normalizedSubject))
}
#endif
