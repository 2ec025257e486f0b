import Foundation
import LatchkeyCrypto
import LatchkeyStorage

// Sync's part of the write transaction (docs/sync.md §9): the outbox written with each change of a
// synchronizable item, the path that applies pulled items without writing the outbox, and the sync tables.
extension ItemTransaction {
    /// The `meta` entry holding the sync settings, sealed (`setSyncSettings(_:)`); sync is on while it exists.
    static let syncSettingsName = "sync.settings"
    /// The `meta` entry holding the sync clock's last stamp.
    static let syncClockName = "sync.clock"

    /// Records in the outbox that the row `persistref` changed, when sync is on and the item may leave the
    /// machine: synchronizable and not of a `ThisDeviceOnly` accessibility.
    func noteSyncChange(_ table: ItemTable, persistref: Data, attributes: [AttributeName: AttributeValue]) throws {
        guard attributes[.synchronizable]?.numberValue == 1,
            let code = attributes[.accessible]?.stringValue,
            let keyClass = Accessibility(rawValue: code), !keyClass.isThisDeviceOnly,
            try writer.reader.meta(Self.syncSettingsName) != nil
        else { return }
        let stamp = try nextSyncStamp()
        try writer.putSyncOutbox(
            SyncOutboxRow(
                table: table,
                persistref: persistref,
                milliseconds: Int64(stamp.milliseconds),
                counter: Int64(stamp.counter)
            )
        )
    }

    /// The next reading of the file's sync clock, persisted.
    private func nextSyncStamp() throws -> SyncStamp {
        let last = try writer.reader.meta(Self.syncClockName).flatMap(SyncStamp.init(encoded:)) ?? .zero
        let next = last.next(now: store.options.clock.now())
        try writer.setMeta(Self.syncClockName, next.encoded)
        return next
    }

    /// Takes a pulled change's stamp into the file's sync clock, so that later local changes are stamped after
    /// it; a stamp more than `maximumLead` seconds ahead of this machine's clock is not taken (a machine whose
    /// clock is far ahead must not drag every other machine's clock with it).
    ///
    /// - Returns: Whether the stamp was taken.
    @discardableResult
    package func receiveSyncStamp(_ stamp: SyncStamp, maximumLead: TimeInterval) throws -> Bool {
        let now = store.options.clock.now().timeIntervalSince1970 * 1000
        guard Double(stamp.milliseconds) <= now + maximumLead * 1000 else { return false }
        let last = try writer.reader.meta(Self.syncClockName).flatMap(SyncStamp.init(encoded:)) ?? .zero
        let merged = last.merged(with: stamp)
        if merged != last { try writer.setMeta(Self.syncClockName, merged.encoded) }
        return true
    }

    /// Up to `limit` outbox records, oldest change first, each with its item as stored now.
    package func syncOutbox(limit: Int) throws -> [SyncOutboxEntry] {
        try writer.reader.syncOutbox(limit: limit).map { row in
            guard let itemClass = ItemClass(rawValue: row.table.rawValue) else {
                throw KeychainError(.decode, "An outbox record names an unknown table.")
            }
            return SyncOutboxEntry(
                itemClass: itemClass,
                persistref: row.persistref,
                stamp: SyncStamp(
                    milliseconds: UInt64(max(0, row.milliseconds)),
                    counter: UInt32(clamping: row.counter)
                ),
                item: try syncedItem(itemClass, persistref: row.persistref)
            )
        }
    }

    /// Removes the outbox record of `persistref` (once its change is sealed for sending).
    package func removeSyncOutbox(_ itemClass: ItemClass, persistref: Data) throws {
        let (table, _) = try store.tableAndSchema(itemClass)
        try writer.deleteSyncOutbox(table: table, persistref: persistref)
    }

    /// The item stored under `persistref`, tombstones included, whatever its access group; `nil` when there
    /// is none or it may not leave the machine (not synchronizable, or `ThisDeviceOnly`).
    package func syncedItem(_ itemClass: ItemClass, persistref: Data) throws -> SyncedItem? {
        let (table, _) = try store.tableAndSchema(itemClass)
        guard
            let row = try writer.reader.select(
                from: table,
                where: RowFilter(persistref: persistref),
                includeSecret: true
            )
            .first
        else { return nil }
        return try opened(row, itemClass, table).map(\.item)
    }

