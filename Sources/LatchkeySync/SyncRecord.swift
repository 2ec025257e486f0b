import Foundation
import Latchkey

/// What a row carries, in plaintext before sealing: one item's class, attributes and secret, the hybrid
/// logical clock's reading of the edit, and whether the item was deleted.
///
/// A tombstone keeps the item's primary-key attributes (its identity is computed from them) and no secret.
/// `description` names the class and counts only: attribute values and the secret never reach a log.
public struct SyncRecord: Sendable, Equatable, CustomStringConvertible {
    /// The item's class (not `.identity`).
    public var itemClass: ItemClass
    /// The item's attributes, as the engine stores them (defaults included).
    public var attributes: [AttributeName: AttributeValue]
    /// The item's secret; `nil` for an item without data and for a tombstone.
    public var secret: SecretData?
    /// When the edit was made, by whom (the edit with the later timestamp wins).
    public var timestamp: HLCTimestamp
    /// Whether this edit deleted the item.
    public var isTombstone: Bool

    /// Makes a record.
    ///
    /// - Parameters:
    ///   - itemClass: The item's class.
    ///   - attributes: Its attributes.
    ///   - secret: Its secret, if any.
    ///   - timestamp: The edit's reading of the machine's `HybridLogicalClock`.
    ///   - isTombstone: Whether the edit deleted the item.
    public init(
        itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        secret: SecretData?,
        timestamp: HLCTimestamp,
        isTombstone: Bool = false
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
        self.timestamp = timestamp
        self.isTombstone = isTombstone
    }

    /// The class, the number of attributes and whether there is a secret; never a value.
    public var description: String {
        "SyncRecord(\(itemClass.rawValue), \(attributes.count) attributes, "
            + "\(secret == nil ? "no secret" : "secret redacted"), \(isTombstone ? "tombstone, " : "")\(timestamp))"
    }
}
