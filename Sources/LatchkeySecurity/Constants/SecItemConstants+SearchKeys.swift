#if !canImport(Darwin)
import Foundation

// Match, return, value and use keys (docs/apple-semantics.md §3.4–§3.6, §4).
// Every constant is a `let` (usable from Swift 6 code) holding Apple's raw string value.
// `NSString` is not `Sendable` on swift-corelibs-foundation; these instances are immutable, so
// `nonisolated(unsafe)` is sound.

/// `kSecMatchPolicy` (`"m_Policy"`): Match certificates trusted under a policy.
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
/// `kSecMatchItemList` (`"m_ItemList"`): Restrict to listed items (no effect in the data-protection keychain).
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// `kSecMatchSearchList` (`"m_SearchList"`): Keychains to search (macOS file keychain only; no effect).
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
/// `kSecMatchIssuers` (`"m_Issuers"`): Match certificates issued by these names.
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
/// `kSecMatchEmailAddressIfPresent` (`"m_EmailAddressIfPresent"`): Match certificates with this e-mail address.
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
/// `kSecMatchSubjectContains` (`"m_SubjectContains"`): Subject substring (no effect).
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
/// `kSecMatchSubjectStartsWith` (`"m_SubjectStartsWith"`): Subject prefix (macOS file keychain only; no effect).
nonisolated(unsafe) public let kSecMatchSubjectStartsWith: CFString = "m_SubjectStartsWith"
/// `kSecMatchSubjectEndsWith` (`"m_SubjectEndsWith"`): Subject suffix (macOS file keychain only; no effect).
nonisolated(unsafe) public let kSecMatchSubjectEndsWith: CFString = "m_SubjectEndsWith"
/// `kSecMatchSubjectWholeString` (`"m_SubjectWholeString"`): Whole subject (macOS file keychain only; no effect).
nonisolated(unsafe) public let kSecMatchSubjectWholeString: CFString = "m_SubjectWholeString"
/// `kSecMatchCaseInsensitive` (`"m_CaseInsensitive"`): Case-insensitive matching (no effect: matching is always exact).
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// `kSecMatchDiacriticInsensitive` (`"m_DiacriticInsensitive"`): Diacritic-insensitive matching (no effect).
nonisolated(unsafe) public let kSecMatchDiacriticInsensitive: CFString = "m_DiacriticInsensitive"
/// `kSecMatchWidthInsensitive` (`"m_WidthInsensitive"`): Width-insensitive matching (no effect).
nonisolated(unsafe) public let kSecMatchWidthInsensitive: CFString = "m_WidthInsensitive"
/// `kSecMatchTrustedOnly` (`"m_TrustedOnly"`): Only trusted certificates.
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
/// `kSecMatchValidOnDate` (`"m_ValidOnDate"`): Certificates valid on a date.
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"
/// `kSecMatchLimit` (`"m_Limit"`): How many results: `kSecMatchLimitOne`, `kSecMatchLimitAll` or a number.
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// `kSecMatchLimitOne` (`"m_LimitOne"`): One result (a single object, not an array).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// `kSecMatchLimitAll` (`"m_LimitAll"`): Every result (an array).
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// `kSecMatchHostOrSubdomainOfHost` (`"m_HostOrSubdomainOfHost"`): Internet passwords whose server is this host or one of its subdomains.
nonisolated(unsafe) public let kSecMatchHostOrSubdomainOfHost: CFString = "m_HostOrSubdomainOfHost"
/// `kSecReturnData` (`"r_Data"`): Return the item's secret (`Data`).
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// `kSecReturnAttributes` (`"r_Attributes"`): Return the item's attributes (a dictionary).
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// `kSecReturnRef` (`"r_Ref"`): Return a reference object (keys, certificates, identities).
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// `kSecReturnPersistentRef` (`"r_PersistentRef"`): Return a persistent reference (`Data`).
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// `kSecValueData` (`"v_Data"`): The item's secret; must be `Data`.
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// `kSecValueRef` (`"v_Ref"`): A reference object (`SecKey`, `SecCertificate`, `SecIdentity`).
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// `kSecValuePersistentRef` (`"v_PersistentRef"`): A persistent reference that selects one item.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"
/// `kSecUseItemList` (`"u_ItemList"`): Items to use (deprecated).
nonisolated(unsafe) public let kSecUseItemList: CFString = "u_ItemList"
/// `kSecUseKeychain` (`"u_Keychain"`): Keychain to use (macOS file keychain).
nonisolated(unsafe) public let kSecUseKeychain: CFString = "u_Keychain"
/// `kSecUseOperationPrompt` (`"u_OpPrompt"`): The reason shown when authentication is needed.
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// `kSecUseNoAuthenticationUI` (`"u_NoAuthUI"`): `true` fails instead of asking (deprecated; same as `kSecUseAuthenticationUIFail`).
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// `kSecUseAuthenticationUI` (`"u_AuthUI"`): Whether the keychain may ask the user: Allow, Fail or Skip.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// `kSecUseAuthenticationUIAllow` (`"u_AuthUIA"`): Ask the user when an item needs authentication (default).
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// `kSecUseAuthenticationUIFail` (`"u_AuthUIF"`): Fail with `errSecInteractionNotAllowed` instead of asking.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// `kSecUseAuthenticationUISkip` (`"u_AuthUIS"`): Silently leave out items that need authentication (`SecItemCopyMatching` only).
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// `kSecUseAuthenticationContext` (`"u_AuthCtx"`): An `LAContext` to authenticate with (reused once evaluated).
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// `kSecUseDataProtectionKeychain` (`"nleg"`): Use the data-protection keychain (accepted and ignored: it is the only one).
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// `kSecUseCredentialReference` (`"u_CredRef"`): An externalized authentication context (SPI).
nonisolated(unsafe) public let kSecUseCredentialReference: CFString = "u_CredRef"
/// `kSecUseTombstones` (`"u_Tomb"`): Override tombstone creation (SPI).
nonisolated(unsafe) public let kSecUseTombstones: CFString = "u_Tomb"
#endif
