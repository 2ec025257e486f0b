/// An attribute's name: Apple's short key (`acct`, `svce`, `pdmn` ...), the same string `kSecAttr*` holds.
public struct AttributeName: RawRepresentable, Hashable, Sendable, Comparable, Codable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The short key.
    public let rawValue: String

    /// Wraps a short key.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Wraps a short key given as a literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The short key.
    public var description: String { rawValue }

    /// Orders by short key.
    public static func < (lhs: AttributeName, rhs: AttributeName) -> Bool { lhs.rawValue < rhs.rawValue }

    // Common to every class.
    /// `kSecAttrCreationDate`.
    public static let creationDate: AttributeName = "cdat"
    /// `kSecAttrModificationDate`.
    public static let modificationDate: AttributeName = "mdat"
    /// `kSecAttrLabel`.
    public static let label: AttributeName = "labl"
    /// `kSecAttrAccessGroup`.
    public static let accessGroup: AttributeName = "agrp"
    /// `kSecAttrAccessible`.
    public static let accessible: AttributeName = "pdmn"
    /// `kSecAttrAccessControl` (serialized).
    public static let accessControl: AttributeName = "accc"
    /// `kSecAttrSynchronizable`.
    public static let synchronizable: AttributeName = "sync"
    /// `kSecAttrTombstone` (SPI).
    public static let tombstone: AttributeName = "tomb"
    /// `kSecAttrSHA1` (SPI): a digest of the item's attributes and data.
    public static let sha1: AttributeName = "sha1"
    /// `kSecAttrSyncViewHint`.
    public static let syncViewHint: AttributeName = "vwht"
    /// `kSecAttrTokenID`.
    public static let tokenID: AttributeName = "tkid"
    /// `kSecAttrMultiUser` (SPI).
    public static let multiUser: AttributeName = "musr"
    /// `kSecAttrSysBound` (SPI).
    public static let sysBound: AttributeName = "sysb"
    /// `kSecAttrSharingGroup` (SPI).
    public static let sharingGroup: AttributeName = "ggrp"
    /// `kSecAttrPCSPlaintextServiceIdentifier` and friends (SPI).
    public static let pcsPlaintext: AttributeName = "pcss"
    /// (SPI) PCS public key.
    public static let pcsPublicKey: AttributeName = "pcsk"
    /// (SPI) PCS public identity.
    public static let pcsPublicIdentity: AttributeName = "pcsi"
    /// App-clip flag (SPI).
    public static let appClip: AttributeName = "clip"

    // Passwords.
    /// `kSecAttrAccount`.
    public static let account: AttributeName = "acct"
    /// `kSecAttrService`.
    public static let service: AttributeName = "svce"
    /// `kSecAttrGeneric`.
    public static let generic: AttributeName = "gena"
    /// `kSecAttrDescription`.
    public static let itemDescription: AttributeName = "desc"
    /// `kSecAttrComment`.
    public static let comment: AttributeName = "icmt"
    /// `kSecAttrCreator`.
    public static let creator: AttributeName = "crtr"
    /// `kSecAttrType`.
    public static let type: AttributeName = "type"
    /// `kSecAttrScriptCode` (SPI).
    public static let scriptCode: AttributeName = "scrp"
    /// `kSecAttrAlias` (SPI).
    public static let alias: AttributeName = "alis"
    /// `kSecAttrIsInvisible`.
    public static let isInvisible: AttributeName = "invi"
    /// `kSecAttrIsNegative`.
    public static let isNegative: AttributeName = "nega"
    /// `kSecAttrHasCustomIcon` (SPI).
    public static let hasCustomIcon: AttributeName = "cusi"
    /// `kSecAttrProtected` (SPI).
    public static let protected: AttributeName = "prot"
    /// `kSecAttrSecurityDomain`.
    public static let securityDomain: AttributeName = "sdmn"
    /// `kSecAttrServer`.
    public static let server: AttributeName = "srvr"
    /// `kSecAttrProtocol`.
    public static let `protocol`: AttributeName = "ptcl"
    /// `kSecAttrAuthenticationType`.
    public static let authenticationType: AttributeName = "atyp"
    /// `kSecAttrPort`.
    public static let port: AttributeName = "port"
    /// `kSecAttrPath`.
    public static let path: AttributeName = "path"

    // Certificates.
    /// `kSecAttrCertificateType`.
    public static let certificateType: AttributeName = "ctyp"
    /// `kSecAttrCertificateEncoding`.
    public static let certificateEncoding: AttributeName = "cenc"
    /// `kSecAttrSubject`.
    public static let subject: AttributeName = "subj"
    /// `kSecAttrIssuer`.
    public static let issuer: AttributeName = "issr"
    /// `kSecAttrSerialNumber`.
    public static let serialNumber: AttributeName = "slnr"
    /// `kSecAttrSubjectKeyID`.
    public static let subjectKeyID: AttributeName = "skid"
    /// `kSecAttrPublicKeyHash`.
    public static let publicKeyHash: AttributeName = "pkhh"
    /// Where a found identity carries its certificate's DER (Apple's private `certdata` key); faces build
    /// the identity's certificate object from it and never return it as an attribute.
    package static let identityCertificate: AttributeName = "certdata"

    // Keys.
    /// `kSecAttrKeyClass`.
    public static let keyClass: AttributeName = "kcls"
    /// `kSecAttrApplicationLabel`.
    public static let applicationLabel: AttributeName = "klbl"
    /// `kSecAttrApplicationTag`.
    public static let applicationTag: AttributeName = "atag"
    /// `kSecAttrKeyType`.
    public static let keyType: AttributeName = "type"
    /// `kSecAttrKeySizeInBits`.
    public static let keySizeInBits: AttributeName = "bsiz"
    /// `kSecAttrEffectiveKeySize`.
    public static let effectiveKeySize: AttributeName = "esiz"
    /// `kSecAttrStartDate` (SPI).
    public static let startDate: AttributeName = "sdat"
    /// `kSecAttrEndDate` (SPI).
    public static let endDate: AttributeName = "edat"
    /// `kSecAttrIsPermanent`.
    public static let isPermanent: AttributeName = "perm"
    /// `kSecAttrIsPrivate` (SPI).
    public static let isPrivate: AttributeName = "priv"
    /// `kSecAttrIsModifiable` (SPI).
    public static let isModifiable: AttributeName = "modi"
    /// `kSecAttrIsSensitive`.
    public static let isSensitive: AttributeName = "sens"
    /// `kSecAttrWasAlwaysSensitive`.
    public static let wasAlwaysSensitive: AttributeName = "asen"
    /// `kSecAttrIsExtractable`.
    public static let isExtractable: AttributeName = "extr"
    /// `kSecAttrWasNeverExtractable`.
    public static let wasNeverExtractable: AttributeName = "next"
    /// `kSecAttrCanEncrypt`.
    public static let canEncrypt: AttributeName = "encr"
    /// `kSecAttrCanDecrypt`.
    public static let canDecrypt: AttributeName = "decr"
    /// `kSecAttrCanDerive`.
    public static let canDerive: AttributeName = "drve"
    /// `kSecAttrCanSign`.
    public static let canSign: AttributeName = "sign"
    /// `kSecAttrCanVerify`.
    public static let canVerify: AttributeName = "vrfy"
    /// `kSecAttrCanSignRecover` (SPI).
    public static let canSignRecover: AttributeName = "snrc"
    /// `kSecAttrCanVerifyRecover` (SPI).
    public static let canVerifyRecover: AttributeName = "vyrc"
    /// `kSecAttrCanWrap`.
    public static let canWrap: AttributeName = "wrap"
    /// `kSecAttrCanUnwrap`.
    public static let canUnwrap: AttributeName = "unwp"
    /// `kSecAttrKeyCreator` (SPI); same short key as `creator`.
    public static let keyCreator: AttributeName = "crtr"
}
