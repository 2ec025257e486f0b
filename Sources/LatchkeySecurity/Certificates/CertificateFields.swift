#if !canImport(Darwin)
import SwiftASN1
import X509

/// The raw fields Apple's keychain derives from a certificate (docs/apple-semantics.md §2.1), where the exact
/// bytes matter, read with swift-asn1's `DER.parse` and swift-certificates' public ASN.1 types
/// (`DistinguishedName`, `Certificate.Extension`, `SubjectKeyIdentifier`).
///
/// swift-certificates' `Certificate` re-encodes what it parses (the serial without its leading zero, the
/// attributes of a multi-valued RDN sorted, EC points uncompressed) and refuses key and signature algorithms it
/// cannot use, so the fields come from the certificate's own DER: every certificate `SecCertificate` accepts
/// has the same fields, whether swift-certificates could decode its key or not.
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

    /// Reads a DER `Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }` (RFC 5280
    /// §4.1) and the fields of its TBSCertificate.
    ///
    /// - Throws: `ASN1Error` (or a swift-certificates error for a malformed Name or extension) when `bytes` are
    ///   not one DER certificate with that structure.
    init(derEncoded bytes: [UInt8]) throws {
        let parts = try Self.children(DER.parse(bytes), .sequence)
        guard parts.count == 3 else { throw Self.invalid("A certificate has three fields.") }
        try Self.checkAlgorithm(parts[1])
        _ = try ASN1BitString(derEncoded: parts[2])

        // TBSCertificate ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1, serialNumber, signature, issuer,
        //   validity, subject, subjectPublicKeyInfo, issuerUniqueID [1], subjectUniqueID [2], extensions [3] }
        var fields = try Self.children(parts[0], .sequence)
        var version = 0
        if fields.first?.identifier == Self.context(0) {
            let inner = try Self.children(fields.removeFirst(), Self.context(0))
            guard inner.count == 1 else { throw Self.invalid("The version holds one INTEGER.") }
            version = try Int(derEncoded: inner[0])
            guard (0...2).contains(version) else { throw Self.invalid("Unknown X.509 version.") }
        }
        guard fields.count >= 6 else { throw Self.invalid("TBSCertificate lacks fields.") }
        guard fields[0].identifier == .integer, case .primitive(let serial) = fields[0].content, !serial.isEmpty
        else { throw Self.invalid("The serial number is not an INTEGER.") }
        try Self.checkAlgorithm(fields[1])
        _ = try DistinguishedName(derEncoded: fields[2])
        let validity = try Self.children(fields[3], .sequence)
        guard validity.count == 2 else { throw Self.invalid("Validity holds two times.") }
        for time in validity {
            if time.identifier == .utcTime {
                _ = try UTCTime(derEncoded: time)
            } else {
                _ = try GeneralizedTime(derEncoded: time)
            }
        }
        _ = try DistinguishedName(derEncoded: fields[4])
        let keyInfo = try Self.children(fields[5], .sequence)
        guard keyInfo.count == 2 else { throw Self.invalid("SubjectPublicKeyInfo has two fields.") }
        try Self.checkAlgorithm(keyInfo[0])
        let keyBits = try ASN1BitString(derEncoded: keyInfo[1])

        var subjectKeyIdentifier: [UInt8]?
        var next: UInt = 1
        for optional in fields.dropFirst(6) {
            guard optional.identifier.tagClass == .contextSpecific, optional.identifier.tagNumber >= next,
                optional.identifier.tagNumber <= 3
            else { throw Self.invalid("Unexpected field after subjectPublicKeyInfo.") }
            next = optional.identifier.tagNumber + 1
            guard optional.identifier.tagNumber == 3 else { continue }  // the unique identifiers
            let wrapper = try Self.children(optional, Self.context(3))
            guard wrapper.count == 1 else { throw Self.invalid("Extensions are one SEQUENCE.") }
            for node in try Self.children(wrapper[0], .sequence) {
                let candidate = try Certificate.Extension(derEncoded: node)
                if candidate.oid == .X509ExtensionID.subjectKeyIdentifier {
                    subjectKeyIdentifier = (try? SubjectKeyIdentifier(candidate)).map { Array($0.keyIdentifier) }
                }
            }
        }
        self.version = version
        serialNumber = Array(serial)
        issuer = CertificateName(fields[2])
        subject = CertificateName(fields[4])
        subjectPublicKey = Array(keyBits.bytes)
        self.subjectKeyIdentifier = subjectKeyIdentifier
    }

    /// The children of a constructed `node` with `identifier`.
    private static func children(_ node: ASN1Node, _ identifier: ASN1Identifier) throws -> [ASN1Node] {
        guard node.identifier == identifier, case .constructed(let nodes) = node.content else {
            throw invalid("Expected a constructed \(identifier).")
        }
        return Array(nodes)
    }

    /// Checks an `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }`.
    private static func checkAlgorithm(_ node: ASN1Node) throws {
        let parts = try children(node, .sequence)
        guard let first = parts.first, parts.count <= 2 else { throw invalid("Bad AlgorithmIdentifier.") }
        _ = try ASN1ObjectIdentifier(derEncoded: first)
    }

    /// The context-specific tag `[number]`.
    private static func context(_ number: UInt) -> ASN1Identifier {
        ASN1Identifier(tagWithNumber: number, tagClass: .contextSpecific)
    }

    /// An error naming what is wrong with the structure.
    private static func invalid(_ reason: String) -> ASN1Error {
        ASN1Error.invalidASN1Object(reason: reason)
    }
}
#endif
