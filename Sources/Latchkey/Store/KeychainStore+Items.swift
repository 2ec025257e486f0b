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
        let (table, schema) = try tableAndSchema(itemClass)
        var values = try schema.coerce(attributes)
        values[.sha1] = nil
        values["UUID"] = nil
        if let group = values[.accessGroup]?.stringValue {
            try checkAccessGroup(group)
        } else {
            guard let first = options.accessGroups.first else { throw missingGroups() }
            values[.accessGroup] = .string(first)
        }
        if values[.accessible] == nil {
            values[.accessible] = .string(itemClass == .certificate ? Accessibility.always.rawValue : Accessibility.whenUnlocked.rawValue)
        }
        for (name, spec) in schema.attributes where values[name] == nil {
            if let value = spec.defaultValue { values[name] = value }
        }
        let now = AttributeValue.date(Date())
        values[.creationDate] = now
        values[.modificationDate] = now
        values[.sha1] = .data(ItemCrypto.digest(values, secret: data))
        guard let code = values[.accessible]?.stringValue, let keyClass = Accessibility(rawValue: code) else {
            throw KeychainError(.param, "Invalid accessibility value.")
        }
        if keyClass == .whenPasscodeSetThisDeviceOnly, try !hasPassphrase() {
            throw KeychainError(.authFailed, "Items accessible 'whenPasscodeSetThisDeviceOnly' need a keychain with a passphrase.")
        }
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let classKey = try classKey(keyClass, snapshot)
        let persistref = SecureRandom.bytes(16)
        let row = try ItemCrypto.seal(
            table: table,
            persistref: persistref,
            attributes: values,
            secret: data,
            classKey: classKey,
            tokens: tokens,
            schema: schema
        )
        try write { writer in
            do {
                try writer.insert(row, into: table)
            } catch StorageError.uniqueViolation {
                // A tombstone or an undecryptable row under the same primary key is replaced; a live item is a duplicate.
                let existing = try writer.reader.select(
                    from: table,
                    where: RowFilter(primaryKey: row.primaryKey),
                    includeSecret: false
                )
                guard let old = existing.first, let oldID = old.id, try self.isReplaceable(old, table, tokens, snapshot)
                else {
                    throw KeychainError(.duplicateItem, "The specified item already exists in the keychain.")
                }
                try writer.delete(id: oldID, from: table)
                try writer.insert(row, into: table)
            }
            try writer.bumpChangeCounter()
        }
        options.logger.debug("item added", metadata: ["class": "\(itemClass.rawValue)"])
        return FoundItem(
            itemClass: itemClass,
            attributes: values,
            data: data,
            persistentReference: Self.persistentReference(itemClass, persistref)
        )
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
    public func find(_ query: ItemQuery, limit: MatchLimit = .one, withData: Bool = false) throws(KeychainError)
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
        let plan = try plan(query)
        let schema = plan.schema
        var newValues = try schema.coerce(changes.attributes)
        newValues[.multiUser] = nil
        for name: AttributeName in [.creationDate, .modificationDate, .sha1, "UUID"] { newValues[name] = nil }
        if let group = newValues[.accessGroup]?.stringValue { try checkAccessGroup(group) }
        if newValues[.accessible]?.stringValue == Accessibility.whenPasscodeSetThisDeviceOnly.rawValue,
            try !hasPassphrase()
        {
            throw KeychainError(
                .authFailed,
                "Items accessible 'whenPasscodeSetThisDeviceOnly' need a keychain with a passphrase."
            )
        }
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        if let code = newValues[.accessible]?.stringValue, let keyClass = Accessibility(rawValue: code) {
            _ = try classKey(keyClass, snapshot)
        }
        let filter = try rowFilter(plan, tokens: tokens, limit: nil)
        let count = try write { writer in
            let (opened, _) = try self.openRows(reader: writer.reader, plan: plan, filter: filter, withSecret: true, snapshot)
            guard !opened.isEmpty else {
                throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
            }
            for item in opened {
                var values = item.attributes
                values.merge(newValues) { _, new in new }
                let secret = changes.data ?? item.secret
                let oldDate = item.attributes[.modificationDate]?.dateValue ?? .distantPast
                values[.modificationDate] = .date(max(Date(), oldDate.addingTimeInterval(0.001)))
                values[.sha1] = .data(ItemCrypto.digest(values, secret: secret))
                guard let code = values[.accessible]?.stringValue, let keyClass = Accessibility(rawValue: code) else {
                    throw KeychainError(.param, "Invalid accessibility value.")
                }
                var row = try ItemCrypto.seal(
                    table: plan.table,
                    persistref: item.row.persistref,
                    attributes: values,
                    secret: secret,
                    classKey: try self.classKey(keyClass, snapshot),
                    tokens: tokens,
                    schema: schema
                )
                row.id = item.row.id
                do {
                    try writer.update(row, in: plan.table)
                } catch StorageError.uniqueViolation {
                    // As on add, a tombstone or an undecryptable row under the new primary key is replaced;
                    // a live item is a duplicate (spec §3.8).
                    let existing = try writer.reader.select(
                        from: plan.table,
                        where: RowFilter(primaryKey: row.primaryKey),
                        includeSecret: false
                    )
                    guard let old = existing.first, let oldID = old.id,
                        !opened.contains(where: { $0.row.id == oldID }),
                        try self.isReplaceable(old, plan.table, tokens, snapshot)
                    else {
                        throw KeychainError(
                            .duplicateItem,
                            "The update would make two items with the same primary key."
                        )
                    }
                    try writer.delete(id: oldID, from: plan.table)
                    try writer.update(row, in: plan.table)
                }
                if item.attributes[.synchronizable]?.numberValue == 1, row.primaryKey != item.row.primaryKey {
                    try writer.insert(
                        try self.tombstone(of: item, plan: plan, tokens: tokens, snapshot: snapshot, fresh: true),
                        into: plan.table
                    )
                }
            }
            try writer.bumpChangeCounter()
            return opened.count
        }
        options.logger.debug("items updated", metadata: ["class": "\(plan.itemClass.rawValue)", "count": "\(count)"])
        return count
    }

    /// Deletes every item matching `query`; synchronizable items leave a tombstone, as on Apple's keychain.
    ///
    /// - Returns: The number of items deleted (at least one).
    /// - Throws: `itemNotFound` when nothing matches; `interactionNotAllowed` when a match is locked.
    @discardableResult
    public func delete(_ query: ItemQuery) throws(KeychainError) -> Int {
        let plan = try plan(query)
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let filter = try rowFilter(plan, tokens: tokens, limit: nil)
        let count = try write { writer in
            let (opened, _) = try self.openRows(reader: writer.reader, plan: plan, filter: filter, withSecret: false, snapshot)
            guard !opened.isEmpty else {
                throw KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
            }
            for item in opened {
                guard let id = item.row.id else { continue }
                if item.attributes[.synchronizable]?.numberValue == 1 {
                    var tombstone = try self.tombstone(of: item, plan: plan, tokens: tokens, snapshot: snapshot, fresh: false)
                    tombstone.id = id
                    try writer.update(tombstone, in: plan.table)
                } else {
                    try writer.delete(id: id, from: plan.table)
                }
            }
            try writer.bumpChangeCounter()
            return opened.count
        }
        options.logger.debug("items deleted", metadata: ["class": "\(plan.itemClass.rawValue)", "count": "\(count)"])
        return count
    }

    /// A tombstone row for a deleted synchronizable item: primary key, dates and accessibility only.
    private func tombstone(
        of item: OpenedRow,
        plan: QueryPlan,
        tokens: TokenCache,
        snapshot: KeyRing.Snapshot,
        fresh: Bool
    ) throws(KeychainError) -> ItemRow
    {
        var values: [AttributeName: AttributeValue] = [:]
        for name in plan.schema.primaryKey { values[name] = item.attributes[name] }
        values[.creationDate] = item.attributes[.creationDate]
        values[.accessible] = .string(item.keyClass.rawValue)
        values[.modificationDate] = .date(Date())
        values[.tombstone] = .number(1)
        return try ItemCrypto.seal(
            table: plan.table,
            persistref: fresh ? SecureRandom.bytes(16) : item.row.persistref,
            attributes: values,
            secret: nil,
            classKey: try classKey(item.keyClass, snapshot),
            tokens: tokens,
            schema: plan.schema
        )
    }
}
