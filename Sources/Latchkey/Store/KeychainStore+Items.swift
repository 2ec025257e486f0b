import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

extension KeychainStore {
    /// A decrypted row.
    struct OpenedRow {
        var row: ItemRow
        var keyClass: Accessibility
        var attributes: [AttributeName: AttributeValue]
        var secret: SecretData?
    }

    /// Adds an item, applying Apple's defaults (access group, accessibility, dates, empty primary-key
    /// values) and uniqueness rules.
    ///
    /// - Parameters:
    ///   - itemClass: A storable class (not `.identity`).
    ///   - attributes: The item's attributes; values are coerced to the class's kinds.
    ///   - data: The secret, or `nil` for an item without data.
    /// - Returns: The stored item (all attributes, the secret, the persistent reference).
    /// - Throws: `duplicateItem` (-25299) when the primary key exists; `interactionNotAllowed` (-25308) when
    ///   the item's class key is locked; `noSuchAttribute`, `param`, `missingEntitlement` for bad input.
    @discardableResult
    public func add(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?
    ) throws(KeychainError) -> FoundItem {
        let added = try transaction { try $0.add(itemClass, attributes: attributes, data: data) }
        options.logger.debug("item added", metadata: ["class": "\(itemClass.rawValue)"])
        return added
    }

    /// Finds items matching `query`, in insertion order.
    ///
    /// - Parameters:
    ///   - limit: How many to return (default one).
    ///   - withData: Whether to decrypt and return each item's secret.
    /// - Returns: At least one item.
    /// - Throws: `itemNotFound` (-25300) when nothing matches (never an empty array);
    ///   `interactionNotAllowed` (-25308) when any matching row's class is locked; `decode` (-26275) when
    ///   every match is corrupt or tampered (corrupt rows are skipped when others match).
    public func find(
        _ query: ItemQuery,
        limit: MatchLimit = .one,
        withData: Bool = false
    ) throws(KeychainError)
        -> [FoundItem]
    {
        let plan = try plan(query)
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let filter = try rowFilter(plan, tokens: tokens, limit: plan.fullyIndexed ? limit.rowLimit : nil)
        var (opened, corrupt) = try mappingErrors {
            try storage.read { reader in
                try self.openRows(reader: reader, plan: plan, filter: filter, withSecret: withData, snapshot)
            }
        }
        if corrupt > 0, filter.limit != nil {
            var unlimited = filter
            unlimited.limit = nil
            (opened, corrupt) = try mappingErrors {
                try storage.read { reader in
                    try self.openRows(reader: reader, plan: plan, filter: unlimited, withSecret: withData, snapshot)
                }
            }
        }
        if let rowLimit = limit.rowLimit, opened.count > rowLimit { opened.removeLast(opened.count - rowLimit) }
        if opened.isEmpty {
            if corrupt > 0 {
                throw KeychainError(.decode, "The matching item failed authentication (corrupt or tampered).")
            }
            throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
        }
        return opened.map {
            FoundItem(
                itemClass: plan.itemClass,
                attributes: $0.attributes,
                data: $0.secret,
                persistentReference: Self.persistentReference(plan.itemClass, $0.row.persistref)
            )
        }
    }

    /// The first item matching `query` (see `find`).
    public func findOne(_ query: ItemQuery, withData: Bool = false) throws(KeychainError) -> FoundItem {
        guard let first = try find(query, limit: .one, withData: withData).first else {
            throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
        }
        return first
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
    public func update(_ query: ItemQuery, with changes: ItemChanges) throws(KeychainError) -> Int {
        let count = try transaction { try $0.updateAll(query, with: changes) }
        guard count > 0 else {
            throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
        }
        options.logger.debug(
            "items updated",
            metadata: ["class": "\(query.itemClass?.rawValue ?? "?")", "count": "\(count)"]
        )
        return count
    }

    /// Deletes every item matching `query`; synchronizable items leave a tombstone, as on Apple's keychain.
    ///
    /// - Returns: The number of items deleted (at least one).
    /// - Throws: `itemNotFound` when nothing matches; `interactionNotAllowed` when a match is locked.
    @discardableResult
    public func delete(_ query: ItemQuery) throws(KeychainError) -> Int {
        let count = try transaction { try $0.deleteAll(query) }
        guard count > 0 else {
            throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
        }
        options.logger.debug(
            "items deleted",
            metadata: ["class": "\(query.itemClass?.rawValue ?? "?")", "count": "\(count)"]
        )
        return count
    }
}
