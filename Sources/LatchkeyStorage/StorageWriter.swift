import Foundation
import GRDB

/// Write access inside one `BEGIN IMMEDIATE` transaction; valid only inside the closure it is handed to.
package struct StorageWriter {
    let db: Database

    /// Reads within the same transaction.
    package var reader: StorageReader { StorageReader(db: db) }

    /// Stores `value` under `name` in the `meta` table, replacing any previous value.
    package func setMeta(_ name: String, _ value: Data) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)")
            .execute(arguments: [name, value])
    }

    /// Removes the `meta` entry `name`, if any.
    package func deleteMeta(_ name: String) throws {
        try db.cachedStatement(sql: "DELETE FROM meta WHERE name = ?").execute(arguments: [name])
    }

    /// Records in `meta.format` the format version this build writes, so that older builds refuse the
    /// file instead of misreading it (after a change they cannot follow, such as the row ledger).
    package func markCurrentFormat() throws {
        try setMeta("format", Data("\(StorageSchema.formatVersion)".utf8))
    }

    /// Inserts an unlock slot and returns its id.
    @discardableResult
    package func insertSlot(_ slot: SlotRow) throws -> Int64 {
        try db.execute(
            sql: "INSERT INTO slots (kind, parameters, wrapped, checksum) VALUES (?, ?, ?, ?)",
            arguments: [slot.kind, slot.parameters, slot.wrappedMasterKey, slot.checksum]
        )
        return db.lastInsertedRowID
    }

    /// Removes every slot of `kind`.
    package func deleteSlots(kind: String) throws {
        try db.execute(sql: "DELETE FROM slots WHERE kind = ?", arguments: [kind])
    }

    /// Inserts or replaces a class key row.
    package func putClassKey(_ row: ClassKeyRow) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO classkeys (class, bymaster, bydevice) VALUES (?, ?, ?)",
            arguments: [row.keyClass, row.byMaster, row.byDevice]
        )
    }

    /// Inserts `row` into `table` and returns its row id.
    ///
    /// - Throws: `StorageError.uniqueViolation` when the primary-key hash (or persistref) already exists.
    @discardableResult
    package func insert(_ row: ItemRow, into table: ItemTable) throws -> Int64 {
        let columns = ["persistref", "pk"] + table.tokenColumns + ["itemkey", "attrs", "secret"]
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ",")
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(table.rawValue) (\(columns.joined(separator: ","))) VALUES (\(marks))"
        )
        var arguments: [(any DatabaseValueConvertible)?] = [row.persistref, row.primaryKey]
        arguments += table.tokenColumns.map { row.tokens[$0] }
        arguments += [row.itemKey, row.attributes, row.secret]
        try Self.mappingConstraint { try statement.execute(arguments: StatementArguments(arguments)) }
        return db.lastInsertedRowID
    }

    /// Rewrites every column of the row with `row.id` (its persistref stays).
    ///
    /// - Throws: `StorageError.uniqueViolation` when the new primary-key hash belongs to another row.
    package func update(_ row: ItemRow, in table: ItemTable) throws {
        guard let id = row.id else { preconditionFailure("update needs a row id") }
        let columns = ["pk"] + table.tokenColumns + ["itemkey", "attrs", "secret"]
        let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
        let statement = try db.cachedStatement(sql: "UPDATE \(table.rawValue) SET \(assignments) WHERE id = ?")
        var arguments: [(any DatabaseValueConvertible)?] = [row.primaryKey]
        arguments += table.tokenColumns.map { row.tokens[$0] }
        arguments += [row.itemKey, row.attributes, row.secret, id]
        try Self.mappingConstraint { try statement.execute(arguments: StatementArguments(arguments)) }
    }

    /// Turns a UNIQUE violation into `StorageError.uniqueViolation` right away, so callers can handle it
    /// inside the transaction (SQLite aborts only the failed statement; the transaction goes on).
    private static func mappingConstraint(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw StorageError.uniqueViolation
        }
    }

    /// Deletes the row with `id` from `table`, and its search tags.
    package func delete(id: Int64, from table: ItemTable) throws {
        try db.cachedStatement(sql: "DELETE FROM \(table.rawValue) WHERE id = ?").execute(arguments: [id])
        try deleteTags(of: id, in: table)
    }

    /// Replaces the search-tag tokens of the row with `id` in `table` by `tokens` (none: the row has no tags).
    package func setTags(_ tokens: [Data], of id: Int64, in table: ItemTable) throws {
        try deleteTags(of: id, in: table)
        guard !tokens.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "INSERT OR IGNORE INTO tags (tbl, item, token) VALUES (?, ?, ?)")
        for token in tokens { try statement.execute(arguments: [table.rawValue, id, token]) }
    }

    /// Removes the search-tag rows of `table` that name no row of it (left by a build without search tags,
    /// which deletes items without their tags); returns how many.
    @discardableResult
    package func deleteOrphanTags(in table: ItemTable) throws -> Int {
        try db.execute(
            sql: "DELETE FROM tags WHERE tbl = ? AND item NOT IN (SELECT id FROM \(table.rawValue))",
            arguments: [table.rawValue]
        )
        return db.changesCount
    }

    /// Removes every search-tag token of the row with `id` in `table`.
    private func deleteTags(of id: Int64, in table: ItemTable) throws {
        try db.cachedStatement(sql: "DELETE FROM tags WHERE tbl = ? AND item = ?").execute(arguments: [
            table.rawValue, id,
        ])
    }

    /// Stores the row ledger's seal (in the `changes` row, beside the counter every item write bumps).
    package func setLedgerSeal(_ seal: Data) throws {
        try db.cachedStatement(sql: "UPDATE changes SET ledger = ? WHERE id = 1").execute(arguments: [seal])
    }

    /// Bumps the cross-process change counter; called once by every write transaction that changes items.
    package func bumpChangeCounter() throws {
        try db.cachedStatement(sql: "UPDATE changes SET counter = counter + 1 WHERE id = 1").execute()
    }
}
