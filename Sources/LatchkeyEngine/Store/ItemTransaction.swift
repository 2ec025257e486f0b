import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// Several item operations in one write transaction: either all of them commit or none does.
///
/// This is where the write rules of items live, once: defaults on add, uniqueness with tombstone and
/// corrupt-row replacement, strictly increasing modification dates, re-encryption on update, and
/// tombstones for synchronizable items. `KeychainStore.add/update/delete` are single-operation
/// transactions over it; the high-level `Keychain` combines several (upserts, `removeAll`, migrations).
///
/// Not `Sendable`: it lives only inside the closure given to `KeychainStore.transaction(_:)`.
package final class ItemTransaction {
    let store: KeychainStore
    let writer: StorageWriter
    let snapshot: KeyRing.Snapshot
    let tokens: TokenCache
    /// The row ledger's part of this transaction (`nil` in a format 1 file).
    let ledger: LedgerWrite?
    /// Whether an item changed (the change counter is bumped once, at commit).
    var changed = false

    init(
        store: KeychainStore,
        writer: StorageWriter,
        snapshot: KeyRing.Snapshot,
        tokens: TokenCache,
        ledger: LedgerWrite?
    ) {
        self.store = store
        self.writer = writer
        self.snapshot = snapshot
        self.tokens = tokens
        self.ledger = ledger
    }

    /// Inserts a row with its search-tag tokens (the same tokens its record seals) and notes it in the
    /// ledger.
    func insertRow(_ row: ItemRow, into table: ItemTable, tags: [Data] = []) throws {
        var inserted = row
        let id = try writer.insert(row, into: table)
        inserted.id = id
        // Row ids are never reused (AUTOINCREMENT), so a new row has no tag rows to replace.
        if !tags.isEmpty { try writer.setTags(tags, of: id, in: table) }
        ledger?.inserted(inserted, in: table)
    }

    /// Rewrites a row (its id set) and notes it in the ledger; non-nil `tags` replace its search-tag tokens.
    func updateRow(_ row: ItemRow, in table: ItemTable, tags: [Data]? = nil) throws {
        guard let id = row.id else { preconditionFailure("update needs a row id") }
        try ledger?.willChange(id: id, in: table)
        try writer.update(row, in: table)
        if let tags { try writer.setTags(tags, of: id, in: table) }
        ledger?.wrote(row, in: table)
    }

    /// Deletes a row and notes it in the ledger.
    func deleteRow(id: Int64, from table: ItemTable) throws {
        try ledger?.willChange(id: id, in: table)
        try writer.delete(id: id, from: table)
        ledger?.deleted(id: id, in: table)
    }

    /// Rows read directly inside this transaction, checked against the ledger.
    private func selectChecked(_ table: ItemTable, _ filter: RowFilter) throws -> [ItemRow] {
        let rows = try writer.reader.select(from: table, where: filter, includeSecret: false)
        try ledger?.check(rows, in: table)
        return rows
    }

    /// The live items matching `query` inside the transaction (empty when none match).
    ///
    /// - Throws: `interactionNotAllowed` when a matching row's class is locked.
    package func find(_ query: ItemQuery, withData: Bool) throws -> (plan: QueryPlan, rows: [KeychainStore.OpenedRow]) {
        let plan = try store.plan(query)
        let filter = try store.rowFilter(plan, tokens: tokens, limit: nil)
        let (rows, _) = try store.openRows(
            reader: writer.reader,
            plan: plan,
            filter: filter,
            withSecret: withData,
            snapshot,
            ledger: ledger
        )
        return (plan, rows)
    }

    /// Adds an item: Apple's defaults (access group, accessibility, dates, empty primary-key values), then
    /// uniqueness, replacing a tombstone or corrupt row under the same primary key.
    ///
    /// - Parameter carried: Search tags already sealed in an item of this file (a migration's source item),
    ///   used instead of `searchTags`: its tokens are valid here, and so is an item written before tag text
    ///   was kept, whose tags are carried as tokens alone.
    /// - Throws: `duplicateItem` when a live item has the same primary key.
    @discardableResult
    package func add(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        searchTags: [String] = [],
        carrying carried: SealedTags? = nil
    ) throws
        -> FoundItem
    {
        let new = try sealNew(itemClass, attributes: attributes, data: data, searchTags: searchTags, carrying: carried)
        try writeReplacing(new.row, in: new.table) { try insertRow(new.row, into: new.table, tags: new.tags.tokens) }
        try noteSyncChange(new.table, persistref: new.row.persistref, attributes: new.item.attributes)
        changed = true
        return new.item
    }

    /// Adds `item` (see `add(_:attributes:data:searchTags:)`).
    @discardableResult
    package func add(_ item: NewItem) throws -> FoundItem {
        try add(item.itemClass, attributes: item.attributes, data: item.data, searchTags: item.searchTags)
    }

    /// Adds an item, or updates exactly the live item an add would collide with (same primary key: same
    /// class, access group, synchronizable flag and key attributes) with the given attributes and secret.
    /// Never `duplicateItem`; the creation date and persistent reference of an updated item stay, and its
    /// search tags become `searchTags` (when there are some; none keeps the item's tags).
    package func upsert(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        searchTags: [String] = []
    ) throws
        -> FoundItem
    {
        let new = try sealNew(itemClass, attributes: attributes, data: data, searchTags: searchTags)
        do {
            try writeReplacing(new.row, in: new.table) {
                try insertRow(new.row, into: new.table, tags: new.tags.tokens)
            }
            try noteSyncChange(new.table, persistref: new.row.persistref, attributes: new.item.attributes)
            changed = true
            return new.item
        } catch {
            guard (error as? KeychainError)?.code == .duplicateItem else { throw error }
        }
        let plan = try store.plan(ItemQuery(itemClass, synchronizable: .any))
        let filter = RowFilter(primaryKey: new.row.primaryKey)
        let (rows, _) = try store.openRows(
            reader: writer.reader,
            plan: plan,
            filter: filter,
            withSecret: true,
            snapshot,
            ledger: ledger
        )
        guard let existing = rows.first else {
            throw KeychainError(.duplicateItem, "The specified item already exists in the keychain.")
        }
        var changes = try plan.schema.coerce(attributes)
        for name in plan.schema.primaryKey { changes[name] = nil }
        let updated = try update(
            existing,
            plan: plan,
            // No tags keeps the item's: a face that knows nothing of tags does not erase another's.
            with: ItemChanges(attributes: changes, data: data, searchTags: searchTags.isEmpty ? nil : searchTags)
        )
        return updated
    }

    /// Adds `items` together; with `tolerateExisting`, an item whose primary key is taken is left as it is,
    /// and only all of them existing is `duplicateItem` (an identity's certificate and key).
    package func addAll(_ items: [NewItem], tolerateExisting: Bool) throws -> [FoundItem] {
        var added: [FoundItem] = []
        for item in items {
            do {
                added.append(try add(item))
            } catch {
                guard tolerateExisting, (error as? KeychainError)?.code == .duplicateItem else { throw error }
            }
        }
        if added.isEmpty, !items.isEmpty {
            throw KeychainError(.duplicateItem, "The specified items already exist in the keychain.")
        }
        return added
    }

    /// Restores an archived item: the rules of `add`, but its creation and modification dates are kept
    /// when present; a live item with the same primary key is replaced only when `replacingExisting`.
    package func restore(_ item: NewItem, replacingExisting: Bool) throws -> RestoreOutcome {
        let new = try sealNew(
            item.itemClass,
            attributes: item.attributes,
            data: item.data,
            searchTags: item.searchTags,
            restoring: true
        )
        do {
            try writeReplacing(new.row, in: new.table) {
                try insertRow(new.row, into: new.table, tags: new.tags.tokens)
            }
            try noteSyncChange(new.table, persistref: new.row.persistref, attributes: new.item.attributes)
            changed = true
            return .added
        } catch {
            guard (error as? KeychainError)?.code == .duplicateItem else { throw error }
        }
        guard replacingExisting else { return .duplicate }
        let existing = try selectChecked(new.table, RowFilter(primaryKey: new.row.primaryKey))
        if let oldID = existing.first?.id { try deleteRow(id: oldID, from: new.table) }
        try insertRow(new.row, into: new.table, tags: new.tags.tokens)
        try noteSyncChange(new.table, persistref: new.row.persistref, attributes: new.item.attributes)
        changed = true
        return .replaced
    }

    /// A new item's complete values, sealed row and search tags (tokens and text): defaults, dates, digest,
    /// class key. When `restoring`, the given creation and modification dates are kept and a tombstone flag
    /// is dropped; `carried` tags (sealed in this file) replace `searchTags`.
    private func sealNew(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        searchTags: [String],
        carrying carried: SealedTags? = nil,
        restoring: Bool = false
    ) throws -> (row: ItemRow, table: ItemTable, item: FoundItem, tags: SealedTags) {
        // First, as the agent's client checks it before sending: the same error whatever else is wrong.
        try ItemSizeLimit.check(attributes: attributes, data: data, searchTags: searchTags)
        let (table, schema) = try store.tableAndSchema(itemClass)
        try KeychainStore.checkSearchTags(searchTags)
        let tags = carried ?? tokens.sealedTags(table, searchTags)
        var values = try schema.coerce(attributes)
        values[.sha1] = nil
        values["UUID"] = nil
        if restoring { values[.tombstone] = nil }
        if let group = values[.accessGroup]?.stringValue {
            try store.checkAccessGroup(group)
        } else {
            guard let first = store.options.accessGroups.first else { throw store.missingGroups() }
            values[.accessGroup] = .string(first)
        }
        if values[.accessible] == nil {
            let defaultClass: Accessibility = itemClass == .certificate ? .always : .whenUnlocked
            values[.accessible] = .string(defaultClass.rawValue)
        }
        for (name, spec) in schema.attributes where values[name] == nil {
            if let value = spec.defaultValue { values[name] = value }
        }
        let now = AttributeValue.date(store.options.clock.now())
        let keepDates = restoring
        if !keepDates || values[.creationDate]?.dateValue == nil { values[.creationDate] = now }
        if !keepDates || values[.modificationDate]?.dateValue == nil { values[.modificationDate] = now }
        values[.sha1] = .data(ItemCrypto.digest(values, secret: data))
        let keyClass = try checkedClass(of: values)
        let persistref = store.options.random.bytes(16)
        let row = try ItemCrypto.seal(
            table: table,
            persistref: persistref,
            attributes: values,
            secret: data,
            classKey: try store.classKey(keyClass, snapshot),
            tokens: tokens,
            schema: schema,
            tags: tags
        )
        let item = FoundItem(
            itemClass: itemClass,
            attributes: values,
            data: data,
            persistentReference: KeychainStore.persistentReference(itemClass, persistref)
        )
        return (row, table, item, tags)
    }

    /// Updates every item matching `query` (see `update(_:plan:with:batch:)`); returns how many.
    ///
    /// The changes are validated first, so a bad attribute is reported even when nothing matches; the
    /// matches' access control is checked against `authentication` in the same transaction.
    package func updateAll(
        _ query: ItemQuery,
        with changes: ItemChanges,
        authentication: AuthenticationPolicy = .confirmed
    ) throws -> Int {
        if IdentityJoin.isIdentity(query) { return try updateIdentities(query, with: changes, authentication) }
        let newValues = try store.plan(query).schema.coerce(changes.attributes)
        if let group = newValues[.accessGroup]?.stringValue { try store.checkAccessGroup(group) }
        let (plan, items) = try find(query, withData: true)
        _ = try KeychainStore.applying(authentication, to: items.map { $0.found(plan.itemClass) })
        for item in items { _ = try update(item, plan: plan, with: changes, batch: items) }
        return items.count
    }

    /// Updates one item found by `find`: strictly increasing modification date, re-encryption under
    /// the (possibly new) class key, and a tombstone when a synchronizable item's primary key changes.
    ///
    /// - Parameters:
    ///   - item: A row returned by `find(_:withData: true)` in this transaction.
    ///   - changes: New attribute values and, optionally, a new secret and new search tags.
    ///   - batch: The rows updated together with `item`; none of them counts as a tombstone to replace.
    /// - Throws: `duplicateItem` when the change would collide with a live item's primary key.
    package func update(
        _ item: KeychainStore.OpenedRow,
        plan: QueryPlan,
        with changes: ItemChanges,
        batch: [KeychainStore.OpenedRow] = []
    ) throws -> FoundItem {
        var newValues = try plan.schema.coerce(changes.attributes)
        newValues[.multiUser] = nil
        for name: AttributeName in [.creationDate, .modificationDate, .sha1, "UUID"] { newValues[name] = nil }
        if let group = newValues[.accessGroup]?.stringValue { try store.checkAccessGroup(group) }
        var values = item.attributes
        values.merge(newValues) { _, new in new }
        let secret = changes.data ?? item.secret
        let oldDate = item.attributes[.modificationDate]?.dateValue ?? .distantPast
        values[.modificationDate] = .date(max(store.options.clock.now(), oldDate.addingTimeInterval(0.001)))
        values[.sha1] = .data(ItemCrypto.digest(values, secret: secret))
        // The attributes as they will be stored and a new secret (a kept secret and kept tags were counted when
        // written, or predate the limit and stay as they are).
        try ItemSizeLimit.check(attributes: values, data: changes.data, searchTags: changes.searchTags ?? [])
        let keyClass = try checkedClass(of: values)
        if let searchTags = changes.searchTags { try KeychainStore.checkSearchTags(searchTags) }
        let newTags = changes.searchTags.map { tokens.sealedTags(plan.table, $0) }
        var row = try ItemCrypto.seal(
            table: plan.table,
            persistref: item.row.persistref,
            attributes: values,
            secret: secret,
            classKey: try store.classKey(keyClass, snapshot),
            tokens: tokens,
            schema: plan.schema,
            tags: newTags ?? item.sealedTags
        )
        row.id = item.row.id
        let batchIDs = Set(batch.compactMap(\.row.id))
        try writeReplacing(row, in: plan.table, sparing: batchIDs) {
            try updateRow(row, in: plan.table, tags: newTags?.tokens)
        }
        try noteSyncChange(plan.table, persistref: row.persistref, attributes: values)
        if item.attributes[.synchronizable]?.numberValue == 1, row.primaryKey != item.row.primaryKey {
            let tombstone = try tombstone(of: item, plan: plan, fresh: true)
            try insertRow(tombstone, into: plan.table)
            try noteSyncChange(plan.table, persistref: tombstone.persistref, attributes: item.attributes)
        }
        changed = true
        return FoundItem(
            itemClass: plan.itemClass,
            attributes: values,
            data: secret,
            persistentReference: KeychainStore.persistentReference(plan.itemClass, item.row.persistref)
        )
    }

    /// The accessibility class of a complete attribute set, refusing `whenPasscodeSetThisDeviceOnly` in a
    /// keychain without a passphrase (Apple: no passcode → `errSecAuthFailed`).
    private func checkedClass(of values: [AttributeName: AttributeValue]) throws -> Accessibility {
        guard let code = values[.accessible]?.stringValue, let keyClass = Accessibility(rawValue: code) else {
            throw KeychainError(.param, "Invalid accessibility value.")
        }
        if keyClass == .whenPasscodeSetThisDeviceOnly,
            try !writer.reader.slots().contains(where: { $0.kind == "passphrase" })
        {
            throw KeychainError(
                .authFailed,
                "Items accessible 'whenPasscodeSetThisDeviceOnly' need a keychain with a passphrase."
            )
        }
        return keyClass
    }

    /// Runs an insert or update of `row`; when it hits another row's primary key, a tombstone or an
    /// undecryptable row there is replaced (docs/apple-semantics.md §3.8, §3.10), a live item is `duplicateItem`.
    private func writeReplacing(
        _ row: ItemRow,
        in table: ItemTable,
        sparing spared: Set<Int64> = [],
        _ write: () throws -> Void
    ) throws {
        do {
            try write()
        } catch StorageError.uniqueViolation {
            let existing = try writer.reader.select(
                from: table,
                where: RowFilter(primaryKey: row.primaryKey),
                includeSecret: false
            )
            guard let old = existing.first, let oldID = old.id, !spared.contains(oldID),
                try store.isReplaceable(old, table, tokens, snapshot)
            else {
                throw KeychainError(.duplicateItem, "The specified item already exists in the keychain.")
            }
            try deleteRow(id: oldID, from: table)
            try write()
        }
    }

    /// Deletes one item found by `find`; a synchronizable item leaves a tombstone, as in `KeychainStore.delete`.
    package func delete(_ item: KeychainStore.OpenedRow, plan: QueryPlan) throws {
        guard let id = item.row.id else { return }
        if item.attributes[.synchronizable]?.numberValue == 1 {
            var tombstone = try tombstone(of: item, plan: plan, fresh: false)
            tombstone.id = id
            // A tombstone keeps the primary key only: no search tags.
            try updateRow(tombstone, in: plan.table, tags: [])
            try noteSyncChange(plan.table, persistref: tombstone.persistref, attributes: item.attributes)
        } else {
            try deleteRow(id: id, from: plan.table)
        }
        changed = true
    }

    /// Deletes the items matching `query` (every match, or the first `limit`; see `delete(_:plan:)`);
    /// returns how many.
    package func deleteAll(_ query: ItemQuery, limit: MatchLimit = .all) throws -> Int {
        if IdentityJoin.isIdentity(query) { return try deleteIdentities(query) }
        var (plan, items) = try find(query, withData: false)
        if let rowLimit = limit.rowLimit, items.count > rowLimit { items.removeLast(items.count - rowLimit) }
        for item in items { try delete(item, plan: plan) }
        return items.count
    }

    /// A tombstone row for a deleted synchronizable item: primary key, dates and accessibility only.
    private func tombstone(of item: KeychainStore.OpenedRow, plan: QueryPlan, fresh: Bool) throws -> ItemRow {
        var values: [AttributeName: AttributeValue] = [:]
        for name in plan.schema.primaryKey { values[name] = item.attributes[name] }
        values[.creationDate] = item.attributes[.creationDate]
        values[.accessible] = .string(item.keyClass.rawValue)
        values[.modificationDate] = .date(store.options.clock.now())
        values[.tombstone] = .number(1)
        return try ItemCrypto.seal(
            table: plan.table,
            persistref: fresh ? store.options.random.bytes(16) : item.row.persistref,
            attributes: values,
            secret: nil,
            classKey: try store.classKey(item.keyClass, snapshot),
            tokens: tokens,
            schema: plan.schema
        )
    }
}

extension KeychainStore {
    /// Runs `body` in one write transaction; anything it throws rolls every change back.
    ///
    /// The change counter is bumped once when an item changed. `body` must not call the store's own
    /// one-shot operations (SQLite transactions do not nest): use the transaction's methods.
    package func transaction<T>(_ body: (ItemTransaction) throws -> T) throws(KeychainError) -> T {
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        var delta: RowLedger.Delta?
        let result: (T, Bool)
        do {
            result = try write { writer in
                let ledgerWrite = try beginLedgerWrite(writer, snapshot, tokens)
                let transaction = ItemTransaction(
                    store: self,
                    writer: writer,
                    snapshot: snapshot,
                    tokens: tokens,
                    ledger: ledgerWrite
                )
                let result = try body(transaction)
                if transaction.changed {
                    try writer.bumpChangeCounter()
                    delta = try ledgerWrite?.seal(writer)
                }
                return (result, transaction.changed)
            }
        } catch {
            if let delta { ledger.abandon(delta) }
            throw error
        }
        if let delta { ledger.commit(delta) }
        if result.1 { commits.notify() }
        return result.0
    }
}
