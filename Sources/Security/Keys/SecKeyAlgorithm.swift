#if !canImport(Darwin)
import Foundation

/// `SecKeyAlgorithm`: the name of a key algorithm, a `CFString` as on Apple platforms.
public typealias SecKeyAlgorithm = CFString

/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA256`: ECDSA over SHA-256 of the message, DER (X9.62) signature.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA256"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA384`: ECDSA over SHA-384 of the message, DER signature.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA384"
/// `kSecKeyAlgorithmECDSASignatureMessageX962SHA512`: ECDSA over SHA-512 of the message, DER signature.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512: SecKeyAlgorithm =
    "algid:sign:ECDSA:message-X962:SHA512"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA256`: ECDSA over a caller-computed 32-byte SHA-256 digest.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA256"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA384`: ECDSA over a caller-computed 48-byte SHA-384 digest.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA384"
/// `kSecKeyAlgorithmECDSASignatureDigestX962SHA512`: ECDSA over a caller-computed 64-byte SHA-512 digest.
nonisolated(unsafe) public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512: SecKeyAlgorithm =
    "algid:sign:ECDSA:digest-X962:SHA512"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256`: RSASSA-PKCS1-v1_5 over SHA-256 of the message.
nonisolated(unsafe) public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA256"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384`: RSASSA-PKCS1-v1_5 over SHA-384 of the message.
nonisolated(unsafe) public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA384"
/// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512`: RSASSA-PKCS1-v1_5 over SHA-512 of the message.
nonisolated(unsafe) public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512: SecKeyAlgorithm =
    "algid:sign:RSA:message-PKCS1v15:SHA512"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA256`: RSASSA-PSS (salt = digest length) over SHA-256 of the message.
nonisolated(unsafe) public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA256"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA384`: RSASSA-PSS (salt = digest length) over SHA-384 of the message.
nonisolated(unsafe) public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA384"
/// `kSecKeyAlgorithmRSASignatureMessagePSSSHA512`: RSASSA-PSS (salt = digest length) over SHA-512 of the message.
nonisolated(unsafe) public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512: SecKeyAlgorithm =
    "algid:sign:RSA:message-PSS:SHA512"

/// `SecKeyOperationType`: what an algorithm is asked to do (mirrors Apple's enum).
public enum SecKeyOperationType: Int, Sendable {
    /// `kSecKeyOperationTypeSign`.
    case sign = 0
    /// `kSecKeyOperationTypeVerify`.
    case verify = 1
    /// `kSecKeyOperationTypeEncrypt` (not supported here).
    case encrypt = 2
    /// `kSecKeyOperationTypeDecrypt` (not supported here).
    case decrypt = 3
    /// `kSecKeyOperationTypeKeyExchange` (not supported here).
    case keyExchange = 4
}

/// The signature algorithms this module implements, parsed from their Apple names.
enum SignatureAlgorithm {
    enum Hash { case sha256, sha384, sha512 }
    enum Scheme { case ecdsaMessage, ecdsaDigest, rsaPKCS1, rsaPSS }

    case algorithm(Scheme, Hash)

    init?(_ name: SecKeyAlgorithm) {
        let text = name as String
        let parts = text.split(separator: ":")
        guard parts.count == 5, parts[0] == "algid", parts[1] == "sign" else { return nil }
        let hash: Hash
        switch parts[4] {
        case "SHA256": hash = .sha256
        case "SHA384": hash = .sha384
        case "SHA512": hash = .sha512
        default: return nil
        }
        switch (parts[2], parts[3]) {
        case ("ECDSA", "message-X962"): self = .algorithm(.ecdsaMessage, hash)
        case ("ECDSA", "digest-X962"): self = .algorithm(.ecdsaDigest, hash)
        case ("RSA", "message-PKCS1v15"): self = .algorithm(.rsaPKCS1, hash)
        case ("RSA", "message-PSS"): self = .algorithm(.rsaPSS, hash)
        default: return nil
        }
    }
}
#endif
