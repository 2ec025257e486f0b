import Foundation

/// What the keychain knows about an item besides its secret: dates, label, comment, accessibility.
///
/// Reading metadata decrypts the item's attributes but never its secret. Like `AttributeValue`, the
/// `description` prints no attribute value.
public struct KeychainItemMetadata: Sendable, Hashable, CustomStringConvertible {
    /// When the item was created (`kSecAttrCreationDate`).
    public var creationDate: Date?
    /// When the item last changed (`kSecAttrModificationDate`); strictly increases on every update.
    public var modificationDate: Date?
    /// The label (`kSecAttrLabel`), if any.
    public var label: String?
    /// The comment (`kSecAttrComment`), if any.
    public var comment: String?
    /// When the item is readable (`kSecAttrAccessible`).
    public var accessibility: Accessibility?
    /// The item's access group (`kSecAttrAccessGroup`).
    public var accessGroup: String?
    /// Whether the item is synchronizable (`kSecAttrSynchronizable`).
    public var isSynchronizable: Bool
    /// The 20-byte persistent reference (usable with the `Security` module's `kSecValuePersistentRef`).
    public var persistentReference: Data

    /// Reads the metadata of a found item.
    init(_ item: FoundItem) {
        self.init(attributes: item.attributes, persistentReference: item.persistentReference)
    }

    /// Reads the metadata of an item's attributes.
    init(attributes: [AttributeName: AttributeValue], persistentReference: Data) {
        creationDate = attributes[.creationDate]?.dateValue
        modificationDate = attributes[.modificationDate]?.dateValue
        label = Self.text(attributes[.label])
        comment = Self.text(attributes[.comment])
        accessibility = attributes[.accessible]?.stringValue.flatMap(Accessibility.init(rawValue:))
        accessGroup = attributes[.accessGroup]?.stringValue
        isSynchronizable = attributes[.synchronizable]?.boolValue ?? false
        self.persistentReference = persistentReference
    }

    static func text(_ value: AttributeValue?) -> String? {
        switch value {
        case .string(let text): text
        case .data(let bytes): String(data: bytes, encoding: .utf8)
        default: nil
        }
    }

    /// The accessibility and sync flag only.
    public var description: String {
        "KeychainItemMetadata(accessibility: \(accessibility.map { "\($0)" } ?? "unknown"), "
            + "synchronizable: \(isSynchronizable))"
    }
}

/// One key of a `Keychain` with its metadata, as `Keychain.items()` lists them.
///
/// Metadata fields are reachable directly: `item.modificationDate`, `item.label`.
@dynamicMemberLookup
public struct KeychainItemInfo: Sendable, Hashable, CustomStringConvertible {
    /// The key (the item's account).
    public var key: String
    /// Dates, label, comment, accessibility, group, sync flag.
    public var metadata: KeychainItemMetadata

    /// Makes an item description.
    public init(key: String, metadata: KeychainItemMetadata) {
        self.key = key
        self.metadata = metadata
    }

    /// A metadata field.
    public subscript<T>(dynamicMember path: KeyPath<KeychainItemMetadata, T>) -> T { metadata[keyPath: path] }

    /// The metadata's description; the key is not printed.
    public var description: String { "KeychainItemInfo(\(metadata))" }
}
