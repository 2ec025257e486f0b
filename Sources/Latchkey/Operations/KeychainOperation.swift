import Foundation
import LatchkeyCrypto

/// One request to a keychain: the whole vocabulary every face (the Apple `SecItem*` calls, the typed
/// `Keychain`, the CLI, the token manager) speaks to the core.
///
/// A value of this type is `Sendable`, `Hashable` and `Codable`, so the same request is executed in
/// process by `KeychainStore` or carried over a socket to an agent (`KeychainWireCodec`). Every item rule
/// (defaults, uniqueness, matching, identities, access control, corrupt rows) is decided by the executor,
/// never by the face that builds the request.
public enum KeychainOperation: Sendable, Hashable, Codable {
    /// Adds one item (Apple's defaults, then uniqueness). Answers `.items([added])`.
    case add(NewItem)
    /// Adds several items all or nothing (a key pair; an identity's certificate and key with
    /// `tolerateExisting`). Answers `.items(added)`.
    case addAll([NewItem], tolerateExisting: Bool)
    /// Adds the item, or updates the exact live item an add would collide with (its search tags replaced by the
    /// new item's when it has some, else kept). Answers `.items([item])`.
    case upsert(NewItem)
    /// Updates the first live item matching `match` with `changes`, or adds `otherwise` when none matches,
    /// in one transaction (the typed API's `set`). Answers `.items([item])`.
    case updateFirstOrAdd(match: ItemQuery, changes: ItemChanges, otherwise: NewItem)
    /// Adds an archived item keeping its creation and modification dates; a live item with the same
    /// primary key is replaced only when asked. Answers `.restored`.
    case restore(NewItem, replacingExisting: Bool)
    /// Finds items. Answers `.items` (at least one) or throws `itemNotFound`.
    case find(FindRequest)
    /// Whether an item matches (from the search tokens alone when possible). Answers `.exists`.
    case exists(ItemQuery)
    /// Updates every match, all or nothing. Answers `.count` (at least one).
    case update(UpdateRequest)
    /// Deletes matches (synchronizable items leave tombstones). Answers `.count` (at least one).
    case delete(DeleteRequest)
    /// Runs operations in one transaction, all or nothing. A delete inside a batch that matches nothing
    /// answers `.count(0)` instead of failing. Answers `.batch` with one outcome per operation.
    indirect case batch([KeychainOperation])
    /// The lock state. Answers `.lockState`.
    case lockState
    /// Unlocks with a credential. Answers `.lockState`.
    case unlock(UnlockCredential)
    /// Locks (`WhenUnlocked` classes become unavailable). Answers `.lockState`.
    case lock
    /// The caller's access groups, in order. Answers `.accessGroups`.
    case accessGroups
    /// The change counter every committed item change bumps. Answers `.changeCounter`.
    case changeCounter
    /// The caller's items of one class whose stored rows fail authentication (damaged or tampered), named by
    /// class and persistent reference (`KeychainStore.damagedItems(_:includingSecrets:)`): what a backup or a
    /// dump asks before it reads everything. Answers `.damagedItems`.
    case damagedItems(ItemClass, includingSecrets: Bool)
    /// Checks the file, every item the lock state opens and the row ledger (`KeychainStore.verifyIntegrity()`);
    /// with `acceptingCurrentState`, then seals the rows as they are now (`KeychainStore.acceptCurrentRows()`).
    /// Answers `.integrity` with the report made before sealing.
    case verifyIntegrity(acceptingCurrentState: Bool)
    /// Replaces the passphrase (`new` is a `.passphrase`) or the key-file slot (a `.keyFile`) once `current` has
    /// unlocked the keychain, so that a client of an unlocked agent cannot change it without the credential.
    /// Answers `.lockState`.
    case changeCredential(current: UnlockCredential, new: UnlockCredential)
}

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

/// What the caller has done about items whose secret needs user authentication (`accc` with a
/// user-presence, passcode or biometry constraint).
public enum AuthenticationPolicy: String, Sendable, Hashable, Codable {
    /// Fail with `interactionRequired` (-25315) when a protected item's secret would be read or
    /// rewritten; the caller then authenticates the user and repeats the request with `.confirmed`.
    case ask
    /// Leave protected items out (Apple's `kSecUseAuthenticationUISkip`).
    case skip
    /// Fail with `interactionNotAllowed` (Apple's `kSecUseAuthenticationUIFail`).
    case fail
    /// The caller authenticated the user for this request.
    case confirmed
}

/// The reuse duration of the user-presence confirmation that requests made in a scope carry
/// (`FindRequest.authenticationReuse`, `UpdateRequest.authenticationReuse`).
///
/// The Apple face binds it from the request's `LAContext` around its calls, so a request built deeper
/// down carries it without every call site passing it:
///
/// ```swift
/// try AuthenticationReuse.$duration.withValue(context.touchIDAuthenticationAllowableReuseDuration) {
///     try service.findOne(query, withData: true, authentication: .ask)
/// }
/// ```
public enum AuthenticationReuse {
    /// The duration in seconds, or `nil` outside a scope.
    @TaskLocal public static var duration: TimeInterval?
}

