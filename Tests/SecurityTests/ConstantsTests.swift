#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

/// One `kSec*` constant and Apple's raw string value.
struct ConstantCase: Sendable, CustomTestStringConvertible {
    let name: String
    let value: String
    let expected: String

    init(_ name: String, _ value: CFString, _ expected: String) {
        self.name = name
        self.value = value as String
        self.expected = expected
    }

    init(_ name: String, _ value: SecKeyAlgorithm, _ expected: String) {
        self.init(name, value.rawValue, expected)
    }

    var testDescription: String { name }
}

/// One `errSec*` code with its value and `SecCopyErrorMessageString` text.
struct StatusCase: Sendable, CustomTestStringConvertible {
    let name: String
    let status: OSStatus
    let expected: OSStatus
    let message: String

    var testDescription: String { name }
}

struct ConstantsTests {
    static let constants: [ConstantCase] = [
        ConstantCase("kSecClass", kSecClass, "class"),
        ConstantCase("kSecClassGenericPassword", kSecClassGenericPassword, "genp"),
        ConstantCase("kSecClassInternetPassword", kSecClassInternetPassword, "inet"),
        ConstantCase("kSecClassCertificate", kSecClassCertificate, "cert"),
        ConstantCase("kSecClassKey", kSecClassKey, "keys"),
        ConstantCase("kSecClassIdentity", kSecClassIdentity, "idnt"),
        ConstantCase("kSecAttrAccessible", kSecAttrAccessible, "pdmn"),
        ConstantCase("kSecAttrAccessControl", kSecAttrAccessControl, "accc"),
        ConstantCase("kSecAttrAccessGroup", kSecAttrAccessGroup, "agrp"),
        ConstantCase("kSecAttrSynchronizable", kSecAttrSynchronizable, "sync"),
        ConstantCase("kSecAttrCreationDate", kSecAttrCreationDate, "cdat"),
        ConstantCase("kSecAttrModificationDate", kSecAttrModificationDate, "mdat"),
        ConstantCase("kSecAttrDescription", kSecAttrDescription, "desc"),
        ConstantCase("kSecAttrComment", kSecAttrComment, "icmt"),
        ConstantCase("kSecAttrCreator", kSecAttrCreator, "crtr"),
        ConstantCase("kSecAttrType", kSecAttrType, "type"),
        ConstantCase("kSecAttrLabel", kSecAttrLabel, "labl"),
        ConstantCase("kSecAttrIsInvisible", kSecAttrIsInvisible, "invi"),
        ConstantCase("kSecAttrIsNegative", kSecAttrIsNegative, "nega"),
        ConstantCase("kSecAttrAccount", kSecAttrAccount, "acct"),
        ConstantCase("kSecAttrService", kSecAttrService, "svce"),
        ConstantCase("kSecAttrGeneric", kSecAttrGeneric, "gena"),
        ConstantCase("kSecAttrSecurityDomain", kSecAttrSecurityDomain, "sdmn"),
        ConstantCase("kSecAttrServer", kSecAttrServer, "srvr"),
        ConstantCase("kSecAttrProtocol", kSecAttrProtocol, "ptcl"),
        ConstantCase("kSecAttrAuthenticationType", kSecAttrAuthenticationType, "atyp"),
        ConstantCase("kSecAttrPort", kSecAttrPort, "port"),
        ConstantCase("kSecAttrPath", kSecAttrPath, "path"),
        ConstantCase("kSecAttrSubject", kSecAttrSubject, "subj"),
        ConstantCase("kSecAttrIssuer", kSecAttrIssuer, "issr"),
        ConstantCase("kSecAttrSerialNumber", kSecAttrSerialNumber, "slnr"),
        ConstantCase("kSecAttrSubjectKeyID", kSecAttrSubjectKeyID, "skid"),
        ConstantCase("kSecAttrPublicKeyHash", kSecAttrPublicKeyHash, "pkhh"),
        ConstantCase("kSecAttrCertificateType", kSecAttrCertificateType, "ctyp"),
        ConstantCase("kSecAttrCertificateEncoding", kSecAttrCertificateEncoding, "cenc"),
        ConstantCase("kSecAttrKeyClass", kSecAttrKeyClass, "kcls"),
        ConstantCase("kSecAttrApplicationLabel", kSecAttrApplicationLabel, "klbl"),
        ConstantCase("kSecAttrIsPermanent", kSecAttrIsPermanent, "perm"),
        ConstantCase("kSecAttrIsSensitive", kSecAttrIsSensitive, "sens"),
        ConstantCase("kSecAttrIsExtractable", kSecAttrIsExtractable, "extr"),
        ConstantCase("kSecAttrApplicationTag", kSecAttrApplicationTag, "atag"),
        ConstantCase("kSecAttrKeyType", kSecAttrKeyType, "type"),
        ConstantCase("kSecAttrPRF", kSecAttrPRF, "prf"),
        ConstantCase("kSecAttrSalt", kSecAttrSalt, "salt"),
        ConstantCase("kSecAttrRounds", kSecAttrRounds, "rounds"),
        ConstantCase("kSecAttrKeySizeInBits", kSecAttrKeySizeInBits, "bsiz"),
        ConstantCase("kSecAttrEffectiveKeySize", kSecAttrEffectiveKeySize, "esiz"),
        ConstantCase("kSecAttrCanEncrypt", kSecAttrCanEncrypt, "encr"),
        ConstantCase("kSecAttrCanDecrypt", kSecAttrCanDecrypt, "decr"),
        ConstantCase("kSecAttrCanDerive", kSecAttrCanDerive, "drve"),
        ConstantCase("kSecAttrCanSign", kSecAttrCanSign, "sign"),
        ConstantCase("kSecAttrCanVerify", kSecAttrCanVerify, "vrfy"),
        ConstantCase("kSecAttrCanWrap", kSecAttrCanWrap, "wrap"),
        ConstantCase("kSecAttrCanUnwrap", kSecAttrCanUnwrap, "unwp"),
        ConstantCase("kSecAttrSyncViewHint", kSecAttrSyncViewHint, "vwht"),
        ConstantCase("kSecAttrTokenID", kSecAttrTokenID, "tkid"),
        ConstantCase("kSecAttrPersistantReference", kSecAttrPersistantReference, "persistref"),
        ConstantCase("kSecAttrPersistentReference", kSecAttrPersistentReference, "persistref"),
        ConstantCase("kSecAttrIsPrivate", kSecAttrIsPrivate, "priv"),
        ConstantCase("kSecAttrIsModifiable", kSecAttrIsModifiable, "modi"),
        ConstantCase("kSecAttrWasAlwaysSensitive", kSecAttrWasAlwaysSensitive, "asen"),
        ConstantCase("kSecAttrWasNeverExtractable", kSecAttrWasNeverExtractable, "next"),
        ConstantCase("kSecAttrCanSignRecover", kSecAttrCanSignRecover, "snrc"),
        ConstantCase("kSecAttrCanVerifyRecover", kSecAttrCanVerifyRecover, "vyrc"),
        ConstantCase("kSecAttrKeyCreator", kSecAttrKeyCreator, "crtr"),
        ConstantCase("kSecAttrStartDate", kSecAttrStartDate, "sdat"),
        ConstantCase("kSecAttrEndDate", kSecAttrEndDate, "edat"),
        ConstantCase("kSecAttrAlias", kSecAttrAlias, "alis"),
        ConstantCase("kSecAttrHasCustomIcon", kSecAttrHasCustomIcon, "cusi"),
        ConstantCase("kSecAttrScriptCode", kSecAttrScriptCode, "scrp"),
        ConstantCase("kSecAttrProtected", kSecAttrProtected, "prot"),
        ConstantCase("kSecAttrTombstone", kSecAttrTombstone, "tomb"),
        ConstantCase("kSecAttrMultiUser", kSecAttrMultiUser, "musr"),
        ConstantCase("kSecAttrSHA1", kSecAttrSHA1, "sha1"),
        ConstantCase("kSecAttrSysBound", kSecAttrSysBound, "sysb"),
        ConstantCase("kSecAttrSharingGroup", kSecAttrSharingGroup, "ggrp"),
        ConstantCase("kSecAttrUUID", kSecAttrUUID, "UUID"),
        ConstantCase("kSecAttrSynchronizableAny", kSecAttrSynchronizableAny, "syna"),
        ConstantCase("kSecAttrAccessibleWhenUnlocked", kSecAttrAccessibleWhenUnlocked, "ak"),
        ConstantCase("kSecAttrAccessibleAfterFirstUnlock", kSecAttrAccessibleAfterFirstUnlock, "ck"),
        ConstantCase("kSecAttrAccessibleAlways", kSecAttrAccessibleAlways, "dk"),
        ConstantCase(
            "kSecAttrAccessibleWhenUnlockedThisDeviceOnly",
            kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            "aku"
        ),
        ConstantCase(
            "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly",
            kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            "cku"
        ),
        ConstantCase("kSecAttrAccessibleAlwaysThisDeviceOnly", kSecAttrAccessibleAlwaysThisDeviceOnly, "dku"),
        ConstantCase(
            "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly",
            kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
            "akpu"
        ),
        ConstantCase("kSecAttrAccessGroupToken", kSecAttrAccessGroupToken, "com.apple.token"),
        ConstantCase("kSecAttrTokenIDSecureEnclave", kSecAttrTokenIDSecureEnclave, "com.apple.setoken"),
        ConstantCase("kSecAttrProtocolFTP", kSecAttrProtocolFTP, "ftp "),
        ConstantCase("kSecAttrProtocolFTPAccount", kSecAttrProtocolFTPAccount, "ftpa"),
        ConstantCase("kSecAttrProtocolHTTP", kSecAttrProtocolHTTP, "http"),
        ConstantCase("kSecAttrProtocolIRC", kSecAttrProtocolIRC, "irc "),
        ConstantCase("kSecAttrProtocolNNTP", kSecAttrProtocolNNTP, "nntp"),
        ConstantCase("kSecAttrProtocolPOP3", kSecAttrProtocolPOP3, "pop3"),
        ConstantCase("kSecAttrProtocolSMTP", kSecAttrProtocolSMTP, "smtp"),
        ConstantCase("kSecAttrProtocolSOCKS", kSecAttrProtocolSOCKS, "sox "),
        ConstantCase("kSecAttrProtocolIMAP", kSecAttrProtocolIMAP, "imap"),
        ConstantCase("kSecAttrProtocolLDAP", kSecAttrProtocolLDAP, "ldap"),
        ConstantCase("kSecAttrProtocolAppleTalk", kSecAttrProtocolAppleTalk, "atlk"),
        ConstantCase("kSecAttrProtocolAFP", kSecAttrProtocolAFP, "afp "),
        ConstantCase("kSecAttrProtocolTelnet", kSecAttrProtocolTelnet, "teln"),
        ConstantCase("kSecAttrProtocolSSH", kSecAttrProtocolSSH, "ssh "),
        ConstantCase("kSecAttrProtocolFTPS", kSecAttrProtocolFTPS, "ftps"),
        ConstantCase("kSecAttrProtocolHTTPS", kSecAttrProtocolHTTPS, "htps"),
        ConstantCase("kSecAttrProtocolHTTPProxy", kSecAttrProtocolHTTPProxy, "htpx"),
        ConstantCase("kSecAttrProtocolHTTPSProxy", kSecAttrProtocolHTTPSProxy, "htsx"),
        ConstantCase("kSecAttrProtocolFTPProxy", kSecAttrProtocolFTPProxy, "ftpx"),
        ConstantCase("kSecAttrProtocolSMB", kSecAttrProtocolSMB, "smb "),
        ConstantCase("kSecAttrProtocolRTSP", kSecAttrProtocolRTSP, "rtsp"),
        ConstantCase("kSecAttrProtocolRTSPProxy", kSecAttrProtocolRTSPProxy, "rtsx"),
        ConstantCase("kSecAttrProtocolDAAP", kSecAttrProtocolDAAP, "daap"),
        ConstantCase("kSecAttrProtocolEPPC", kSecAttrProtocolEPPC, "eppc"),
        ConstantCase("kSecAttrProtocolIPP", kSecAttrProtocolIPP, "ipp "),
        ConstantCase("kSecAttrProtocolNNTPS", kSecAttrProtocolNNTPS, "ntps"),
        ConstantCase("kSecAttrProtocolLDAPS", kSecAttrProtocolLDAPS, "ldps"),
        ConstantCase("kSecAttrProtocolTelnetS", kSecAttrProtocolTelnetS, "tels"),
        ConstantCase("kSecAttrProtocolIMAPS", kSecAttrProtocolIMAPS, "imps"),
        ConstantCase("kSecAttrProtocolIRCS", kSecAttrProtocolIRCS, "ircs"),
        ConstantCase("kSecAttrProtocolPOP3S", kSecAttrProtocolPOP3S, "pops"),
        ConstantCase("kSecAttrProtocolCIFS", kSecAttrProtocolCIFS, "cifs"),
        ConstantCase("kSecAttrProtocolCVSpserver", kSecAttrProtocolCVSpserver, "cvsp"),
        ConstantCase("kSecAttrProtocolSVN", kSecAttrProtocolSVN, "svn "),
        ConstantCase("kSecAttrAuthenticationTypeNTLM", kSecAttrAuthenticationTypeNTLM, "ntlm"),
        ConstantCase("kSecAttrAuthenticationTypeMSN", kSecAttrAuthenticationTypeMSN, "msna"),
        ConstantCase("kSecAttrAuthenticationTypeDPA", kSecAttrAuthenticationTypeDPA, "dpaa"),
        ConstantCase("kSecAttrAuthenticationTypeRPA", kSecAttrAuthenticationTypeRPA, "rpaa"),
        ConstantCase("kSecAttrAuthenticationTypeHTTPBasic", kSecAttrAuthenticationTypeHTTPBasic, "http"),
        ConstantCase("kSecAttrAuthenticationTypeHTTPDigest", kSecAttrAuthenticationTypeHTTPDigest, "httd"),
        ConstantCase("kSecAttrAuthenticationTypeHTMLForm", kSecAttrAuthenticationTypeHTMLForm, "form"),
        ConstantCase("kSecAttrAuthenticationTypeDefault", kSecAttrAuthenticationTypeDefault, "dflt"),
        ConstantCase("kSecAttrKeyTypeRSA", kSecAttrKeyTypeRSA, "42"),
        ConstantCase("kSecAttrKeyTypeDSA", kSecAttrKeyTypeDSA, "43"),
        ConstantCase("kSecAttrKeyTypeAES", kSecAttrKeyTypeAES, "2147483649"),
        ConstantCase("kSecAttrKeyTypeDES", kSecAttrKeyTypeDES, "14"),
        ConstantCase("kSecAttrKeyType3DES", kSecAttrKeyType3DES, "17"),
        ConstantCase("kSecAttrKeyTypeRC4", kSecAttrKeyTypeRC4, "25"),
        ConstantCase("kSecAttrKeyTypeRC2", kSecAttrKeyTypeRC2, "23"),
        ConstantCase("kSecAttrKeyTypeCAST", kSecAttrKeyTypeCAST, "56"),
        ConstantCase("kSecAttrKeyTypeECDSA", kSecAttrKeyTypeECDSA, "73"),
        ConstantCase("kSecAttrKeyTypeEC", kSecAttrKeyTypeEC, "73"),
        ConstantCase("kSecAttrKeyTypeECSECPrimeRandom", kSecAttrKeyTypeECSECPrimeRandom, "73"),
        ConstantCase("kSecAttrKeyTypeEd25519", kSecAttrKeyTypeEd25519, "105"),
        ConstantCase("kSecAttrKeyTypeX25519", kSecAttrKeyTypeX25519, "106"),
        ConstantCase("kSecAttrKeyTypeEd448", kSecAttrKeyTypeEd448, "107"),
        ConstantCase("kSecAttrKeyTypeX448", kSecAttrKeyTypeX448, "108"),
        ConstantCase("kSecAttrKeyClassPublic", kSecAttrKeyClassPublic, "0"),
        ConstantCase("kSecAttrKeyClassPrivate", kSecAttrKeyClassPrivate, "1"),
        ConstantCase("kSecAttrKeyClassSymmetric", kSecAttrKeyClassSymmetric, "2"),
        ConstantCase("kSecPrivateKeyAttrs", kSecPrivateKeyAttrs, "private"),
        ConstantCase("kSecPublicKeyAttrs", kSecPublicKeyAttrs, "public"),
        ConstantCase("kSecMatchPolicy", kSecMatchPolicy, "m_Policy"),
        ConstantCase("kSecMatchItemList", kSecMatchItemList, "m_ItemList"),
        ConstantCase("kSecMatchSearchList", kSecMatchSearchList, "m_SearchList"),
        ConstantCase("kSecMatchIssuers", kSecMatchIssuers, "m_Issuers"),
        ConstantCase("kSecMatchEmailAddressIfPresent", kSecMatchEmailAddressIfPresent, "m_EmailAddressIfPresent"),
        ConstantCase("kSecMatchSubjectContains", kSecMatchSubjectContains, "m_SubjectContains"),
        ConstantCase("kSecMatchSubjectStartsWith", kSecMatchSubjectStartsWith, "m_SubjectStartsWith"),
        ConstantCase("kSecMatchSubjectEndsWith", kSecMatchSubjectEndsWith, "m_SubjectEndsWith"),
        ConstantCase("kSecMatchSubjectWholeString", kSecMatchSubjectWholeString, "m_SubjectWholeString"),
        ConstantCase("kSecMatchCaseInsensitive", kSecMatchCaseInsensitive, "m_CaseInsensitive"),
        ConstantCase("kSecMatchDiacriticInsensitive", kSecMatchDiacriticInsensitive, "m_DiacriticInsensitive"),
        ConstantCase("kSecMatchWidthInsensitive", kSecMatchWidthInsensitive, "m_WidthInsensitive"),
        ConstantCase("kSecMatchTrustedOnly", kSecMatchTrustedOnly, "m_TrustedOnly"),
        ConstantCase("kSecMatchValidOnDate", kSecMatchValidOnDate, "m_ValidOnDate"),
        ConstantCase("kSecMatchLimit", kSecMatchLimit, "m_Limit"),
        ConstantCase("kSecMatchLimitOne", kSecMatchLimitOne, "m_LimitOne"),
        ConstantCase("kSecMatchLimitAll", kSecMatchLimitAll, "m_LimitAll"),
        ConstantCase("kSecMatchHostOrSubdomainOfHost", kSecMatchHostOrSubdomainOfHost, "m_HostOrSubdomainOfHost"),
        ConstantCase("kSecReturnData", kSecReturnData, "r_Data"),
        ConstantCase("kSecReturnAttributes", kSecReturnAttributes, "r_Attributes"),
        ConstantCase("kSecReturnRef", kSecReturnRef, "r_Ref"),
        ConstantCase("kSecReturnPersistentRef", kSecReturnPersistentRef, "r_PersistentRef"),
        ConstantCase("kSecValueData", kSecValueData, "v_Data"),
        ConstantCase("kSecValueRef", kSecValueRef, "v_Ref"),
        ConstantCase("kSecValuePersistentRef", kSecValuePersistentRef, "v_PersistentRef"),
        ConstantCase("kSecUseItemList", kSecUseItemList, "u_ItemList"),
        ConstantCase("kSecUseKeychain", kSecUseKeychain, "u_Keychain"),
        ConstantCase("kSecUseOperationPrompt", kSecUseOperationPrompt, "u_OpPrompt"),
        ConstantCase("kSecUseNoAuthenticationUI", kSecUseNoAuthenticationUI, "u_NoAuthUI"),
        ConstantCase("kSecUseAuthenticationUI", kSecUseAuthenticationUI, "u_AuthUI"),
        ConstantCase("kSecUseAuthenticationUIAllow", kSecUseAuthenticationUIAllow, "u_AuthUIA"),
        ConstantCase("kSecUseAuthenticationUIFail", kSecUseAuthenticationUIFail, "u_AuthUIF"),
        ConstantCase("kSecUseAuthenticationUISkip", kSecUseAuthenticationUISkip, "u_AuthUIS"),
        ConstantCase("kSecUseAuthenticationContext", kSecUseAuthenticationContext, "u_AuthCtx"),
        ConstantCase("kSecUseDataProtectionKeychain", kSecUseDataProtectionKeychain, "nleg"),
        ConstantCase("kSecUseCredentialReference", kSecUseCredentialReference, "u_CredRef"),
        ConstantCase("kSecUseTombstones", kSecUseTombstones, "u_Tomb"),
        // Signature algorithms, from Apple's SecKeyAdaptors.m (SHA-224 PSS ends in 24 there).
        ConstantCase("kSecKeyAlgorithmRSASignatureRaw", kSecKeyAlgorithmRSASignatureRaw, "algid:sign:RSA:raw"),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw",
            kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw,
            "algid:sign:RSA:digest-PKCS1v15"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1",
            kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1,
            "algid:sign:RSA:digest-PKCS1v15:SHA1"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224",
            kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224,
            "algid:sign:RSA:digest-PKCS1v15:SHA224"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256",
            kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256,
            "algid:sign:RSA:digest-PKCS1v15:SHA256"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384",
            kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384,
            "algid:sign:RSA:digest-PKCS1v15:SHA384"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512",
            kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512,
            "algid:sign:RSA:digest-PKCS1v15:SHA512"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPSSSHA1",
            kSecKeyAlgorithmRSASignatureDigestPSSSHA1,
            "algid:sign:RSA:digest-PSS:SHA1:SHA1:20"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPSSSHA224",
            kSecKeyAlgorithmRSASignatureDigestPSSSHA224,
            "algid:sign:RSA:digest-PSS:SHA224:SHA224:24"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPSSSHA256",
            kSecKeyAlgorithmRSASignatureDigestPSSSHA256,
            "algid:sign:RSA:digest-PSS:SHA256:SHA256:32"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPSSSHA384",
            kSecKeyAlgorithmRSASignatureDigestPSSSHA384,
            "algid:sign:RSA:digest-PSS:SHA384:SHA384:48"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureDigestPSSSHA512",
            kSecKeyAlgorithmRSASignatureDigestPSSSHA512,
            "algid:sign:RSA:digest-PSS:SHA512:SHA512:64"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1",
            kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1,
            "algid:sign:RSA:message-PKCS1v15:SHA1"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224",
            kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224,
            "algid:sign:RSA:message-PKCS1v15:SHA224"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256",
            kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256,
            "algid:sign:RSA:message-PKCS1v15:SHA256"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384",
            kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384,
            "algid:sign:RSA:message-PKCS1v15:SHA384"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512",
            kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512,
            "algid:sign:RSA:message-PKCS1v15:SHA512"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePSSSHA1",
            kSecKeyAlgorithmRSASignatureMessagePSSSHA1,
            "algid:sign:RSA:message-PSS:SHA1:SHA1:20"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePSSSHA224",
            kSecKeyAlgorithmRSASignatureMessagePSSSHA224,
            "algid:sign:RSA:message-PSS:SHA224:SHA224:24"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePSSSHA256",
            kSecKeyAlgorithmRSASignatureMessagePSSSHA256,
            "algid:sign:RSA:message-PSS:SHA256:SHA256:32"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePSSSHA384",
            kSecKeyAlgorithmRSASignatureMessagePSSSHA384,
            "algid:sign:RSA:message-PSS:SHA384:SHA384:48"
        ),
        ConstantCase(
            "kSecKeyAlgorithmRSASignatureMessagePSSSHA512",
            kSecKeyAlgorithmRSASignatureMessagePSSSHA512,
            "algid:sign:RSA:message-PSS:SHA512:SHA512:64"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureRFC4754",
            kSecKeyAlgorithmECDSASignatureRFC4754,
            "algid:sign:ECDSA:RFC4754"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureDigestX962",
            kSecKeyAlgorithmECDSASignatureDigestX962,
            "algid:sign:ECDSA:digest-X962"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureDigestX962SHA1",
            kSecKeyAlgorithmECDSASignatureDigestX962SHA1,
            "algid:sign:ECDSA:digest-X962:SHA1"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureDigestX962SHA224",
            kSecKeyAlgorithmECDSASignatureDigestX962SHA224,
            "algid:sign:ECDSA:digest-X962:SHA224"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureDigestX962SHA256",
            kSecKeyAlgorithmECDSASignatureDigestX962SHA256,
            "algid:sign:ECDSA:digest-X962:SHA256"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureDigestX962SHA384",
            kSecKeyAlgorithmECDSASignatureDigestX962SHA384,
            "algid:sign:ECDSA:digest-X962:SHA384"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureDigestX962SHA512",
            kSecKeyAlgorithmECDSASignatureDigestX962SHA512,
            "algid:sign:ECDSA:digest-X962:SHA512"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureMessageX962SHA1",
            kSecKeyAlgorithmECDSASignatureMessageX962SHA1,
            "algid:sign:ECDSA:message-X962:SHA1"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureMessageX962SHA224",
            kSecKeyAlgorithmECDSASignatureMessageX962SHA224,
            "algid:sign:ECDSA:message-X962:SHA224"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureMessageX962SHA256",
            kSecKeyAlgorithmECDSASignatureMessageX962SHA256,
            "algid:sign:ECDSA:message-X962:SHA256"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureMessageX962SHA384",
            kSecKeyAlgorithmECDSASignatureMessageX962SHA384,
            "algid:sign:ECDSA:message-X962:SHA384"
        ),
        ConstantCase(
            "kSecKeyAlgorithmECDSASignatureMessageX962SHA512",
            kSecKeyAlgorithmECDSASignatureMessageX962SHA512,
            "algid:sign:ECDSA:message-X962:SHA512"
        ),
    ]

    @Test(arguments: constants)
    func constantHasApplesRawValue(_ constant: ConstantCase) {
        #expect(constant.value == constant.expected)
    }

    static let statuses: [StatusCase] = [
        StatusCase(name: "errSecSuccess", status: errSecSuccess, expected: 0, message: "No error."),
        StatusCase(name: "noErr", status: noErr, expected: 0, message: "No error."),
        StatusCase(
            name: "errSecUnimplemented",
            status: errSecUnimplemented,
            expected: -4,
            message: "Function or operation not implemented."
        ),
        StatusCase(name: "errSecIO", status: errSecIO, expected: -36, message: "I/O error."),
        StatusCase(
            name: "errSecParam",
            status: errSecParam,
            expected: -50,
            message: "One or more parameters passed to a function were not valid."
        ),
        StatusCase(
            name: "errSecAllocate",
            status: errSecAllocate,
            expected: -108,
            message: "Failed to allocate memory."
        ),
        StatusCase(
            name: "errSecUserCanceled",
            status: errSecUserCanceled,
            expected: -128,
            message: "User canceled the operation."
        ),
        StatusCase(
            name: "errSecBadReq",
            status: errSecBadReq,
            expected: -909,
            message: "Bad parameter or invalid state for operation."
        ),
        StatusCase(
            name: "errSecInternalComponent",
            status: errSecInternalComponent,
            expected: -2070,
            message: "OSStatus -2070"
        ),
        StatusCase(
            name: "errSecMissingEntitlement",
            status: errSecMissingEntitlement,
            expected: -34018,
            message: "A required entitlement isn't present."
        ),
        StatusCase(
            name: "errSecRestrictedAPI",
            status: errSecRestrictedAPI,
            expected: -34020,
            message: "Client is restricted and is not permitted to perform this operation."
        ),
        StatusCase(
            name: "errSecNotAvailable",
            status: errSecNotAvailable,
            expected: -25291,
            message: "No keychain is available. You may need to restart your computer."
        ),
        StatusCase(
            name: "errSecReadOnly",
            status: errSecReadOnly,
            expected: -25292,
            message: "This keychain cannot be modified."
        ),
        StatusCase(
            name: "errSecAuthFailed",
            status: errSecAuthFailed,
            expected: -25293,
            message: "The user name or passphrase you entered is not correct."
        ),
        StatusCase(
            name: "errSecDuplicateItem",
            status: errSecDuplicateItem,
            expected: -25299,
            message: "The specified item already exists in the keychain."
        ),
        StatusCase(
            name: "errSecItemNotFound",
            status: errSecItemNotFound,
            expected: -25300,
            message: "The specified item could not be found in the keychain."
        ),
        StatusCase(
            name: "errSecNoSuchAttr",
            status: errSecNoSuchAttr,
            expected: -25303,
            message: "The specified attribute does not exist."
        ),
        StatusCase(
            name: "errSecInvalidItemRef",
            status: errSecInvalidItemRef,
            expected: -25304,
            message: "The specified item is no longer valid. It may have been deleted from the keychain."
        ),
        StatusCase(
            name: "errSecNoSuchClass",
            status: errSecNoSuchClass,
            expected: -25306,
            message: "The specified item does not appear to be a valid keychain item."
        ),
        StatusCase(
            name: "errSecInteractionNotAllowed",
            status: errSecInteractionNotAllowed,
            expected: -25308,
            message: "User interaction is not allowed."
        ),
        StatusCase(
            name: "errSecDecode",
            status: errSecDecode,
            expected: -26275,
            message: "Unable to decode the provided data."
        ),
        StatusCase(name: "errSecInternal", status: errSecInternal, expected: -26276, message: "OSStatus -26276"),
        StatusCase(
            name: "errSecUpgradePending",
            status: errSecUpgradePending,
            expected: -34019,
            message: "OSStatus -34019"
        ),
        StatusCase(name: "errSecAuthNeeded", status: errSecAuthNeeded, expected: -25330, message: "OSStatus -25330"),
        StatusCase(
            name: "errSecNoDefaultKeychain",
            status: errSecNoDefaultKeychain,
            expected: -25307,
            message: "A default keychain could not be found."
        ),
        StatusCase(
            name: "errSecInteractionRequired",
            status: errSecInteractionRequired,
            expected: -25315,
            message: "User interaction is required, but is currently not allowed."
        ),
        StatusCase(
            name: "errSecDataNotAvailable",
            status: errSecDataNotAvailable,
            expected: -25316,
            message: "The contents of this item cannot be retrieved."
        ),
    ]

    @Test(arguments: statuses)
    func statusHasApplesValue(_ status: StatusCase) {
        #expect(status.status == status.expected)
    }

    @Test(arguments: statuses)
    func errorMessageStringIsApples(_ status: StatusCase) {
        #expect(SecCopyErrorMessageString(status.status, nil) as String? == status.message)
    }

    @Test func algorithmMembersAreApplesSwiftNames() {
        // Swift code on Apple platforms writes `.ecdsaSignatureMessageX962SHA256`, not the C names.
        let members: [(SecKeyAlgorithm, String)] = [
            (.ecdsaSignatureMessageX962SHA256, "algid:sign:ECDSA:message-X962:SHA256"),
            (.rsaSignatureMessagePSSSHA256, "algid:sign:RSA:message-PSS:SHA256:SHA256:32"),
            (.rsaEncryptionOAEPSHA256, "algid:encrypt:RSA:OAEP:SHA256"),
            (.rsaEncryptionPKCS1, "algid:encrypt:RSA:PKCS1"),
            (
                .eciesEncryptionStandardVariableIVX963SHA256AESGCM,
                "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV"
            ),
            (.ecdhKeyExchangeStandardX963SHA256, "algid:keyexchange:ECDH:KDFX963:SHA256"),
        ]
        for (member, raw) in members {
            #expect(member.rawValue as String == raw)
            #expect(SecKeyAlgorithm(rawValue: raw as CFString) == member)
        }
        #expect(SecKeyKeyExchangeParameter.requestedSize.rawValue as String == "requestedSize")
        #expect(SecKeyKeyExchangeParameter.sharedInfo.rawValue as String == "sharedInfo")
    }

    @Test func unknownStatusMessageNamesTheCode() {
        #expect(SecCopyErrorMessageString(-12345, nil) as String? == "OSStatus -12345")
    }

    @Test func accessControlFlagsHaveApplesBits() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1 << 0)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 1 << 1)
        #expect(SecAccessControlCreateFlags.touchIDAny == .biometryAny)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 1 << 3)
        #expect(SecAccessControlCreateFlags.touchIDCurrentSet == .biometryCurrentSet)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 1 << 4)
        #expect(SecAccessControlCreateFlags.companion.rawValue == 1 << 5)
        #expect(SecAccessControlCreateFlags.watch == .companion)
        #expect(SecAccessControlCreateFlags.or.rawValue == 1 << 14)
        #expect(SecAccessControlCreateFlags.and.rawValue == 1 << 15)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
    }
}
#endif
