#if !canImport(Darwin)
import Foundation

// Attribute values: accessibility, synchronizable-any, protocols, authentication types, key types and classes
// (docs/apple-semantics.md §1.6, §1.8, §6.1).
// Every constant is a `let` (usable from Swift 6 code) holding Apple's raw string value.
// `NSString` is not `Sendable` on swift-corelibs-foundation; these instances are immutable, so
// `nonisolated(unsafe)` is sound.

/// `kSecAttrSynchronizableAny` (`"syna"`): Query value of `kSecAttrSynchronizable` that matches synchronizable and local items.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// `kSecAttrAccessibleWhenUnlocked` (`"ak"`): Readable only while unlocked.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// `kSecAttrAccessibleAfterFirstUnlock` (`"ck"`): Readable after the first unlock.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// `kSecAttrAccessibleAlways` (`"dk"`): Always readable (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` (`"aku"`): Readable while unlocked; never leaves this machine.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly` (`"cku"`): Readable after the first unlock; never leaves this machine.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// `kSecAttrAccessibleAlwaysThisDeviceOnly` (`"dku"`): Always readable; never leaves this machine (deprecated by Apple).
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
/// `kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly` (`"akpu"`): Readable while unlocked, only in keychains with a passphrase.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// `kSecAttrAccessGroupToken` (`"com.apple.token"`): The access group of token items.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"
/// `kSecAttrTokenIDSecureEnclave` (`"com.apple.setoken"`): Token ID of Secure Enclave keys.
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// `kSecAttrProtocolFTP` (`"ftp "`): FTP.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// `kSecAttrProtocolFTPAccount` (`"ftpa"`): FTP account.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// `kSecAttrProtocolHTTP` (`"http"`): HTTP.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// `kSecAttrProtocolIRC` (`"irc "`): IRC.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// `kSecAttrProtocolNNTP` (`"nntp"`): NNTP.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// `kSecAttrProtocolPOP3` (`"pop3"`): POP3.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// `kSecAttrProtocolSMTP` (`"smtp"`): SMTP.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// `kSecAttrProtocolSOCKS` (`"sox "`): SOCKS.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// `kSecAttrProtocolIMAP` (`"imap"`): IMAP.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// `kSecAttrProtocolLDAP` (`"ldap"`): LDAP.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// `kSecAttrProtocolAppleTalk` (`"atlk"`): AppleTalk.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// `kSecAttrProtocolAFP` (`"afp "`): AFP.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// `kSecAttrProtocolTelnet` (`"teln"`): Telnet.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// `kSecAttrProtocolSSH` (`"ssh "`): SSH.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// `kSecAttrProtocolFTPS` (`"ftps"`): FTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// `kSecAttrProtocolHTTPS` (`"htps"`): HTTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// `kSecAttrProtocolHTTPProxy` (`"htpx"`): HTTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// `kSecAttrProtocolHTTPSProxy` (`"htsx"`): HTTPS proxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// `kSecAttrProtocolFTPProxy` (`"ftpx"`): FTP proxy.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// `kSecAttrProtocolSMB` (`"smb "`): SMB.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// `kSecAttrProtocolRTSP` (`"rtsp"`): RTSP.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// `kSecAttrProtocolRTSPProxy` (`"rtsx"`): RTSP proxy.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// `kSecAttrProtocolDAAP` (`"daap"`): DAAP.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// `kSecAttrProtocolEPPC` (`"eppc"`): Remote Apple Events.
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// `kSecAttrProtocolIPP` (`"ipp "`): IPP.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// `kSecAttrProtocolNNTPS` (`"ntps"`): NNTP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// `kSecAttrProtocolLDAPS` (`"ldps"`): LDAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// `kSecAttrProtocolTelnetS` (`"tels"`): Telnet over TLS.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// `kSecAttrProtocolIMAPS` (`"imps"`): IMAP over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// `kSecAttrProtocolIRCS` (`"ircs"`): IRC over TLS.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// `kSecAttrProtocolPOP3S` (`"pops"`): POP3 over TLS.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"
/// `kSecAttrProtocolCIFS` (`"cifs"`): CIFS (macOS).
nonisolated(unsafe) public let kSecAttrProtocolCIFS: CFString = "cifs"
/// `kSecAttrProtocolCVSpserver` (`"cvsp"`): CVS pserver (macOS).
nonisolated(unsafe) public let kSecAttrProtocolCVSpserver: CFString = "cvsp"
/// `kSecAttrProtocolSVN` (`"svn "`): Subversion (macOS).
nonisolated(unsafe) public let kSecAttrProtocolSVN: CFString = "svn "
/// `kSecAttrAuthenticationTypeNTLM` (`"ntlm"`): Windows NT LAN Manager.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// `kSecAttrAuthenticationTypeMSN` (`"msna"`): Microsoft Network default.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// `kSecAttrAuthenticationTypeDPA` (`"dpaa"`): Distributed Password authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// `kSecAttrAuthenticationTypeRPA` (`"rpaa"`): Remote Password authentication.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// `kSecAttrAuthenticationTypeHTTPBasic` (`"http"`): HTTP Basic.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// `kSecAttrAuthenticationTypeHTTPDigest` (`"httd"`): HTTP Digest.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// `kSecAttrAuthenticationTypeHTMLForm` (`"form"`): HTML form.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// `kSecAttrAuthenticationTypeDefault` (`"dflt"`): Default.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"
/// `kSecAttrKeyTypeRSA` (`"42"`): RSA (stored and returned as the number 42).
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// `kSecAttrKeyTypeDSA` (`"43"`): DSA (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeDSA: CFString = "43"
/// `kSecAttrKeyTypeAES` (`"2147483649"`): AES (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeAES: CFString = "2147483649"
/// `kSecAttrKeyTypeDES` (`"14"`): DES (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeDES: CFString = "14"
/// `kSecAttrKeyType3DES` (`"17"`): Triple DES (macOS).
nonisolated(unsafe) public let kSecAttrKeyType3DES: CFString = "17"
/// `kSecAttrKeyTypeRC4` (`"25"`): RC4 (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeRC4: CFString = "25"
/// `kSecAttrKeyTypeRC2` (`"23"`): RC2 (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeRC2: CFString = "23"
/// `kSecAttrKeyTypeCAST` (`"56"`): CAST (macOS).
nonisolated(unsafe) public let kSecAttrKeyTypeCAST: CFString = "56"
/// `kSecAttrKeyTypeECDSA` (`"73"`): Elliptic curve (deprecated name).
nonisolated(unsafe) public let kSecAttrKeyTypeECDSA: CFString = "73"
/// `kSecAttrKeyTypeEC` (`"73"`): Elliptic curve (stored and returned as the number 73).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// `kSecAttrKeyTypeECSECPrimeRandom` (`"73"`): Elliptic curve over a prime field.
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// `kSecAttrKeyTypeEd25519` (`"105"`): Ed25519 (SPI).
nonisolated(unsafe) public let kSecAttrKeyTypeEd25519: CFString = "105"
/// `kSecAttrKeyTypeX25519` (`"106"`): X25519 (SPI).
nonisolated(unsafe) public let kSecAttrKeyTypeX25519: CFString = "106"
/// `kSecAttrKeyTypeEd448` (`"107"`): Ed448 (SPI).
nonisolated(unsafe) public let kSecAttrKeyTypeEd448: CFString = "107"
/// `kSecAttrKeyTypeX448` (`"108"`): X448 (SPI).
nonisolated(unsafe) public let kSecAttrKeyTypeX448: CFString = "108"
/// `kSecAttrKeyClassPublic` (`"0"`): Public key (stored and returned as the number 0).
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// `kSecAttrKeyClassPrivate` (`"1"`): Private key (stored and returned as the number 1).
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// `kSecAttrKeyClassSymmetric` (`"2"`): Symmetric key (stored and returned as the number 2).
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// `kSecPrivateKeyAttrs` (`"private"`): Key-generation parameter: attributes of the private key.
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// `kSecPublicKeyAttrs` (`"public"`): Key-generation parameter: attributes of the public key.
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"
#endif
