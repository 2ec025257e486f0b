#if !canImport(Darwin)
import Crypto
import Foundation
import LatchkeyCrypto

// The raw values are Apple's, from `SecKeyAdaptors.m` (apple-oss-distributions/Security). SHA-224 runs on
// `LatchkeyCrypto.SHA224` (swift-crypto has none).

/// `kSecKeyAlgorithmRSAEncryptionRaw`: textbook RSA (m^e mod n) with no padding; input at most the block size
/// and numerically below the modulus, output the block size.
public let kSecKeyAlgorithmRSAEncryptionRaw: SecKeyAlgorithm = "algid:encrypt:RSA:raw"
/// `kSecKeyAlgorithmRSAEncryptionPKCS1`: RSAES-PKCS1-v1_5 (RFC 8017 §7.2); at most block size − 11 bytes.
public let kSecKeyAlgorithmRSAEncryptionPKCS1: SecKeyAlgorithm = "algid:encrypt:RSA:PKCS1"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA1`: RSAES-OAEP (RFC 8017 §7.1), SHA-1 and MGF1-SHA-1, empty label.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1: SecKeyAlgorithm = "algid:encrypt:RSA:OAEP:SHA1"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA256`: RSAES-OAEP with SHA-256 and MGF1-SHA-256, empty label.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA256"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA384`: RSAES-OAEP with SHA-384 and MGF1-SHA-384, empty label.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA384"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA512`: RSAES-OAEP with SHA-512 and MGF1-SHA-512, empty label.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA512"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM`: a random AES session key wrapped with RSA-OAEP-SHA1, then
/// AES-GCM over the data (see `SecKeyCreateEncryptedData` for the layout).
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA1:AESGCM"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM`: AES session key wrapped with RSA-OAEP-SHA256, then AES-GCM.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA256:AESGCM"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM`: AES session key wrapped with RSA-OAEP-SHA384, then AES-GCM.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA384:AESGCM"
/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM`: AES session key wrapped with RSA-OAEP-SHA512, then AES-GCM.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM: SecKeyAlgorithm =
    "algid:encrypt:RSA:OAEP:SHA512:AESGCM"

/// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM`: legacy ECIES, X9.63 KDF with SHA-1, all-zero IV.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM`: legacy ECIES, X9.63 KDF with SHA-256, all-zero IV.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM`: legacy ECIES, X9.63 KDF with SHA-384, all-zero IV.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM`: legacy ECIES, X9.63 KDF with SHA-512, all-zero IV.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM`: as the Standard variant (cofactor 1 on NIST curves).
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM`: as the Standard variant (cofactor 1 on NIST curves).
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM`: as the Standard variant (cofactor 1 on NIST curves).
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM`: as the Standard variant (cofactor 1 on NIST curves).
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM`: ECIES with the AES-GCM IV taken from the
/// last 16 bytes of the X9.63 (SHA-256) KDF output; Apple's recommended ECIES.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM`: ECIES, KDF-derived IV, SHA-384 KDF.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM`: ECIES, KDF-derived IV, SHA-512 KDF.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM`: ECIES, KDF-derived IV, SHA-256 KDF
/// (identical to the Standard variant on NIST curves, whose cofactor is 1).
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM`: ECIES, KDF-derived IV, SHA-384 KDF.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM`: ECIES, KDF-derived IV, SHA-512 KDF.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV"

/// `kSecKeyAlgorithmECDHKeyExchangeStandard`: ECDH; the result is the shared point's x-coordinate.
public let kSecKeyAlgorithmECDHKeyExchangeStandard: SecKeyAlgorithm = "algid:keyexchange:ECDH"
/// `kSecKeyAlgorithmECDHKeyExchangeCofactor`: cofactor ECDH; identical to the Standard variant on NIST curves.
public let kSecKeyAlgorithmECDHKeyExchangeCofactor: SecKeyAlgorithm = "algid:keyexchange:ECDHC"
/// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1`: ECDH, then the ANSI X9.63 KDF with SHA-1.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1: SecKeyAlgorithm =
    "algid:keyexchange:ECDH:KDFX963:SHA1"
/// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256`: ECDH, then the ANSI X9.63 KDF with SHA-256.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256: SecKeyAlgorithm =
    "algid:keyexchange:ECDH:KDFX963:SHA256"
/// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384`: ECDH, then the ANSI X9.63 KDF with SHA-384.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384: SecKeyAlgorithm =
    "algid:keyexchange:ECDH:KDFX963:SHA384"
/// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512`: ECDH, then the ANSI X9.63 KDF with SHA-512.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512: SecKeyAlgorithm =
    "algid:keyexchange:ECDH:KDFX963:SHA512"
/// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1`: cofactor ECDH, then the X9.63 KDF with SHA-1.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1: SecKeyAlgorithm =
    "algid:keyexchange:ECDHC:KDFX963:SHA1"
/// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256`: cofactor ECDH, then the X9.63 KDF with SHA-256.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256: SecKeyAlgorithm =
    "algid:keyexchange:ECDHC:KDFX963:SHA256"
/// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384`: cofactor ECDH, then the X9.63 KDF with SHA-384.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384: SecKeyAlgorithm =
    "algid:keyexchange:ECDHC:KDFX963:SHA384"
/// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512`: cofactor ECDH, then the X9.63 KDF with SHA-512.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512: SecKeyAlgorithm =
    "algid:keyexchange:ECDHC:KDFX963:SHA512"

/// `kSecKeyAlgorithmRSAEncryptionOAEPSHA224`: RSAES-OAEP with SHA-224 and MGF1-SHA-224, empty label.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224: SecKeyAlgorithm = "algid:encrypt:RSA:OAEP:SHA224"
/// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM`: legacy ECIES, X9.63 KDF with SHA-224, all-zero IV.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM`: as the Standard variant (cofactor 1 on NIST curves).
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM"
/// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM`: ECIES, KDF-derived IV, SHA-224 KDF.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM`: ECIES, KDF-derived IV, SHA-224 KDF.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM: SecKeyAlgorithm =
    "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV"
/// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224`: ECDH, then the ANSI X9.63 KDF with SHA-224.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224: SecKeyAlgorithm =
    "algid:keyexchange:ECDH:KDFX963:SHA224"
/// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224`: cofactor ECDH, then the X9.63 KDF with SHA-224.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224: SecKeyAlgorithm =
    "algid:keyexchange:ECDHC:KDFX963:SHA224"

/// `kSecKeyKeyExchangeParameterRequestedSize`: the output length in bytes (a `CFNumber`) for the KDF algorithms.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// `kSecKeyKeyExchangeParameterSharedInfo`: optional `CFData` SharedInfo for the X9.63 KDF.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"

/// The encryption algorithms this module implements, parsed from their Apple names.
enum EncryptionAlgorithm: Sendable {
    /// `algid:encrypt:RSA:raw`.
    case rsaRaw
    /// `algid:encrypt:RSA:PKCS1`.
    case rsaPKCS1
    /// `algid:encrypt:RSA:OAEP:<hash>`.
    case rsaOAEP(HashAlgorithm)
    /// `algid:encrypt:RSA:OAEP:<hash>:AESGCM`.
    case rsaOAEPAESGCM(HashAlgorithm)
    /// `algid:encrypt:ECIES:ECDH[C]:KDFX963:<hash>:AESGCM[-KDFIV]`.
    case ecies(ECIES)

    init?(_ name: SecKeyAlgorithm) {
        let parts = (name.rawValue as String).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "algid", parts[1] == "encrypt" else { return nil }
        switch (parts[2], parts.count) {
        case ("RSA", 4) where parts[3] == "raw": self = .rsaRaw
        case ("RSA", 4) where parts[3] == "PKCS1": self = .rsaPKCS1
        case ("RSA", 5) where parts[3] == "OAEP":
            guard let hash = HashAlgorithm(appleName: parts[4]) else { return nil }
            self = .rsaOAEP(hash)
        case ("RSA", 6) where parts[3] == "OAEP" && parts[5] == "AESGCM":
            guard let hash = HashAlgorithm(appleName: parts[4]) else { return nil }
            self = .rsaOAEPAESGCM(hash)
        case ("ECIES", 7) where (parts[3] == "ECDH" || parts[3] == "ECDHC") && parts[4] == "KDFX963":
            guard let hash = HashAlgorithm(appleName: parts[5]) else { return nil }
            switch parts[6] {
            case "AESGCM": self = .ecies(ECIES(hash: hash, variableIV: false))
            // Apple defines no SHA-1 variable-IV ECIES.
            case "AESGCM-KDFIV" where hash != .sha1: self = .ecies(ECIES(hash: hash, variableIV: true))
            default: return nil
            }
        default: return nil
        }
    }

    /// Whether `key`'s type can run this algorithm (RSA schemes on RSA keys, ECIES on EC keys).
    func fits(_ key: SecKey) -> Bool {
        switch self {
        case .rsaRaw, .rsaPKCS1, .rsaOAEP, .rsaOAEPAESGCM: key.isRSA
        case .ecies: !key.isRSA
        }
    }
}

/// The key-exchange algorithms this module implements, parsed from their Apple names.
struct KeyExchangeAlgorithm: Sendable {
    /// The X9.63 KDF hash, or `nil` for the raw shared secret.
    let kdf: HashAlgorithm?

    init?(_ name: SecKeyAlgorithm) {
        let parts = (name.rawValue as String).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 || parts.count == 5, parts[0] == "algid", parts[1] == "keyexchange",
            parts[2] == "ECDH" || parts[2] == "ECDHC"
        else { return nil }
        if parts.count == 3 {
            kdf = nil
        } else {
            guard parts[3] == "KDFX963", let hash = HashAlgorithm(appleName: parts[4]) else { return nil }
            kdf = hash
        }
    }
}
#endif
