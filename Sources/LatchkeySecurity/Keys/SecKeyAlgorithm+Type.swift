#if !canImport(Darwin)
import Foundation

/// `SecKeyAlgorithm`: the name of a key algorithm (mirrors Apple's Swift type).
///
/// As on Apple platforms, Swift code names algorithms as static members (`.ecdsaSignatureMessageX962SHA256`,
/// `.rsaEncryptionOAEPSHA256` ...); `rawValue` is Apple's `CFString` (`"algid:sign:ECDSA:message-X962:SHA256"`).
/// The C names (`kSecKeyAlgorithmECDSASignatureMessageX962SHA256` ...) are defined too.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    private let name: String

    /// Apple's algorithm name, e.g. `"algid:encrypt:RSA:OAEP:SHA256"`.
    public var rawValue: CFString { NSString(string: name) }

    /// Wraps an algorithm name.
    public init(rawValue: CFString) { name = rawValue as String }

    /// Wraps an algorithm name given as a literal.
    public init(stringLiteral value: String) { name = value }

    /// The algorithm name.
    public var description: String { name }
}

extension SecKeyAlgorithm {
    /// `kSecKeyAlgorithmECDSASignatureRFC4754`.
    public static let ecdsaSignatureRFC4754 = kSecKeyAlgorithmECDSASignatureRFC4754
    /// `kSecKeyAlgorithmECDSASignatureDigestX962`.
    public static let ecdsaSignatureDigestX962 = kSecKeyAlgorithmECDSASignatureDigestX962
    /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA1`.
    public static let ecdsaSignatureDigestX962SHA1 = kSecKeyAlgorithmECDSASignatureDigestX962SHA1
    /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA224`.
    public static let ecdsaSignatureDigestX962SHA224 = kSecKeyAlgorithmECDSASignatureDigestX962SHA224
    /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA256`.
    public static let ecdsaSignatureDigestX962SHA256 = kSecKeyAlgorithmECDSASignatureDigestX962SHA256
    /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA384`.
    public static let ecdsaSignatureDigestX962SHA384 = kSecKeyAlgorithmECDSASignatureDigestX962SHA384
    /// `kSecKeyAlgorithmECDSASignatureDigestX962SHA512`.
    public static let ecdsaSignatureDigestX962SHA512 = kSecKeyAlgorithmECDSASignatureDigestX962SHA512
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA1`.
    public static let ecdsaSignatureMessageX962SHA1 = kSecKeyAlgorithmECDSASignatureMessageX962SHA1
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA224`.
    public static let ecdsaSignatureMessageX962SHA224 = kSecKeyAlgorithmECDSASignatureMessageX962SHA224
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA256`.
    public static let ecdsaSignatureMessageX962SHA256 = kSecKeyAlgorithmECDSASignatureMessageX962SHA256
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA384`.
    public static let ecdsaSignatureMessageX962SHA384 = kSecKeyAlgorithmECDSASignatureMessageX962SHA384
    /// `kSecKeyAlgorithmECDSASignatureMessageX962SHA512`.
    public static let ecdsaSignatureMessageX962SHA512 = kSecKeyAlgorithmECDSASignatureMessageX962SHA512
    /// `kSecKeyAlgorithmRSASignatureRaw`.
    public static let rsaSignatureRaw = kSecKeyAlgorithmRSASignatureRaw
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw`.
    public static let rsaSignatureDigestPKCS1v15Raw = kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1`.
    public static let rsaSignatureDigestPKCS1v15SHA1 = kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224`.
    public static let rsaSignatureDigestPKCS1v15SHA224 = kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256`.
    public static let rsaSignatureDigestPKCS1v15SHA256 = kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384`.
    public static let rsaSignatureDigestPKCS1v15SHA384 = kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384
    /// `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512`.
    public static let rsaSignatureDigestPKCS1v15SHA512 = kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512
    /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1`.
    public static let rsaSignatureMessagePKCS1v15SHA1 = kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1
    /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224`.
    public static let rsaSignatureMessagePKCS1v15SHA224 = kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224
    /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256`.
    public static let rsaSignatureMessagePKCS1v15SHA256 = kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256
    /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384`.
    public static let rsaSignatureMessagePKCS1v15SHA384 = kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384
    /// `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512`.
    public static let rsaSignatureMessagePKCS1v15SHA512 = kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512
    /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA1`.
    public static let rsaSignatureDigestPSSSHA1 = kSecKeyAlgorithmRSASignatureDigestPSSSHA1
    /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA224`.
    public static let rsaSignatureDigestPSSSHA224 = kSecKeyAlgorithmRSASignatureDigestPSSSHA224
    /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA256`.
    public static let rsaSignatureDigestPSSSHA256 = kSecKeyAlgorithmRSASignatureDigestPSSSHA256
    /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA384`.
    public static let rsaSignatureDigestPSSSHA384 = kSecKeyAlgorithmRSASignatureDigestPSSSHA384
    /// `kSecKeyAlgorithmRSASignatureDigestPSSSHA512`.
    public static let rsaSignatureDigestPSSSHA512 = kSecKeyAlgorithmRSASignatureDigestPSSSHA512
    /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA1`.
    public static let rsaSignatureMessagePSSSHA1 = kSecKeyAlgorithmRSASignatureMessagePSSSHA1
    /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA224`.
    public static let rsaSignatureMessagePSSSHA224 = kSecKeyAlgorithmRSASignatureMessagePSSSHA224
    /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA256`.
    public static let rsaSignatureMessagePSSSHA256 = kSecKeyAlgorithmRSASignatureMessagePSSSHA256
    /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA384`.
    public static let rsaSignatureMessagePSSSHA384 = kSecKeyAlgorithmRSASignatureMessagePSSSHA384
    /// `kSecKeyAlgorithmRSASignatureMessagePSSSHA512`.
    public static let rsaSignatureMessagePSSSHA512 = kSecKeyAlgorithmRSASignatureMessagePSSSHA512
    /// `kSecKeyAlgorithmRSAEncryptionRaw`.
    public static let rsaEncryptionRaw = kSecKeyAlgorithmRSAEncryptionRaw
    /// `kSecKeyAlgorithmRSAEncryptionPKCS1`.
    public static let rsaEncryptionPKCS1 = kSecKeyAlgorithmRSAEncryptionPKCS1
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA1`.
    public static let rsaEncryptionOAEPSHA1 = kSecKeyAlgorithmRSAEncryptionOAEPSHA1
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA256`.
    public static let rsaEncryptionOAEPSHA256 = kSecKeyAlgorithmRSAEncryptionOAEPSHA256
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA384`.
    public static let rsaEncryptionOAEPSHA384 = kSecKeyAlgorithmRSAEncryptionOAEPSHA384
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA512`.
    public static let rsaEncryptionOAEPSHA512 = kSecKeyAlgorithmRSAEncryptionOAEPSHA512
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM`.
    public static let rsaEncryptionOAEPSHA1AESGCM = kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM`.
    public static let rsaEncryptionOAEPSHA256AESGCM = kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM`.
    public static let rsaEncryptionOAEPSHA384AESGCM = kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM`.
    public static let rsaEncryptionOAEPSHA512AESGCM = kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM`.
    public static let eciesEncryptionStandardX963SHA1AESGCM = kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM`.
    public static let eciesEncryptionStandardX963SHA256AESGCM = kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM`.
    public static let eciesEncryptionStandardX963SHA384AESGCM = kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM`.
    public static let eciesEncryptionStandardX963SHA512AESGCM = kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM`.
    public static let eciesEncryptionCofactorX963SHA1AESGCM = kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM`.
    public static let eciesEncryptionCofactorX963SHA256AESGCM = kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM`.
    public static let eciesEncryptionCofactorX963SHA384AESGCM = kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM`.
    public static let eciesEncryptionCofactorX963SHA512AESGCM = kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM`.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM =
        kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM`.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM =
        kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM`.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM =
        kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM`.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM =
        kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM`.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM =
        kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM`.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM =
        kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM
    /// `kSecKeyAlgorithmECDHKeyExchangeStandard`.
    public static let ecdhKeyExchangeStandard = kSecKeyAlgorithmECDHKeyExchangeStandard
    /// `kSecKeyAlgorithmECDHKeyExchangeCofactor`.
    public static let ecdhKeyExchangeCofactor = kSecKeyAlgorithmECDHKeyExchangeCofactor
    /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1`.
    public static let ecdhKeyExchangeStandardX963SHA1 = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1
    /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256`.
    public static let ecdhKeyExchangeStandardX963SHA256 = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256
    /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384`.
    public static let ecdhKeyExchangeStandardX963SHA384 = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384
    /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512`.
    public static let ecdhKeyExchangeStandardX963SHA512 = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512
    /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1`.
    public static let ecdhKeyExchangeCofactorX963SHA1 = kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1
    /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256`.
    public static let ecdhKeyExchangeCofactorX963SHA256 = kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256
    /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384`.
    public static let ecdhKeyExchangeCofactorX963SHA384 = kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384
    /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512`.
    public static let ecdhKeyExchangeCofactorX963SHA512 = kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512
    /// `kSecKeyAlgorithmRSAEncryptionOAEPSHA224`.
    public static let rsaEncryptionOAEPSHA224 = kSecKeyAlgorithmRSAEncryptionOAEPSHA224
    /// `kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM`.
    public static let eciesEncryptionStandardX963SHA224AESGCM = kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM`.
    public static let eciesEncryptionCofactorX963SHA224AESGCM = kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM`.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM =
        kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM
    /// `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM`.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM =
        kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM
    /// `kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224`.
    public static let ecdhKeyExchangeStandardX963SHA224 = kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224
    /// `kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224`.
    public static let ecdhKeyExchangeCofactorX963SHA224 = kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224
}

/// `SecKeyKeyExchangeParameter`: a parameter key of `SecKeyCopyKeyExchangeResult` (mirrors Apple's Swift type;
/// use `.requestedSize.rawValue` as a dictionary key, or the C names `kSecKeyKeyExchangeParameter*`).
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, Sendable {
    private let name: String

    /// The parameter's dictionary key.
    public var rawValue: CFString { NSString(string: name) }

    /// Wraps a parameter key.
    public init(rawValue: CFString) { name = rawValue as String }

    /// The requested output length in bytes (a `CFNumber`), required by the KDF algorithms.
    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: kSecKeyKeyExchangeParameterRequestedSize)
    /// Shared info for the KDF (`CFData`, optional).
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: kSecKeyKeyExchangeParameterSharedInfo)
}
#endif
