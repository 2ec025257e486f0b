#if !canImport(Darwin)
import Foundation

// Item attribute keys, with Apple's short names (docs/apple-semantics.md §1.4–§1.8).
// Every constant is a `let` (usable from Swift 6 code) holding Apple's raw string value.
// `NSString` is not `Sendable` on swift-corelibs-foundation; these instances are immutable, so
// `nonisolated(unsafe)` is sound.

/// `kSecAttrAccessible` (`"pdmn"`): When the item can be read; values are the `kSecAttrAccessible*` constants.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// `kSecAttrAccessControl` (`"accc"`): A `SecAccessControl` (protection plus authentication constraints).
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// `kSecAttrAccessGroup` (`"agrp"`): The access group the item belongs to.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// `kSecAttrSynchronizable` (`"sync"`): Whether the item is synchronizable; `kSecAttrSynchronizableAny` in queries matches both.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// `kSecAttrCreationDate` (`"cdat"`): Creation date (set by the keychain).
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// `kSecAttrModificationDate` (`"mdat"`): Modification date (set by the keychain).
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// `kSecAttrDescription` (`"desc"`): User-visible description.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// `kSecAttrComment` (`"icmt"`): User-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// `kSecAttrCreator` (`"crtr"`): Creator four-character code (a number).
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// `kSecAttrType` (`"type"`): Item type four-character code (a number).
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// `kSecAttrLabel` (`"labl"`): User-visible label.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// `kSecAttrIsInvisible` (`"invi"`): Whether the item is invisible.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// `kSecAttrIsNegative` (`"nega"`): Whether the item is a negative entry.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// `kSecAttrAccount` (`"acct"`): Account name (part of the primary key of passwords).
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// `kSecAttrService` (`"svce"`): Service name (part of the primary key of generic passwords).
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// `kSecAttrGeneric` (`"gena"`): Application-defined data.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// `kSecAttrSecurityDomain` (`"sdmn"`): Internet security domain.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// `kSecAttrServer` (`"srvr"`): Server domain name or IP address.
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// `kSecAttrProtocol` (`"ptcl"`): Protocol; values are the `kSecAttrProtocol*` constants.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// `kSecAttrAuthenticationType` (`"atyp"`): Authentication scheme; values are the `kSecAttrAuthenticationType*` constants.
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// `kSecAttrPort` (`"port"`): Internet port number.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// `kSecAttrPath` (`"path"`): Path component of a URL.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// `kSecAttrSubject` (`"subj"`): Certificate subject (normalized DER).
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// `kSecAttrIssuer` (`"issr"`): Certificate issuer (normalized DER).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// `kSecAttrSerialNumber` (`"slnr"`): Certificate serial number.
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// `kSecAttrSubjectKeyID` (`"skid"`): Certificate subject key identifier.
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// `kSecAttrPublicKeyHash` (`"pkhh"`): SHA-1 of the certificate's public key.
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// `kSecAttrCertificateType` (`"ctyp"`): Certificate type (a number).
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// `kSecAttrCertificateEncoding` (`"cenc"`): Certificate encoding (a number).
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// `kSecAttrKeyClass` (`"kcls"`): Key class; values are the `kSecAttrKeyClass*` constants, stored as numbers.
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// `kSecAttrApplicationLabel` (`"klbl"`): Key label used to look a key up (data; a string is stored as its UTF-8 bytes).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// `kSecAttrIsPermanent` (`"perm"`): Whether the key is stored permanently.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// `kSecAttrIsSensitive` (`"sens"`): Whether the key is sensitive.
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// `kSecAttrIsExtractable` (`"extr"`): Whether the key can be exported.
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// `kSecAttrApplicationTag` (`"atag"`): Application-private key tag.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// `kSecAttrKeyType` (`"type"`): Key algorithm; values are the `kSecAttrKeyType*` constants, stored as numbers.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// `kSecAttrPRF` (`"prf"`): Pseudo-random function of a derived key (macOS).
nonisolated(unsafe) public let kSecAttrPRF: CFString = "prf"
/// `kSecAttrSalt` (`"salt"`): Salt of a derived key (macOS).
nonisolated(unsafe) public let kSecAttrSalt: CFString = "salt"
/// `kSecAttrRounds` (`"rounds"`): Rounds of a derived key (macOS).
nonisolated(unsafe) public let kSecAttrRounds: CFString = "rounds"
/// `kSecAttrKeySizeInBits` (`"bsiz"`): Key size in bits.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// `kSecAttrEffectiveKeySize` (`"esiz"`): Effective key size in bits.
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// `kSecAttrCanEncrypt` (`"encr"`): Whether the key can encrypt.
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// `kSecAttrCanDecrypt` (`"decr"`): Whether the key can decrypt.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// `kSecAttrCanDerive` (`"drve"`): Whether the key can derive other keys.
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// `kSecAttrCanSign` (`"sign"`): Whether the key can sign.
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// `kSecAttrCanVerify` (`"vrfy"`): Whether the key can verify.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// `kSecAttrCanWrap` (`"wrap"`): Whether the key can wrap other keys.
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// `kSecAttrCanUnwrap` (`"unwp"`): Whether the key can unwrap other keys.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// `kSecAttrSyncViewHint` (`"vwht"`): Sync view hint (part of the primary key).
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// `kSecAttrTokenID` (`"tkid"`): Token identifier (part of the primary key).
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// `kSecAttrPersistantReference` (`"persistref"`): Apple's misspelled persistent-reference attribute key.
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = "persistref"
/// `kSecAttrPersistentReference` (`"persistref"`): The persistent-reference attribute key.
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"
/// `kSecAttrIsPrivate` (`"priv"`): Whether the key is private (SPI on iOS).
nonisolated(unsafe) public let kSecAttrIsPrivate: CFString = "priv"
/// `kSecAttrIsModifiable` (`"modi"`): Whether the key is modifiable (SPI on iOS).
nonisolated(unsafe) public let kSecAttrIsModifiable: CFString = "modi"
/// `kSecAttrWasAlwaysSensitive` (`"asen"`): Whether the key was always sensitive.
nonisolated(unsafe) public let kSecAttrWasAlwaysSensitive: CFString = "asen"
/// `kSecAttrWasNeverExtractable` (`"next"`): Whether the key was never extractable.
nonisolated(unsafe) public let kSecAttrWasNeverExtractable: CFString = "next"
/// `kSecAttrCanSignRecover` (`"snrc"`): Whether the key can sign with recovery (SPI).
nonisolated(unsafe) public let kSecAttrCanSignRecover: CFString = "snrc"
/// `kSecAttrCanVerifyRecover` (`"vyrc"`): Whether the key can verify with recovery (SPI).
nonisolated(unsafe) public let kSecAttrCanVerifyRecover: CFString = "vyrc"
/// `kSecAttrKeyCreator` (`"crtr"`): Key creator (SPI).
nonisolated(unsafe) public let kSecAttrKeyCreator: CFString = "crtr"
/// `kSecAttrStartDate` (`"sdat"`): Key validity start (SPI).
nonisolated(unsafe) public let kSecAttrStartDate: CFString = "sdat"
/// `kSecAttrEndDate` (`"edat"`): Key validity end (SPI).
nonisolated(unsafe) public let kSecAttrEndDate: CFString = "edat"
/// `kSecAttrAlias` (`"alis"`): Alias (SPI).
nonisolated(unsafe) public let kSecAttrAlias: CFString = "alis"
/// `kSecAttrHasCustomIcon` (`"cusi"`): Custom icon flag (SPI).
nonisolated(unsafe) public let kSecAttrHasCustomIcon: CFString = "cusi"
/// `kSecAttrScriptCode` (`"scrp"`): Script code (SPI).
nonisolated(unsafe) public let kSecAttrScriptCode: CFString = "scrp"
/// `kSecAttrProtected` (`"prot"`): Protected flag (SPI).
nonisolated(unsafe) public let kSecAttrProtected: CFString = "prot"
/// `kSecAttrTombstone` (`"tomb"`): Tombstone flag of a deleted synchronizable item (SPI).
nonisolated(unsafe) public let kSecAttrTombstone: CFString = "tomb"
/// `kSecAttrMultiUser` (`"musr"`): Multi-user view (SPI).
nonisolated(unsafe) public let kSecAttrMultiUser: CFString = "musr"
/// `kSecAttrSHA1` (`"sha1"`): Digest of the item's attributes and data (SPI).
nonisolated(unsafe) public let kSecAttrSHA1: CFString = "sha1"
/// `kSecAttrSysBound` (`"sysb"`): System-bound flag (SPI).
nonisolated(unsafe) public let kSecAttrSysBound: CFString = "sysb"
/// `kSecAttrSharingGroup` (`"ggrp"`): Sharing group (SPI).
nonisolated(unsafe) public let kSecAttrSharingGroup: CFString = "ggrp"
/// `kSecAttrUUID` (`"UUID"`): Item UUID (SPI).
nonisolated(unsafe) public let kSecAttrUUID: CFString = "UUID"
#endif
