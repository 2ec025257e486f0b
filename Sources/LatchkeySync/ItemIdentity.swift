import Crypto
import Foundation
import Latchkey

/// An item's identity across machines: a keyed HMAC of its class and primary-key attributes.
///
/// Two machines that add the same account (same class, same primary key, `ItemSchema`) compute the same
/// identity, and so the same row UUID: their rows converge on one item on the server. Without the identity
/// key (derived from the sync key, `SyncKeys`) the identity reveals nothing about the attributes, not even
/// which items of two keychains are the same.
///
/// ```
/// identity = HMAC-SHA256(identity key, encoding)
/// encoding = "latchkey-sync-identity-v1" ‖ u8 len(class) ‖ class ("genp", "inet", "cert", "keys")
///            ‖ u16 count ‖ for each primary-key attribute in the class's canonical order:
///                u8 len(name) ‖ name ‖ u32 len(value) ‖ value
/// value    = the attribute's canonical bytes (storage-format.md §6), or its primary-key fallback when absent
/// row UUID = the identity's first 16 bytes, with the version nibble set to 8 and the variant to 0b10
///            (an RFC 9562 version 8 UUID)
/// ```
///
/// Integers are big-endian. Every part is length-prefixed, so no two different keys encode alike.
public struct ItemIdentity: Sendable, Hashable {
    /// The full 32-byte HMAC.
    public let digest: Data
    /// The row UUID derived from `digest`, under which the item lives on the server.
    public let rowID: UUID

    /// Computes the identity of an item of class `itemClass` with `attributes`.
    ///
    /// - Parameters:
    ///   - itemClass: The item's class; identities (a key joined with a certificate) are not stored items.
    ///   - attributes: The item's attributes (those outside the primary key are ignored).
    ///   - keys: The keychain's sync keys.
    /// - Throws: `SyncError.unsyncableItem` for `.identity`.
    package init(
        of itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        keys: SyncKeys
    ) throws(SyncError) {
        guard itemClass != .identity else {
            throw SyncError.unsyncableItem("an identity is a key and a certificate; sync each of them")
        }
        var encoding = Data("latchkey-sync-identity-v1".utf8)
        let code = Data(itemClass.rawValue.utf8)
        encoding.append(UInt8(code.count))
        encoding.append(code)
        let schema = ItemSchema.of(itemClass)
        encoding.appendBigEndian(UInt16(schema.primaryKey.count))
        for name in schema.primaryKey {
            let value = attributes[name] ?? schema.attributes[name]?.primaryKeyFallback ?? .string("")
            let nameBytes = Data(name.rawValue.utf8)
            encoding.append(UInt8(nameBytes.count))
            encoding.append(nameBytes)
            let canonical = value.canonicalBytes
            encoding.appendBigEndian(UInt32(canonical.count))
            encoding.append(canonical)
        }
        let mac = HMAC<SHA256>.authenticationCode(for: encoding, using: keys.identityKey)
        var digest = Data(mac)
        self.digest = digest
        digest[6] = (digest[6] & 0x0F) | 0x80
        digest[8] = (digest[8] & 0x3F) | 0x80
        rowID = UUID(bytes: digest.prefix(16))
    }

    /// Computes the identity of an item (see `init(of:attributes:keys:)`), as a `KeychainError`.
    ///
    /// - Parameters:
    ///   - itemClass: The item's class (not `.identity`).
    ///   - attributes: The item's attributes.
    ///   - keys: The keychain's sync keys.
    /// - Throws: `KeychainError.Code.param` for `.identity`.
    public init(
        itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        keys: SyncKeys
    ) throws(KeychainError) {
        do {
            try self.init(of: itemClass, attributes: attributes, keys: keys)
        } catch {
            throw error.keychainError
        }
    }
}