    /// The local item with the primary key of `attributes` (tombstones included), with its row's persistent
    /// identifier and the stamp of its change still in the outbox, if any.
    package func localSyncedItem(
        _ itemClass: ItemClass,
        primaryKeyOf attributes: [AttributeName: AttributeValue]
    ) throws -> (item: SyncedItem, persistref: Data, unsent: SyncStamp?)? {
        let (table, schema) = try store.tableAndSchema(itemClass)
        let key = tokens.primaryKey(table, schema, try schema.coerce(attributes))
        guard
            let row = try writer.reader.select(from: table, where: RowFilter(primaryKey: key), includeSecret: true)
                .first,
            let item = try opened(row, itemClass, table)
        else { return nil }
        let unsent = try writer.reader.syncOutbox(table: table, persistref: row.persistref).map {
            SyncStamp(milliseconds: UInt64(max(0, $0.milliseconds)), counter: UInt32(clamping: $0.counter))
        }
        return (item.item, row.persistref, unsent)
    }

    /// Opens a row for sync; `nil` when it may not leave the machine.
    private func opened(
        _ row: ItemRow,
        _ itemClass: ItemClass,
        _ table: ItemTable
    ) throws -> (item: SyncedItem, keyClass: Accessibility)? {
        guard let keyClass = tokens.keyClass(of: row.tokens["kc"], in: table), !keyClass.isThisDeviceOnly else {
            return nil
        }
        let opened = try ItemCrypto.open(
            table: table,
            row: row,
            classKey: try store.classKey(keyClass, snapshot),
            withSecret: true
        )
        guard opened.attributes[.synchronizable]?.numberValue == 1 else { return nil }
        return (
            SyncedItem(
                itemClass: itemClass,
                attributes: opened.attributes,
                secret: opened.secret,
                isTombstone: opened.attributes[.tombstone]?.numberValue == 1
            ),
            keyClass
        )
    }

    /// Writes a pulled item as it came: it replaces the local row with its primary key (keeping that row's
    /// persistent reference) and drops the local row's outbox record, and writes no outbox record of its own,
    /// so an applied change is never sent back.
    ///
    /// - Throws: `KeychainError.Code.param` for an item that may not be synced here (`ThisDeviceOnly`, not
    ///   synchronizable, or an unknown accessibility).
    package func applySynced(_ item: SyncedItem) throws {
        let (table, schema) = try store.tableAndSchema(item.itemClass)
        var values = try schema.coerce(item.attributes)
        guard values[.synchronizable]?.numberValue == 1,
            let code = values[.accessible]?.stringValue,
            let keyClass = Accessibility(rawValue: code), !keyClass.isThisDeviceOnly
        else {
            throw KeychainError(.param, "A pulled item is not synchronizable or is bound to its machine.")
        }
        values[.tombstone] = .number(item.isTombstone ? 1 : 0)
        let key = tokens.primaryKey(table, schema, values)
        let existing = try writer.reader.select(from: table, where: RowFilter(primaryKey: key), includeSecret: false)
            .first
        let persistref = existing?.persistref ?? store.options.random.bytes(16)
        let row = try ItemCrypto.seal(
            table: table,
            persistref: persistref,
            attributes: values,
            secret: item.isTombstone ? nil : item.secret,
            classKey: try store.classKey(keyClass, snapshot),
            tokens: tokens,
            schema: schema
        )
        if let existing, let id = existing.id {
            try writer.deleteSyncOutbox(table: table, persistref: existing.persistref)
            try deleteRow(id: id, from: table)
        }
        try insertRow(row, into: table)
        changed = true
    }

    /// Records every synchronizable item that may leave the machine in the outbox (sync set up or joined:
    /// everything is sent once).
    ///
    /// - Returns: How many items were recorded.
    @discardableResult
    package func enqueueAllSyncedItems() throws -> Int {
        var count = 0
        for table in ItemTable.allCases {
            let filter = RowFilter(conditions: [("sync", [tokens.token(table, .synchronizable, .number(1))])])
            for row in try writer.reader.select(from: table, where: filter, includeSecret: false) {
                guard let keyClass = tokens.keyClass(of: row.tokens["kc"], in: table), !keyClass.isThisDeviceOnly
                else { continue }
                let stamp = try nextSyncStamp()
                try writer.putSyncOutbox(
                    SyncOutboxRow(
                        table: table,
                        persistref: row.persistref,
                        milliseconds: Int64(stamp.milliseconds),
                        counter: Int64(stamp.counter)
                    )
                )
                count += 1
            }
        }
        return count
    }

