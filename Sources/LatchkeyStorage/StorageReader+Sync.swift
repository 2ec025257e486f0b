import Foundation

// Reads of the sync tables (migration v5, docs/sync.md §9).
extension StorageReader {
    /// Up to `limit` outbox records, oldest change first.
    package func syncOutbox(limit: Int) throws -> [SyncOutboxRow] {
        var query = try query("SELECT tbl, persistref, ms, counter FROM sync_outbox ORDER BY ms, counter LIMIT ?")
        try query.bind(Int64(limit))
        var rows: [SyncOutboxRow] = []
        while try query.step() {
            guard let name = query.blob(0).flatMap({ String(data: $0, encoding: .utf8) }),
                let table = ItemTable(rawValue: name)
            else { continue }
            rows.append(
                SyncOutboxRow(
                    table: table,
                    persistref: try query.requiredBlob(1),
                    milliseconds: query.int64(2),
                    counter: query.int64(3)
                )
            )
        }
        return rows
    }

    /// The outbox record of `persistref` in `table`, if any.
    package func syncOutbox(table: ItemTable, persistref: Data) throws -> SyncOutboxRow? {
        var query = try query("SELECT ms, counter FROM sync_outbox WHERE tbl = ? AND persistref = ?")
        try query.bind(table.rawValue)
        try query.bind(persistref)
        guard try query.step() else { return nil }
        return SyncOutboxRow(
            table: table,
            persistref: persistref,
            milliseconds: query.int64(0),
            counter: query.int64(1)
        )
    }

    /// How many outbox records there are.
    package func syncOutboxCount() throws -> Int {
        let query = try query("SELECT count(*) FROM sync_outbox")
        return try query.step() ? Int(query.int64(0)) : 0
    }

    /// What this machine holds of the synced row `rowID`.
    package func syncRow(_ rowID: Data) throws -> SyncRowState? {
        var query = try query("SELECT version, pending FROM sync_rows WHERE row_id = ?")
        try query.bind(rowID)
        guard try query.step() else { return nil }
        return SyncRowState(version: query.int64(0), pending: query.blob(1))
    }

    /// Every row being sent: its id and encoded pending row.
    package func pendingSyncRows() throws -> [(rowID: Data, state: SyncRowState)] {
        let query = try query("SELECT row_id, version, pending FROM sync_rows WHERE pending IS NOT NULL")
        var rows: [(Data, SyncRowState)] = []
        while try query.step() {
            rows.append((try query.requiredBlob(0), SyncRowState(version: query.int64(1), pending: query.blob(2))))
        }
        return rows
    }

    /// The newest `limit` history entries, newest first.
    package func syncHistory(limit: Int) throws -> [(rowID: Data, recordedMilliseconds: Int64, entry: Data)] {
        var query = try query("SELECT row_id, recorded_ms, entry FROM sync_history ORDER BY id DESC LIMIT ?")
        try query.bind(Int64(limit))
        var entries: [(Data, Int64, Data)] = []
        while try query.step() {
            entries.append((try query.requiredBlob(0), query.int64(1), try query.requiredBlob(2)))
        }
        return entries
    }
}
