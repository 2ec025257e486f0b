#if !canImport(Darwin)
import SwiftASN1
import X509

/// The raw fields Apple's keychain derives from a certificate (docs/apple-semantics.md §2.1), where the exact
/// bytes matter: taken from swift-certificates' parsed `Certificate`, and for the names and the public key bits
/// from its `tbsCertificateBytes` read again with swift-asn1 (swift-certificates re-encodes both).
struct CertificateFields: Sendable {
    /// The X.509 `version` field (0 for v1, 1 for v2, 2 for v3).
    let version: Int
    /// The content octets of the serial number INTEGER (a leading zero kept when the high bit is set).
    let serialNumber: [UInt8]
    /// The issuer Name, as encoded in the certificate.
    let issuer: CertificateName
    /// The subject Name, as encoded in the certificate.
    let subject: CertificateName
    /// The bits of `subjectPublicKey` (without the BIT STRING's unused-bits octet).
    let subjectPublicKey: [UInt8]
    /// The SubjectKeyIdentifier extension's key identifier, if present and well formed.
    let subjectKeyIdentifier: [UInt8]?

    /// Reads the fields of a parsed certificate.
    ///
    /// - Throws: `ASN1Error` when the TBSCertificate's layout is not the one swift-certificates accepted (which
    ///   does not happen for a certificate it parsed).
    init(_ certificate: Certificate) throws {
        switch certificate.version {
        case .v1: version = 0
        case .v3: version = 2
        default: version = 1
        }
        // TBSCertificate ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1, serialNumber, signature, issuer,
        //   validity, subject, subjectPublicKeyInfo, ... }
        let tbs = try DER.parse(certificate.tbsCertificateBytes)
        guard case .constructed(let nodes) = tbs.content else {
            throw ASN1Error.invalidASN1Object(reason: "TBSCertificate is not a SEQUENCE.")
        }
        var parts = Array(nodes)
        if parts.first?.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
            parts.removeFirst()
        }
        guard parts.count >= 6, case .constructed(let keyInfo) = parts[5].content else {
            throw ASN1Error.invalidASN1Object(reason: "TBSCertificate lacks its subjectPublicKeyInfo.")
        }
        let keyParts = Array(keyInfo)
        guard keyParts.count == 2 else {
            throw ASN1Error.invalidASN1Object(reason: "SubjectPublicKeyInfo has two fields.")
        }
        // swift-certificates keeps the serial as an unsigned magnitude; Apple gives the INTEGER's content octets.
        guard case .primitive(let serial) = parts[0].content else {
            throw ASN1Error.invalidASN1Object(reason: "The serial number is not a primitive INTEGER.")
        }
        serialNumber = Array(serial)
        issuer = CertificateName(parts[2])
        subject = CertificateName(parts[4])
        subjectPublicKey = Array(try ASN1BitString(derEncoded: keyParts[1]).bytes)
        subjectKeyIdentifier = (try? certificate.extensions.subjectKeyIdentifier)?.keyIdentifier.map { $0 }
    }
}
#endif
