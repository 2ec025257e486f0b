import Foundation

/// Which items an operation applies to: a class plus an AND of attribute equalities.
///
/// As in Apple's keychain, matching is exact and case-sensitive, a String and a Data of the same bytes
/// are equal, synchronizable items are left out unless asked for, and the search covers every access
/// group of the caller unless one is named.
public struct ItemQuery: Sendable, Hashable, Codable {
    /// How the implicit `sync = 0` filter applies.
    public enum Synchronizable: String, Sendable, Hashable, Codable {
        /// Only items with `sync = 0` (the default when the attributes do not name `sync`).
        case no
        /// Only synchronizable items.
        case yes
        /// Both (Apple's `kSecAttrSynchronizableAny`).
        case any
    }

    /// The item class; may be `nil` only when `persistentReference` names the item.
    public var itemClass: ItemClass?
    /// Attribute equalities (values are coerced to the class's kinds before matching).
    public var attributes: [AttributeName: AttributeValue]
    /// The synchronizable filter; an explicit `sync` attribute overrides `.no`.
    public var synchronizable: Synchronizable
    /// A 20-byte persistent reference selecting one item.
    public var persistentReference: Data?
    /// Whether tombstones (deleted synchronizable items) are visible.
    public var includeTombstones: Bool
    /// Internet passwords only: keep items whose server is this host or one of its sub-domains
    /// (Apple's `kSecMatchHostOrSubdomainOfHost`).
    public var hostOrSubdomain: String?
    /// Identities only: the one identity made of this certificate and private key (`kSecValueRef`).
    public var identity: IdentityReference?

    /// Makes a query.
    ///
    /// - Parameters:
    ///   - itemClass: The class to search.
    ///   - attributes: Attribute equalities.
    ///   - synchronizable: The synchronizable filter (default `.no`).
    ///   - persistentReference: Restrict to one item.
    ///   - includeTombstones: Whether deleted synchronizable items are visible.
    ///   - hostOrSubdomain: Internet passwords whose server is this host or a sub-domain of it.
    ///   - identity: The identity made of one certificate and private key.
    public init(
        _ itemClass: ItemClass?,
        attributes: [AttributeName: AttributeValue] = [:],
        synchronizable: Synchronizable = .no,
        persistentReference: Data? = nil,
        includeTombstones: Bool = false,
        hostOrSubdomain: String? = nil,
        identity: IdentityReference? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.synchronizable = synchronizable
        self.persistentReference = persistentReference
        self.includeTombstones = includeTombstones
        self.hostOrSubdomain = hostOrSubdomain
        self.identity = identity
    }
}

/// How many matches a search returns.
public enum MatchLimit: Sendable, Hashable, Codable {
    /// At most one (the default for searches).
    case one
    /// Every match.
    case all
    /// At most `n`.
    case count(Int)

    /// The number of results asked for; `nil` for all.
    public var rowLimit: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let count): max(count, 0)
        }
    }
}

/// One item as a search returns it.
public struct FoundItem: Sendable, Hashable {
    /// The item's class.
    public var itemClass: ItemClass
    /// Every stored attribute with its stored kind (defaults included).
    public var attributes: [AttributeName: AttributeValue]
    /// The secret, when requested and present (`nil` when the item has no data).
    public var data: SecretData?
    /// The 20-byte persistent reference: class code + the item's 16-byte persistent id.
    public var persistentReference: Data

    /// Makes a result value.
    public init(
        itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        persistentReference: Data
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.persistentReference = persistentReference
    }
}

/// A change to apply to matching items.
public struct ItemChanges: Sendable, Hashable {
    /// New attribute values.
    public var attributes: [AttributeName: AttributeValue]
    /// A new secret, or `nil` to keep each item's secret.
    public var data: SecretData?

    /// Makes a change set.
    public init(attributes: [AttributeName: AttributeValue] = [:], data: SecretData? = nil) {
        self.attributes = attributes
        self.data = data
    }
}
