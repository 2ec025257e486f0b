#if !canImport(Darwin)
import SwiftASN1

/// The object identifiers a PKCS#12 import recognises.
enum PKCS12OID {
    // PKCS#7 content types (1.2.840.113549.1.7.x).
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 1]
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 2]
    static let envelopedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 3]
    static let encryptedData: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 7, 6]

    // PKCS#12 bag types (1.2.840.113549.1.12.10.1.x).
    static let keyBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 1]
    static let pkcs8ShroudedKeyBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 2]
    static let certBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 3]
    static let crlBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 4]
    static let secretBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 5]
    static let safeContentsBag: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 12, 10, 1, 6]

    /// The legacy PKCS#12 password-based encryption arc (1.2.840.113549.1.12.1), e.g.
    /// pbeWithSHAAnd3-KeyTripleDES-CBC and pbeWithSHAAnd40BitRC2-CBC.
    static let pkcs12PBEArc: [UInt] = [1, 2, 840, 113_549, 1, 12, 1]

    // Certificate types and bag attributes (PKCS#9).
    static let x509Certificate: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 22, 1]
    static let friendlyName: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 20]
    static let localKeyID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 21]

    // PKCS#5.
    static let pbkdf2: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 12]
    static let pbes2: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 13]
    static let pbmac1: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 5, 14]

    // HMAC PRFs (1.2.840.113549.2.x).
    static let hmacWithSHA1: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 2, 7]
    static let hmacWithSHA224: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 2, 8]
    static let hmacWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 2, 9]
    static let hmacWithSHA384: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 2, 10]
    static let hmacWithSHA512: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 2, 11]

    // Digests.
    static let sha1: ASN1ObjectIdentifier = [1, 3, 14, 3, 2, 26]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let sha384: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 2]
    static let sha512: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 3]

    // AES-CBC (2.16.840.1.101.3.4.1.x).
    static let aes128CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 2]
    static let aes192CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 22]
    static let aes256CBC: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 1, 42]

    // Key algorithms and named curves.
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let prime256v1: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 7]
    static let secp384r1: ASN1ObjectIdentifier = [1, 3, 132, 0, 34]
    static let secp521r1: ASN1ObjectIdentifier = [1, 3, 132, 0, 35]
}
#endif
