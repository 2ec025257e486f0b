#if !canImport(Darwin)
/// The object identifiers (content octets) a PKCS#12 import recognises.
enum PKCS12OID {
    /// The `1.2.840.113549` (RSA Data Security) prefix.
    private static let rsadsi: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D]

    // PKCS#7 content types (1.2.840.113549.1.7.x).
    static let data = rsadsi + [0x01, 0x07, 0x01]
    static let signedData = rsadsi + [0x01, 0x07, 0x02]
    static let envelopedData = rsadsi + [0x01, 0x07, 0x03]
    static let encryptedData = rsadsi + [0x01, 0x07, 0x06]

    // PKCS#12 bag types (1.2.840.113549.1.12.10.1.x).
    private static let bagPrefix = rsadsi + [0x01, 0x0C, 0x0A, 0x01]
    static let keyBag = bagPrefix + [0x01]
    static let pkcs8ShroudedKeyBag = bagPrefix + [0x02]
    static let certBag = bagPrefix + [0x03]
    static let crlBag = bagPrefix + [0x04]
    static let secretBag = bagPrefix + [0x05]
    static let safeContentsBag = bagPrefix + [0x06]

    /// The legacy PKCS#12 password-based encryption arc (1.2.840.113549.1.12.1), e.g.
    /// pbeWithSHAAnd3-KeyTripleDES-CBC and pbeWithSHAAnd40BitRC2-CBC.
    static let pkcs12PBEPrefix = rsadsi + [0x01, 0x0C, 0x01]

    // Certificate types and bag attributes (PKCS#9).
    static let x509Certificate = rsadsi + [0x01, 0x09, 0x16, 0x01]
    static let friendlyName = rsadsi + [0x01, 0x09, 0x14]
    static let localKeyID = rsadsi + [0x01, 0x09, 0x15]

    // PKCS#5.
    static let pbkdf2 = rsadsi + [0x01, 0x05, 0x0C]
    static let pbes2 = rsadsi + [0x01, 0x05, 0x0D]
    static let pbmac1 = rsadsi + [0x01, 0x05, 0x0E]

    // HMAC PRFs (1.2.840.113549.2.x).
    static let hmacWithSHA1 = rsadsi + [0x02, 0x07]
    static let hmacWithSHA224 = rsadsi + [0x02, 0x08]
    static let hmacWithSHA256 = rsadsi + [0x02, 0x09]
    static let hmacWithSHA384 = rsadsi + [0x02, 0x0A]
    static let hmacWithSHA512 = rsadsi + [0x02, 0x0B]

    // Digests.
    static let sha1: [UInt8] = [0x2B, 0x0E, 0x03, 0x02, 0x1A]
    private static let nistHash: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02]
    static let sha256 = nistHash + [0x01]
    static let sha384 = nistHash + [0x02]
    static let sha512 = nistHash + [0x03]

    // AES-CBC (2.16.840.1.101.3.4.1.x).
    private static let nistAES: [UInt8] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01]
    static let aes128CBC = nistAES + [0x02]
    static let aes192CBC = nistAES + [0x16]
    static let aes256CBC = nistAES + [0x2A]

    // Key algorithms and named curves.
    static let rsaEncryption = rsadsi + [0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let prime256v1: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    static let secp384r1: [UInt8] = [0x2B, 0x81, 0x04, 0x00, 0x22]
    static let secp521r1: [UInt8] = [0x2B, 0x81, 0x04, 0x00, 0x23]
}
#endif