/// What a search does with rows that fail authentication (corrupt or tampered).
public enum CorruptRowPolicy: String, Sendable, Hashable, Codable {
    /// Skip them; when every match is corrupt, nothing was found (`itemNotFound`), as Apple does.
    case skip
    /// Skip them while others match; when every match is corrupt, fail with `decode` (-26275).
    case report
}

/// A search: which items, how many, with or without their secrets.
public struct FindRequest: Sendable, Hashable, Codable {
    /// Which items.
    public var query: ItemQuery
    /// How many (default one).
    public var limit: MatchLimit
    /// Whether to decrypt and return secrets.
    public var withData: Bool
    /// What to do with items whose secret needs user authentication (only when `withData`).
    public var authentication: AuthenticationPolicy
    /// What to do with corrupt rows.
    public var corruptRows: CorruptRowPolicy
    /// How many seconds an earlier confirmation of the user's presence may be reused for this request
    /// (`LAContext.touchIDAuthenticationAllowableReuseDuration`, at most 300), or `nil` for none. Only the
    /// agent, which confirms presence itself, reads it; it defaults to `AuthenticationReuse.duration`.
    public var authenticationReuse: TimeInterval?
    /// Whether to read each match's search tags back from its encrypted record (`FoundItem.searchTags`):
    /// what a backup or a migration asks, so that copies keep their tags. Off by default; a search without it
    /// never decodes the tags' text.
    public var withSearchTags: Bool
    /// Whether to answer from the search index alone: each match's persistent reference and class, no
    /// attributes, no secret, no record opened. It needs only the index key, so it works while the keychain is
    /// locked when the device secret opens that key (a locked Secret Service lists its items this way). Every
    /// filter must have a token column, or be a search tag; as no record is opened, a tag is taken from the
    /// index without the check against the record's sealed copy, so a row added to the file can add a
    /// candidate: open each one (once unlocked) and check it before trusting it. Not with `withData`,
    /// `withSearchTags`, identities or `hostOrSubdomain` (`param`, -50).
    public var referencesOnly: Bool

    /// Makes a search.
    ///
    /// - Parameters:
    ///   - query: Which items.
    ///   - limit: How many (default one).
    ///   - withData: Whether to decrypt and return secrets.
    ///   - authentication: What to do with items whose secret needs user authentication.
    ///   - corruptRows: What to do with corrupt rows.
    ///   - authenticationReuse: How long an earlier presence confirmation may be reused.
    ///   - withSearchTags: Whether to return each match's search tags (`FoundItem.searchTags`).
    ///   - referencesOnly: Whether to answer with persistent references from the index alone.
    public init(
        _ query: ItemQuery,
        limit: MatchLimit = .one,
        withData: Bool = false,
        authentication: AuthenticationPolicy = .fail,
        corruptRows: CorruptRowPolicy = .report,
        authenticationReuse: TimeInterval? = AuthenticationReuse.duration,
        withSearchTags: Bool = false,
        referencesOnly: Bool = false
    ) {
        self.query = query
        self.limit = limit
        self.withData = withData
        self.authentication = authentication
        self.corruptRows = corruptRows
        self.authenticationReuse = authenticationReuse
        self.withSearchTags = withSearchTags
        self.referencesOnly = referencesOnly
    }
}

/// An update: which items and what changes.
public struct UpdateRequest: Sendable, Hashable, Codable {
    /// Which items.
    public var query: ItemQuery
    /// The new attribute values and secret.
    public var changes: ItemChanges
    /// What the caller has done about items whose secret needs user authentication.
    public var authentication: AuthenticationPolicy
    /// As `FindRequest.authenticationReuse`.
    public var authenticationReuse: TimeInterval?

    /// Makes an update.
    public init(
        _ query: ItemQuery,
        changes: ItemChanges,
        authentication: AuthenticationPolicy = .fail,
        authenticationReuse: TimeInterval? = AuthenticationReuse.duration
    ) {
        self.query = query
        self.changes = changes
        self.authentication = authentication
        self.authenticationReuse = authenticationReuse
    }
}

/// A delete: which items, and how many of them.
public struct DeleteRequest: Sendable, Hashable, Codable {
    /// Which items.
    public var query: ItemQuery
    /// `.all` (Apple's `SecItemDelete`) or `.one` (the first match, `security delete-*-password`).
    public var limit: MatchLimit

    /// Makes a delete.
    public init(_ query: ItemQuery, limit: MatchLimit = .all) {
        self.query = query
        self.limit = limit
    }
}
