import Foundation
import LatchkeyCrypto

/// Which items an operation applies to: a class plus an AND of attribute equalities.
///
/// As in Apple's keychain, matching is exact and case-sensitive, a String and a Data of the same bytes
/// are equal, synchronizable items are left out unless asked for, and the search covers every access
/// group of the caller unless one is named.
public struct ItemQuery: Sendable, Hashable {
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
    /// Search tags every returned item must carry (an AND; default none): opaque strings the caller gave
    /// the items with `NewItem.searchTags` or `ItemChanges.searchTags`.
    ///
    /// Generic passwords only (other classes fail with `param`, -50). The search is driven by the
    /// keychain's tag index (keyed tokens, never the tags' text), so it decrypts only the items carrying
    /// every tag. Tags are returned only when a find asks (`FindRequest.withSearchTags`), and a tag index row an attacker adds to the file cannot make a
    /// search return an item that was not given the tag (each item's tag tokens are also sealed inside its
    /// encrypted record and checked); removing rows can only hide items from a tag search. For the same
    /// reason `exists` with tags opens the matching items (it needs their class keys).
    public var searchTags: [String]

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
    ///   - searchTags: Tags every returned item must carry (generic passwords only).
    public init(
        _ itemClass: ItemClass?,
        attributes: [AttributeName: AttributeValue] = [:],
        synchronizable: Synchronizable = .no,
        persistentReference: Data? = nil,
        includeTombstones: Bool = false,
        hostOrSubdomain: String? = nil,
        identity: IdentityReference? = nil,
        searchTags: [String] = []
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.synchronizable = synchronizable
        self.persistentReference = persistentReference
        self.includeTombstones = includeTombstones
        self.hostOrSubdomain = hostOrSubdomain
        self.identity = identity
        self.searchTags = searchTags
    }
}

/// How many matches a search returns.
public enum MatchLimit: Sendable, Hashable {
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
    /// The item's search tags, only when the search asked for them (`FindRequest.withSearchTags`): `[]` for
    /// an item without tags, `nil` when not asked, and `nil` for an item whose tags were written before their
    /// text was kept in its record (it has keyed tokens only, which cannot be turned back into tags).
    public var searchTags: [String]?

    /// Makes a result value.
    ///
    /// - Parameters:
    ///   - itemClass: The item's class.
    ///   - attributes: Every stored attribute.
    ///   - data: The secret, when requested and present.
    ///   - persistentReference: The 20-byte persistent reference.
    ///   - searchTags: The item's search tags, when asked for (see `searchTags`).
    public init(
        itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        persistentReference: Data,
        searchTags: [String]? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.data = data
        self.persistentReference = persistentReference
        self.searchTags = searchTags
    }
}

/// A change to apply to matching items.
public struct ItemChanges: Sendable, Hashable {
    /// New attribute values.
    public var attributes: [AttributeName: AttributeValue]
    /// A new secret, or `nil` to keep each item's secret.
    public var data: SecretData?
    /// The items' new search tags (replacing all of their tags; `[]` removes them), or `nil` to keep each
    /// item's tags. Generic passwords only (see `ItemQuery.searchTags`).
    public var searchTags: [String]?

    /// Makes a change set.
    ///
    /// - Parameters:
    ///   - attributes: New attribute values.
    ///   - data: A new secret, or `nil` to keep each item's secret.
    ///   - searchTags: New search tags replacing the items' tags, or `nil` to keep them.
    public init(
        attributes: [AttributeName: AttributeValue] = [:],
        data: SecretData? = nil,
        searchTags: [String]? = nil
    ) {
        self.attributes = attributes
        self.data = data
        self.searchTags = searchTags
    }
}
