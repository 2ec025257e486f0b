import Foundation
import LatchkeyCrypto

/// Typed conveniences that build `KeychainOperation`s; every face calls these (or `perform` directly).
extension KeychainService {
    /// Adds an item, applying Apple's defaults (access group, accessibility, dates, empty primary-key
    /// values) and uniqueness rules.
    ///
    /// - Parameter searchTags: Tags to find the item by (`NewItem.searchTags`; returned only when a find asks).
    /// - Returns: The stored item (all attributes, the secret, the persistent reference).
    /// - Throws: `duplicateItem` (-25299) when the primary key exists; `interactionNotAllowed` (-25308) when
    ///   the item's class key is locked; `noSuchAttribute`, `param`, `missingEntitlement` for bad input.
    @discardableResult
    public func add(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        searchTags: [String] = []
    ) throws(KeychainError) -> FoundItem {
        try single(
            perform(.add(NewItem(itemClass, attributes: attributes, data: data, searchTags: searchTags))).items()
        )
    }

    /// Adds the item, or, when a live item has the same primary key, updates exactly that item with the
    /// given attributes and secret, in one transaction (never `duplicateItem`).
    ///
    /// - Parameter searchTags: The item's search tags (replacing an updated item's tags).
    /// - Returns: The item as stored.
    @discardableResult
    public func upsert(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        searchTags: [String] = []
    ) throws(KeychainError) -> FoundItem {
        try single(
            perform(.upsert(NewItem(itemClass, attributes: attributes, data: data, searchTags: searchTags))).items()
        )
    }

    /// Finds items matching `query`, in insertion order.
    ///
    /// - Parameters:
    ///   - limit: How many to return (default one).
    ///   - withData: Whether to decrypt and return each item's secret.
    ///   - authentication: What to do with items whose secret needs user authentication (default: fail).
    /// - Returns: At least one item.
    /// - Throws: `itemNotFound` (-25300) when nothing matches (never an empty array);
    ///   `interactionNotAllowed` (-25308) when any matching row's class is locked; `decode` (-26275) when
    ///   every match is corrupt or tampered (corrupt rows are skipped when others match).
    public func find(
        _ query: ItemQuery,
        limit: MatchLimit = .one,
        withData: Bool = false,
        authentication: AuthenticationPolicy = .fail
    ) throws(KeychainError) -> [FoundItem] {
        try perform(.find(FindRequest(query, limit: limit, withData: withData, authentication: authentication)))
            .items()
    }

    /// The first item matching `query` (see `find`).
    public func findOne(
        _ query: ItemQuery,
        withData: Bool = false,
        authentication: AuthenticationPolicy = .fail
    ) throws(KeychainError) -> FoundItem {
        try single(find(query, limit: .one, withData: withData, authentication: authentication))
    }

    /// Every item matching `query` (see `find`), or an empty array instead of `itemNotFound`.
    public func findAll(_ query: ItemQuery, withData: Bool = false) throws(KeychainError) -> [FoundItem] {
        do {
            return try find(query, limit: .all, withData: withData)
        } catch {
            guard error.code == .itemNotFound else { throw error }
            return []
        }
    }

    /// The first item matching `query`, or `nil` instead of `itemNotFound`.
    public func findFirst(_ query: ItemQuery, withData: Bool = false) throws(KeychainError) -> FoundItem? {
        do {
            return try findOne(query, withData: withData)
        } catch {
            guard error.code == .itemNotFound else { throw error }
            return nil
        }
    }

    /// Whether an item matches `query`, answered from the search tokens alone when every filter has a
    /// token column (no class key needed, so it works while the item's class is locked).
    public func exists(_ query: ItemQuery) throws(KeychainError) -> Bool {
        try perform(.exists(query)).exists()
    }

    /// Updates every item matching `query`, all or nothing, in one transaction.
    ///
    /// The modification date strictly increases; changing the accessibility re-encrypts under the new
    /// class key; moving an item onto another item's primary key fails with `duplicateItem` and changes
    /// nothing.
    ///
    /// - Returns: The number of items updated (at least one).
    /// - Throws: `itemNotFound` when nothing matches; `duplicateItem`; `interactionNotAllowed`.
    @discardableResult
    public func update(
        _ query: ItemQuery,
        with changes: ItemChanges,
        authentication: AuthenticationPolicy = .fail
    ) throws(KeychainError) -> Int {
        try perform(.update(UpdateRequest(query, changes: changes, authentication: authentication))).count()
    }

    /// Deletes items matching `query` (every match, or the first with `limit: .one`); synchronizable items
    /// leave a tombstone, as on Apple's keychain.
    ///
    /// - Returns: The number of items deleted (at least one).
    /// - Throws: `itemNotFound` when nothing matches; `interactionNotAllowed` when a match is locked.
    @discardableResult
    public func delete(_ query: ItemQuery, limit: MatchLimit = .all) throws(KeychainError) -> Int {
        try perform(.delete(DeleteRequest(query, limit: limit))).count()
    }

    /// Runs `operations` in one transaction, all or nothing (see `KeychainOperation.batch`).
    public func batch(_ operations: [KeychainOperation]) throws(KeychainError) -> [KeychainOutcome] {
        try perform(.batch(operations)).batch()
    }

    /// The caller's access groups, in order (the first is where new items go).
    public func callerAccessGroups() throws(KeychainError) -> [String] {
        try perform(.accessGroups).accessGroups()
    }

    private func single(_ items: [FoundItem]) throws(KeychainError) -> FoundItem {
        guard let first = items.first else {
            throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
        }
        return first
    }
}
