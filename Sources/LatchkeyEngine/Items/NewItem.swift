import Foundation
import LatchkeyCrypto

/// An item to add: class, attributes and secret.
public struct NewItem: Sendable, Hashable {
    /// A storable class (`.identity` is added as its certificate and key with `.addAll`).
    public var itemClass: ItemClass
    /// The item's attributes; the core coerces values to the class's kinds and applies defaults.
    public var attributes: [AttributeName: AttributeValue]
    /// The secret, or `nil` for an item without data.
    public var data: SecretData?
    /// Search tags to find the item by (`ItemQuery.searchTags`): opaque strings, indexed only as keyed
    /// tokens; their text is sealed in the item's encrypted record and returned only when a find asks
    /// (`FindRequest.withSearchTags`, for backups and migrations). Duplicates (same UTF-8 bytes) count once.
    public var searchTags: [String]

    /// Makes an item to add.
    ///
    /// - Parameters:
    ///   - itemClass: A storable class.
    ///   - attributes: The item's attributes.
    ///   - data: The secret, or `nil` for an item without data.
    ///   - searchTags: Tags to find the item by (generic passwords only).
    public init(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData? = nil,
        searchTags: [String] = []
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.searchTags = searchTags
    }
}
