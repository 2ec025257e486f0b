#if !canImport(Darwin)
import Foundation
import LatchkeyCrypto

// The signature algorithms' raw values are Apple's, from `SecKeyAdaptors.m` (apple-oss-distributions/Security).
// MD5 variants (`…PKCS1v15MD5`) are left out.

// ECDSA. Signatures are DER (X9.62 `ECDSA-Sig-Value`) except RFC 4754's raw r ‖ s.

/// `kSecKeyAlgorithmECDSASignatureRFC4754`: ECDSA over a caller-computed digest of any length; the signature
/// is r ‖ s, each left-padded to the key's block size (RFC 4754), not DER.
public let kSecKeyAlgorithmECDSASignatureRFC4754: SecKeyAlgorithm = "algid:sign:ECDSA:RFC4754"
/// `kSecKeyAlgorithmECDSASignatureDigestX962`: ECDSA over a caller-computed digest of any length (truncated to the
/// curve order's bit length as X9.62 specifies), DER signature.
public let kSecKeyAlgorithmECDSASignatureDigestX962: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA1`: ECDSA over a caller-computed 20-byte SHA-1 digest, DER signature.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA1: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA1"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA224`: ECDSA over a caller-computed 28-byte SHA-224 digest, DER
/// signature.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA224: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA224"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA256`: ECDSA over a caller-computed 32-byte SHA-256 digest, DER
/// signature.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA256"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA384`: ECDSA over a caller-computed 48-byte SHA-384 digest, DER
/// signature.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA384"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA512`: ECDSA over a caller-computed 64-byte SHA-512 digest, DER
/// signature.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA512"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA1`: ECDSA over SHA-1 of the message, DER signature.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA1: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA1"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA224`: ECDSA over SHA-224 of the message, DER signature.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA224: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA224"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA256`: ECDSA over SHA-256 of the message, DER signature.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA256"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA384`: ECDSA over SHA-384 of the message, DER signature.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA384"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA512`: ECDSA over SHA-512 of the message, DER signature.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA512"

// RSA. Signatures are one block of `SecKeyGetBlockSize(key)` bytes.

/// `kSecKeyAlgorithmRSASignatureRaw`: the raw private-key operation (RSASP1, m^d mod n) on the caller's bytes, read
/// as a big-endian number below the modulus; verification compares m with s^e mod n. No padding: the caller
/// must pad.
public let kSecKeyAlgorithmRSASignatureRaw: SecKeyAlgorithm = "algid:sign:RSA:raw"
/// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw`: EMSA-PKCS1-v1_5 padding (`00 01 FF…FF 00`) around the caller's
/// bytes as they are, with no DigestInfo; at most block size − 11 bytes.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PKCS1v15"
/// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1`: RSASSA-PKCS1-v1_5 over a caller-computed 20-byte
/// SHA-1 digest (wrapped in the SHA-1 DigestInfo).
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PKCS1v15:SHA1"
/// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224`: RSASSA-PKCS1-v1_5 over a caller-computed 28-byte
/// SHA-224 digest (wrapped in the SHA-224 DigestInfo).
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PKCS1v15:SHA224"
/// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256`: RSASSA-PKCS1-v1_5 over a caller-computed 32-byte
/// SHA-256 digest (wrapped in the SHA-256 DigestInfo).
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PKCS1v15:SHA256"
/// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384`: RSASSA-PKCS1-v1_5 over a caller-computed 48-byte
/// SHA-384 digest (wrapped in the SHA-384 DigestInfo).
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PKCS1v15:SHA384"
/// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512`: RSASSA-PKCS1-v1_5 over a caller-computed 64-byte
/// SHA-512 digest (wrapped in the SHA-512 DigestInfo).
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PKCS1v15:SHA512"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1`: RSASSA-PKCS1-v1_5 over SHA-1 of the message.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA1"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224`: RSASSA-PKCS1-v1_5 over SHA-224 of the message.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA224"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256`: RSASSA-PKCS1-v1_5 over SHA-256 of the message.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA256"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384`: RSASSA-PKCS1-v1_5 over SHA-384 of the message.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA384"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512`: RSASSA-PKCS1-v1_5 over SHA-512 of the message.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA512"
/// `kSecKeyAlgorithmRSASignatureDigestPSSSHA1`: RSASSA-PSS over a caller-computed 20-byte SHA-1
/// digest; MGF1-SHA-1, 20-byte random salt.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA1: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PSS:SHA1:SHA1:20"
/// `kSecKeyAlgorithmRSASignatureDigestPSSSHA224`: RSASSA-PSS over a caller-computed 28-byte SHA-224
/// digest; MGF1-SHA-224, 28-byte random salt. Apple's name ends in 24 although the salt is 28 bytes.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA224: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PSS:SHA224:SHA224:24"
/// `kSecKeyAlgorithmRSASignatureDigestPSSSHA256`: RSASSA-PSS over a caller-computed 32-byte SHA-256
/// digest; MGF1-SHA-256, 32-byte random salt.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA256: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PSS:SHA256:SHA256:32"
/// `kSecKeyAlgorithmRSASignatureDigestPSSSHA384`: RSASSA-PSS over a caller-computed 48-byte SHA-384
/// digest; MGF1-SHA-384, 48-byte random salt.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA384: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PSS:SHA384:SHA384:48"
/// `kSecKeyAlgorithmRSASignatureDigestPSSSHA512`: RSASSA-PSS over a caller-computed 64-byte SHA-512
/// digest; MGF1-SHA-512, 64-byte random salt.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA512: SecKeyAlgorithm =
    "algid:sign:RSA:digest-PSS:SHA512:SHA512:64"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA1`: RSASSA-PSS over SHA-1 of the message; MGF1-SHA-1,
