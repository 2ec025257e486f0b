import Foundation
import GRDB

/// Write access inside one `BEGIN IMMEDIATE` transaction; valid only inside the closure it is handed to.
package struct StorageWriter {
    let db: Database
    /// Whether the file has migration v4's composite indexes (see `StorageReader.compositeIndexes`).
    var compositeIndexes = false

    /// Reads within the same transaction.
    package var reader: StorageReader { StorageReader(db: db, compositeIndexes: compositeIndexes) }

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
        // The statement's text is built once per table (`WriteSQL`) and its parameters bound through
        // SQLite's C API, as reads are: no argument array, no per-call SQL.
        var query = SQLiteQuery(try db.cachedStatement(sql: WriteSQL.of(table).insert).sqliteStatement)
        try query.bind(row.persistref)
        try query.bind(row.primaryKey)
        try bindColumns(of: row, in: table, to: &query)
        try Self.mappingConstraint { _ = try query.step() }
        return db.lastInsertedRowID
    }

    /// Binds the columns `insert` and `update` write after `pk`: the token columns, the item key, the
    /// attribute record and the secret.
    private func bindColumns(of row: ItemRow, in table: ItemTable, to query: inout SQLiteQuery) throws {
        // By name: a row built for writing holds its tokens in its own column order, not the table's.
        for column in table.tokenColumns {
            try row.tokens.withToken(named: column) { token in Result { try query.bind(optional: token) } }.get()
        }
        try query.bind(row.itemKey)
        try query.bind(row.attributes)
        try query.bind(optional: row.secret)
    }

    /// Rewrites every column of the row with `row.id` (its persistref stays).
    ///
    /// - Throws: `StorageError.uniqueViolation` when the new primary-key hash belongs to another row.
    package func update(_ row: ItemRow, in table: ItemTable) throws {
        guard let id = row.id else { preconditionFailure("update needs a row id") }
        var query = SQLiteQuery(try db.cachedStatement(sql: WriteSQL.of(table).update).sqliteStatement)
        try query.bind(row.primaryKey)
        try bindColumns(of: row, in: table, to: &query)
        try query.bind(id)
        try Self.mappingConstraint { _ = try query.step() }
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

/// The text of the item `INSERT` and `UPDATE`, built once per table instead of on every write.
struct WriteSQL: Sendable {
    /// `INSERT INTO <table> (persistref, pk, <token columns>, itemkey, attrs, secret) VALUES (?, …)`.
    let insert: String
    /// `UPDATE <table> SET pk = ?, <token columns> = ?, itemkey = ?, attrs = ?, secret = ? WHERE id = ?`.
    let update: String

    init(_ table: ItemTable) {
        let written = table.tokenColumns + ["itemkey", "attrs", "secret"]
        let inserted = ["persistref", "pk"] + written
        let marks = Array(repeating: "?", count: inserted.count).joined(separator: ",")
        insert = "INSERT INTO \(table.rawValue) (\(inserted.joined(separator: ","))) VALUES (\(marks))"
        let assignments = (["pk"] + written).map { "\($0) = ?" }.joined(separator: ", ")
        update = "UPDATE \(table.rawValue) SET \(assignments) WHERE id = ?"
    }

    private static let genp = WriteSQL(.genp)
    private static let inet = WriteSQL(.inet)
    private static let cert = WriteSQL(.cert)
    private static let keys = WriteSQL(.keys)

    static func of(_ table: ItemTable) -> WriteSQL {
        switch table {
        case .genp: genp
        case .inet: inet
        case .cert: cert
        case .keys: keys
        }
    }
}
