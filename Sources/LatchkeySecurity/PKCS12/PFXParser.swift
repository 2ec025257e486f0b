#if !canImport(Darwin)
import Foundation
import LatchkeyCrypto
import SwiftASN1

/// Reads a PFX (RFC 7292): checks the version and the password MAC, decrypts the authenticated safe and
/// collects its key and certificate bags, in file order.
struct PFXParser {
    /// The passphrase (`kSecImportExportPassphrase`; empty when absent, as Apple).
    let passphrase: String

    /// The deepest nesting of `safeContentsBag`s followed.
    static let maximumBagDepth = 8

    /// Whether the MAC verified (changes how a later decryption failure is reported).
    private var macVerified = false
    private var bags: [SafeBag] = []

    init(passphrase: String) {
        self.passphrase = passphrase
    }

    /// The key and certificate bags of `pfx`.
    ///
    /// - Throws: `PKCS12Error`.
    static func bags(of pfx: [UInt8], passphrase: String) throws -> [SafeBag] {
        var parser = PFXParser(passphrase: passphrase)
        try parser.parse(pfx)
        return parser.bags
    }

    private mutating func parse(_ pfx: [UInt8]) throws {
        guard !pfx.isEmpty else { throw PKCS12Error.malformed("Empty input.") }
        let parts = try PKCS12ASN1.parse(pfx).sequence()
        guard parts.count == 2 || parts.count == 3 else { throw PKCS12Error.malformed("Bad PFX.") }
        guard try parts[0].smallInteger() == 3 else { throw PKCS12Error.unsupported("Only PFX version 3.") }
        let authSafeInfo = try parts[1].sequence()
        guard authSafeInfo.count == 2 else { throw PKCS12Error.malformed("Bad authSafe ContentInfo.") }
        let contentType = try authSafeInfo[0].objectIdentifier()
        if contentType == PKCS12OID.signedData {
            throw PKCS12Error.unsupported("Public-key integrity mode (signedData) is not supported.")
        }
        guard contentType == PKCS12OID.data else { throw PKCS12Error.malformed("authSafe is not data.") }
        let authSafe = try authSafeInfo[1].explicit(0).octets()
        if parts.count == 3 {
            try MACData(parts[2]).verify(authSafe, passphrase: passphrase)
            macVerified = true
        }
        for info in try PKCS12ASN1.parse(authSafe).sequence() {
            try readContentInfo(info)
        }
    }

    /// One ContentInfo of the AuthenticatedSafe: plain `data` or password-`encryptedData`.
    private mutating func readContentInfo(_ node: ASN1Node) throws {
        let parts = try node.sequence()
        guard parts.count == 2 else { throw PKCS12Error.malformed("Bad ContentInfo.") }
        switch try parts[0].objectIdentifier() {
        case PKCS12OID.data:
            try readSafeContents(PKCS12ASN1.parse(try parts[1].explicit(0).octets()), depth: 0)
        case PKCS12OID.encryptedData:
            // EncryptedData ::= SEQUENCE { version, EncryptedContentInfo SEQUENCE { contentType,
            //   contentEncryptionAlgorithm, encryptedContent [0] IMPLICIT OCTET STRING } }
            let encrypted = try parts[1].explicit(0).sequence()
            guard encrypted.count >= 2 else { throw PKCS12Error.malformed("Bad EncryptedData.") }
            let info = try encrypted[1].sequence()
            guard info.count == 3 else { throw PKCS12Error.malformed("Bad EncryptedContentInfo.") }
            let algorithm = try AlgorithmIdentifier(info[1])
            let ciphertext = try info[2].octets(ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific))
            var plaintext = try PBES2Parameters.decrypt(
                ciphertext,
                algorithm: algorithm,
                passphrase: passphrase,
                macVerified: macVerified
            )
            defer { wipe(&plaintext) }
            do {
                try readSafeContents(PKCS12ASN1.parse(plaintext), depth: 0)
            } catch let error as PKCS12Error where error.kind == .malformed && !macVerified {
                throw PKCS12Error.decryptionFailed(macVerified: false)
            }
        case PKCS12OID.envelopedData:
            throw PKCS12Error.unsupported("Public-key privacy mode (envelopedData) is not supported.")
        default:
            throw PKCS12Error.unsupported("Unknown AuthenticatedSafe content type.")
        }
    }

    /// A SafeContents: a SEQUENCE OF SafeBag.
    private mutating func readSafeContents(_ node: ASN1Node, depth: Int) throws {
        guard depth <= Self.maximumBagDepth else { throw PKCS12Error.malformed("safeContentsBags nest too deeply.") }
        for bag in try node.sequence() {
            let parts = try bag.sequence()
            guard parts.count == 2 || parts.count == 3 else { throw PKCS12Error.malformed("Bad SafeBag.") }
            let bagType = try parts[0].objectIdentifier()
            let value = try parts[1].explicit(0)
            let (friendlyName, localKeyID) = try SafeBag.attributes(parts.count == 3 ? parts[2] : nil)
            let content: SafeBag.Value
            switch bagType {
            case PKCS12OID.keyBag:
                var der = Array(value.encodedBytes)
                defer { wipe(&der) }
                content = .privateKey(try PKCS8.privateKey(der))
            case PKCS12OID.pkcs8ShroudedKeyBag:
                // EncryptedPrivateKeyInfo ::= SEQUENCE { encryptionAlgorithm, encryptedData OCTET STRING }
                let encrypted = try value.sequence()
                guard encrypted.count == 2 else { throw PKCS12Error.malformed("Bad EncryptedPrivateKeyInfo.") }
                var der = try PBES2Parameters.decrypt(
                    try encrypted[1].octets(),
                    algorithm: try AlgorithmIdentifier(encrypted[0]),
                    passphrase: passphrase,
                    macVerified: macVerified
                )
                defer { wipe(&der) }
                do {
                    content = .privateKey(try PKCS8.privateKey(der))
                } catch let error as PKCS12Error where error.kind == .malformed && !macVerified {
                    throw PKCS12Error.decryptionFailed(macVerified: false)
                }
            case PKCS12OID.certBag:
                // CertBag ::= SEQUENCE { certId, certValue [0] EXPLICIT }
                let certBag = try value.sequence()
                guard certBag.count == 2 else { throw PKCS12Error.malformed("Bad CertBag.") }
                guard try certBag[0].objectIdentifier() == PKCS12OID.x509Certificate else { continue }
                let der = try certBag[1].explicit(0).octets()
                guard let certificate = SecCertificate(der: Data(der)) else {
                    throw PKCS12Error.malformed("A certificate bag does not hold an X.509 certificate.")
                }
                content = .certificate(certificate)
            case PKCS12OID.safeContentsBag:
                try readSafeContents(value, depth: depth + 1)
                continue
            default:
                continue  // crlBag, secretBag and unknown bag types carry nothing an identity needs.
            }
            bags.append(SafeBag(value: content, friendlyName: friendlyName, localKeyID: localKeyID))
        }
    }
}
#endif