/// 20-byte random salt.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA1: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA1:SHA1:20"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA224`: RSASSA-PSS over SHA-224 of the message; MGF1-SHA-224,
/// 28-byte random salt. Apple's name ends in 24 although the salt is 28 bytes.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA224: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA224:SHA224:24"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA256`: RSASSA-PSS over SHA-256 of the message; MGF1-SHA-256,
/// 32-byte random salt.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA256:SHA256:32"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA384`: RSASSA-PSS over SHA-384 of the message; MGF1-SHA-384,
/// 48-byte random salt.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA384:SHA384:48"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA512`: RSASSA-PSS over SHA-512 of the message; MGF1-SHA-512,
/// 64-byte random salt.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA512:SHA512:64"

/// `SecKeyOperationType`: what an algorithm is asked to do (mirrors Apple's enum).
public enum SecKeyOperationType: Int, Sendable {
    /// `kSecKeyOperationTypeSign`: `SecKeyCreateSignature`.
    case sign = 0
    /// `kSecKeyOperationTypeVerify`: `SecKeyVerifySignature`.
    case verify = 1
    /// `kSecKeyOperationTypeEncrypt`: `SecKeyCreateEncryptedData`.
    case encrypt = 2
    /// `kSecKeyOperationTypeDecrypt`: `SecKeyCreateDecryptedData`.
    case decrypt = 3
    /// `kSecKeyOperationTypeKeyExchange`: `SecKeyCopyKeyExchangeResult`.
    case keyExchange = 4
}

/// The signature algorithms this module implements, parsed from their Apple names.
struct SignatureAlgorithm: Sendable, Equatable {
    /// A hash named in a signature algorithm.
    typealias Hash = HashAlgorithm

    /// How the signature is made.
    enum Scheme: Sendable, Equatable {
        /// ECDSA with a DER (X9.62) signature.
        case ecdsaX962
        /// ECDSA with a raw `r ‖ s` (RFC 4754) signature.
        case ecdsaRFC4754
        /// RSASSA-PKCS1-v1_5 (RFC 8017 §8.2).
        case rsaPKCS1v15
        /// RSASSA-PSS (RFC 8017 §8.1), MGF1 with the same hash, salt as long as the digest.
        case rsaPSS
        /// The raw RSA private-key operation.
        case rsaRaw
    }

    /// What the caller passes.
    enum Input: Sendable, Equatable {
        /// The message; the algorithm hashes it.
        case message(Hash)
        /// A digest computed with this hash: exactly its length.
        case digest(Hash)
        /// Bytes signed as they are: a digest of any length (ECDSA), the padded payload without DigestInfo
        /// (PKCS#1 v1.5) or the block (raw RSA).
        case raw
    }

    let scheme: Scheme
    let input: Input

    init?(_ name: SecKeyAlgorithm) {
        let parts = (name.rawValue as String).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "algid", parts[1] == "sign" else { return nil }
        let hash = parts.count >= 5 ? Hash(appleName: parts[4]) : nil
        switch (parts[2], parts[3], parts.count) {
        case ("ECDSA", "RFC4754", 4): (scheme, input) = (.ecdsaRFC4754, .raw)
        case ("ECDSA", "digest-X962", 4): (scheme, input) = (.ecdsaX962, .raw)
        case ("ECDSA", "digest-X962", 5):
            guard let hash else { return nil }
            (scheme, input) = (.ecdsaX962, .digest(hash))
        case ("ECDSA", "message-X962", 5):
            guard let hash else { return nil }
            (scheme, input) = (.ecdsaX962, .message(hash))
        case ("RSA", "raw", 4): (scheme, input) = (.rsaRaw, .raw)
        case ("RSA", "digest-PKCS1v15", 4): (scheme, input) = (.rsaPKCS1v15, .raw)
        case ("RSA", "digest-PKCS1v15", 5):
            guard let hash else { return nil }
            (scheme, input) = (.rsaPKCS1v15, .digest(hash))
        case ("RSA", "message-PKCS1v15", 5):
            guard let hash else { return nil }
            (scheme, input) = (.rsaPKCS1v15, .message(hash))
        case ("RSA", "digest-PSS", 7), ("RSA", "message-PSS", 7):
            // `…-PSS:<hash>:<MGF1 hash>:<salt>`: Apple defines only the same hash twice and its own salt field.
            guard let hash, parts[5] == parts[4], parts[6] == hash.pssNameSuffix else { return nil }
            (scheme, input) = (.rsaPSS, parts[3] == "digest-PSS" ? .digest(hash) : .message(hash))
        default: return nil
        }
    }
}
#endif
