#if !canImport(Darwin)
import Crypto
import Foundation
import SwiftASN1
import X509

/// `SecCertificate`: an X.509 certificate (mirrors Apple's `SecCertificateRef`).
///
/// Holds the DER bytes, swift-certificates' parsed `Certificate` and the fields the keychain derives from them.
/// Two certificates are equal when their DER is.
///
/// Parsed by swift-certificates (`Certificate(derEncoded:)`, which gives the public key) and read with swift-asn1
/// for the exact bytes the keychain stores (`CertificateFields`); docs/apple-compatibility.md, "X.509".
///
/// Known differences from Apple: dates are not checked here (`SecTrust` does). A certificate whose key or
/// signature algorithm swift-certificates cannot use (RSA keys under 2048 bits, DSA, RSA-PSS, ECDSA with SHA-1
/// or SHA-224, Ed448, other curves) is still accepted when its structure is sound, as by Apple, but
/// `SecCertificateCopyKey` gives `nil` for it (`SecCertificateTests.certificateWithAnAlgorithmX509LacksStillParses`).
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The certificate's DER encoding, exactly as given.
    let der: Data
    /// The certificate as swift-certificates parsed it; `nil` when it refused only the key or signature
    /// algorithm (or key size), not the structure.
    let certificate: Certificate?
    /// The raw fields the keychain derives.
    let fields: CertificateFields

    /// Parses `der`; `nil` unless it is one DER X.509 certificate.
    init?(der: Data) {
        let bytes = [UInt8](der)
        var certificate: Certificate?
        do {
            certificate = try Certificate(derEncoded: bytes)
        } catch is ASN1Error {
            return nil  // malformed: swift-certificates' structural verdict stands
        } catch {
            certificate = nil  // an algorithm, key size or point swift-certificates (swift-crypto) cannot use
        }
        guard let fields = try? CertificateFields(derEncoded: bytes) else { return nil }
        self.der = der
        self.certificate = certificate
        self.fields = fields
    }

    /// The subject's common names (OID 2.5.4.3), in order.
    var commonNames: [String] {
        fields.subject.attributes.filter { $0.type == CertificateName.commonName }.map(\.value)
    }

    /// Apple's subject summary: the last common name, else the first subject attribute value.
    var subjectSummary: String? {
        commonNames.last ?? fields.subject.attributes.first?.value
    }

    /// The normalized subject Name contents (`kSecAttrSubject`).
    var normalizedSubject: [UInt8] { fields.subject.normalizedContents }

    /// The normalized issuer Name contents (`kSecAttrIssuer`).
    var normalizedIssuer: [UInt8] { fields.issuer.normalizedContents }

    /// `kSecAttrPublicKeyHash`: SHA-1 of the subject public key bits.
    var publicKeyHash: Data { Data(Insecure.SHA1.hash(data: fields.subjectPublicKey)) }

    /// The attributes Apple derives when a certificate is added by reference (docs/apple-semantics.md §2.1).
    var attributeDictionary: [String: Any] {
        var attributes: [String: Any] = [
            "ctyp": fields.version + 1,
            "cenc": 3,
            "subj": Data(normalizedSubject),
            "issr": Data(normalizedIssuer),
            "slnr": Data(fields.serialNumber),
            "pkhh": publicKeyHash,
        ]
        if let identifier = fields.subjectKeyIdentifier { attributes["skid"] = Data(identifier) }
        return attributes
    }

    /// Equal when the DER encodings are equal.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool {
        lhs.der == rhs.der
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(der)
    }

    /// A description naming the subject summary.
    public var description: String {
        "<SecCertificate \(subjectSummary ?? "(no subject)")>"
    }
}

/// `SecCertificateCreateWithData`: parses a DER-encoded X.509 certificate (mirrors Apple's function).
///
/// - Parameters:
///   - allocator: Ignored (`kCFAllocatorDefault` or `nil`).
///   - data: The DER bytes (not PEM).
/// - Returns: The certificate, or `nil` when `data` is not a DER certificate swift-certificates accepts.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate(der: Data(referencing: data))
}

/// `SecCertificateCopyData`: the certificate's DER encoding (mirrors Apple's function).
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: certificate.der)
}

/// `SecCertificateCopySubjectSummary`: a human-readable summary of the subject, usually its common name
/// (mirrors Apple's function).
///
/// Known difference from Apple: without a common name, the first subject attribute value is used (Apple
/// prefers an e-mail address, then the organizational unit ...).
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.subjectSummary.map { NSString(string: $0) }
}

/// `SecCertificateCopyCommonName`: the subject's (last) common name (mirrors Apple's function).
///
/// - Parameters:
///   - certificate: The certificate.
///   - commonName: Receives the common name, or `nil` when the subject has none.
/// - Returns: `errSecSuccess`.
public func SecCertificateCopyCommonName(
    _ certificate: SecCertificate,
    _ commonName: UnsafeMutablePointer<CFString?>
) -> OSStatus {
    commonName.pointee = certificate.commonNames.last.map { NSString(string: $0) }
    return errSecSuccess
}
#endif
