#if !canImport(Darwin)
import Foundation

// Item classes and the class key (docs/apple-semantics.md §1.1).
// Every constant is a `let` (usable from Swift 6 code) holding Apple's raw string value.
// `NSString` is not `Sendable` on swift-corelibs-foundation; these instances are immutable, so
// `nonisolated(unsafe)` is sound.

/// `kSecClass` (`"class"`): The key whose value is the item class.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// `kSecClassGenericPassword` (`"genp"`): Generic password items.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// `kSecClassInternetPassword` (`"inet"`): Internet password items.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// `kSecClassCertificate` (`"cert"`): Certificate items.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// `kSecClassKey` (`"keys"`): Cryptographic key items.
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// `kSecClassIdentity` (`"idnt"`): Identities: a stored private key joined with the stored certificate of its
/// public key (docs/apple-semantics.md §2.2).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"
#endif
