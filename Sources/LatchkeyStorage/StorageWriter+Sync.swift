import Foundation
import GRDB

// The sync tables (migration v5, docs/sync.md §9), written in the same transaction as the items they follow.
extension StorageWriter {
    /// Records that the synchronizable row `persistref` of `table` changed (replacing an earlier record of it).
    package func putSyncOutbox(_ row: SyncOutboxRow) throws {
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO sync_outbox (tbl, persistref, ms, counter) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [row.table.rawValue, row.persistref, row.milliseconds, row.counter])
    }

    /// Removes the outbox record of `persistref` in `table`, if any.
    package func deleteSyncOutbox(table: ItemTable, persistref: Data) throws {
        try db.cachedStatement(sql: "DELETE FROM sync_outbox WHERE tbl = ? AND persistref = ?")
            .execute(arguments: [table.rawValue, persistref])
    }

    /// Stores what this machine holds of the synced row `rowID`.
    package func putSyncRow(_ rowID: Data, _ state: SyncRowState) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO sync_rows (row_id, version, pending) VALUES (?, ?, ?)")
            .execute(arguments: [rowID, state.version, state.pending])
    }

    /// Appends a conflict to the history and keeps only the newest `keep` entries.
    package func appendSyncHistory(rowID: Data, recordedMilliseconds: Int64, entry: Data, keep: Int) throws {
        try db.cachedStatement(sql: "INSERT INTO sync_history (row_id, recorded_ms, entry) VALUES (?, ?, ?)")
            .execute(arguments: [rowID, recordedMilliseconds, entry])
        try db.cachedStatement(
            sql: "DELETE FROM sync_history WHERE id <= (SELECT max(id) FROM sync_history) - ?"
        ).execute(arguments: [Int64(keep)])
    }

    /// Forgets every sync record (leaving sync): the outbox, the rows' versions and the history.
    package func clearSyncTables() throws {
        try db.execute(sql: "DELETE FROM sync_outbox; DELETE FROM sync_rows; DELETE FROM sync_history;")
    }
}