    /// What this machine holds of the synced row `rowID`: the server version its copy corresponds to, and
    /// the encoded row it is sending, if any.
    package func syncRow(_ rowID: Data) throws -> (version: Int64, pending: Data?)? {
        try writer.reader.syncRow(rowID).map { ($0.version, $0.pending) }
    }

    /// Stores what this machine holds of the synced row `rowID`.
    package func setSyncRow(_ rowID: Data, version: Int64, pending: Data?) throws {
        try writer.putSyncRow(rowID, SyncRowState(version: version, pending: pending))
    }

    /// The encoded rows being sent.
    package func pendingSyncRows() throws -> [Data] {
        try writer.reader.pendingSyncRows().compactMap(\.state.pending)
    }

    /// Appends a conflict to the history, keeping the newest 100 entries.
    package func appendSyncHistory(rowID: Data, entry: Data) throws {
        let now = Int64(store.options.clock.now().timeIntervalSince1970 * 1000)
        try writer.appendSyncHistory(rowID: rowID, recordedMilliseconds: now, entry: entry, keep: 100)
    }

    /// The plain `meta` value `sync.<name>` (the cursor, the last error: nothing secret).
    package func syncMeta(_ name: String) throws -> Data? { try writer.reader.meta("sync." + name) }

    /// Sets or removes the plain `meta` value `sync.<name>`.
    package func setSyncMeta(_ name: String, _ value: Data?) throws {
        if let value { try writer.setMeta("sync." + name, value) } else { try writer.deleteMeta("sync." + name) }
    }

    /// Stores the sync settings sealed under the keychain's `afterFirstUnlockThisDeviceOnly` class key (they
    /// hold the sync key and the database password), or removes them; sync is on while they exist.
    package func setSyncSettings(_ settings: Data?) throws {
        guard let settings else {
            try writer.deleteMeta(Self.syncSettingsName)
            return
        }
        let key = try store.classKey(.afterFirstUnlockThisDeviceOnly, snapshot)
        let sealed = try AEAD.seal(settings, key: key, context: Data("latchkey/v1/meta/sync.settings".utf8))
        try writer.setMeta(Self.syncSettingsName, sealed)
    }

    /// The sync settings (`setSyncSettings(_:)`), or `nil` when sync is off.
    package func syncSettings() throws -> Data? {
        try KeychainStore.openSyncSettings(try writer.reader.meta(Self.syncSettingsName), store, snapshot)
    }

    /// Forgets sync: the settings, the clock's meta entries, the outbox, versions and history. Items stay.
    package func clearSync() throws {
        try writer.clearSyncTables()
        for name in ["settings", "cursor", "status"] { try writer.deleteMeta("sync." + name) }
    }
}

extension KeychainStore {
    /// Opens sealed sync settings.
    static func openSyncSettings(_ sealed: Data?, _ store: KeychainStore, _ snapshot: KeyRing.Snapshot) throws -> Data?
    {
        guard let sealed else { return nil }
        let key = try store.classKey(.afterFirstUnlockThisDeviceOnly, snapshot)
        do {
            return try AEAD.open(sealed, key: key, context: Data("latchkey/v1/meta/sync.settings".utf8))
        } catch {
            throw KeychainError(.decode, "The keychain's sync settings fail authentication: the file was altered.")
        }
    }

    /// The sync settings, read outside a write transaction; `nil` when sync is off.
    package func syncSettings() throws(KeychainError) -> Data? {
        let snapshot = keys.snapshot()
        return try mappingErrors {
            let sealed = try storage.read { try $0.meta(ItemTransaction.syncSettingsName) }
            return try Self.openSyncSettings(sealed, self, snapshot)
        }
    }

    /// What sync's status shows of this file: outbox and pending counts, a `meta` value, the history.
    package func syncFacts() throws(KeychainError) -> (
        outbox: Int, pending: Int, meta: [String: Data],
        history: [(rowID: Data, recordedMilliseconds: Int64, entry: Data)]
    ) {
        try mappingErrors {
            try storage.read { reader in
                var meta: [String: Data] = [:]
                for name in ["cursor", "status"] { meta[name] = try reader.meta("sync." + name) }
                return (
                    try reader.syncOutboxCount(), try reader.pendingSyncRows().count, meta,
                    try reader.syncHistory(limit: 20)
                )
            }
        }
    }
}
