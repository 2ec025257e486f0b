#if !canImport(Darwin)
import Crypto
import Foundation

/// `SecCertificate`: an X.509 certificate (mirrors Apple's `SecCertificateRef`).
///
/// Holds the DER bytes and the fields the keychain derives from them. Two certificates are equal when their
/// DER is.
///
/// Known differences from Apple: parsing checks the X.509 structure (TBSCertificate, names, validity, public
/// key, extensions) but not signature algorithms or dates; no trust evaluation (`SecTrust`). (Parsed by the
/// hand-written `DERReader` while this module was named `Security`, which swift-certificates' `X509` would have
/// found through `canImport(Security)`; issue 17 moves it to swift-certificates.)
public final class SecCertificate: Hashable, Sendable, CustomStringConvertible {
    /// The certificate's DER encoding.
    let der: Data
    let fields: DERReader.CertificateFields

    init?(der: Data) {
        guard let fields = DERReader.certificateFields([UInt8](der)) else { return nil }
        self.der = der
        self.fields = fields
    }

    /// The subject's common names (OID 2.5.4.3), in order.
    var commonNames: [String] {
        DERReader.nameAttributes(fields.subjectContent).filter { $0.oid == [0x55, 0x04, 0x03] }.map(\.value)
    }

    /// Apple's subject summary: the last common name, else the first subject attribute value.
    var subjectSummary: String? {
        commonNames.last ?? DERReader.nameAttributes(fields.subjectContent).first?.value
    }

    /// The attributes Apple derives when a certificate is added by reference (docs/apple-semantics.md §2.1).
    var attributeDictionary: [String: Any] {
        var attributes: [String: Any] = [
            "ctyp": fields.version + 1,
            "cenc": 3,
            "subj": Data(DERReader.normalizedNameContents(fields.subjectContent)),
            "issr": Data(DERReader.normalizedNameContents(fields.issuerContent)),
            "slnr": Data(fields.serialContent),
            "pkhh": Data(Insecure.SHA1.hash(data: fields.subjectPublicKey)),
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
/// - Returns: The certificate, or `nil` when `data` is not a DER certificate.
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
