import Foundation
import LatchkeyCrypto

/// A synchronizable item as sync sends and applies it: its class, every stored attribute, its secret, and
/// whether it is a deleted item's tombstone.
package struct SyncedItem: Sendable, Equatable {
    /// The item's class.
    package var itemClass: ItemClass
    /// Every stored attribute (defaults and dates included).
    package var attributes: [AttributeName: AttributeValue]
    /// The secret; `nil` for an item without data and for a tombstone.
    package var secret: SecretData?
    /// Whether the item is a tombstone.
    package var isTombstone: Bool

    package init(
        itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        secret: SecretData?,
        isTombstone: Bool
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.secret = secret
        self.isTombstone = isTombstone
    }
}
