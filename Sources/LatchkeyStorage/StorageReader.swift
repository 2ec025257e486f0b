import Foundation
import GRDB

/// Read access inside one SQLite transaction (or one statement); valid only inside the closure it is
/// handed to.
package struct StorageReader {
    let db: Database

    /// The value stored under `name` in the `meta` table.
    package func meta(_ name: String) throws -> Data? {
        try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE name = ?"), arguments: [name])
    }

    /// Every unlock slot, oldest first.
    package func slots() throws -> [SlotRow] {
        try Row.fetchAll(db, sql: "SELECT id, kind, parameters, wrapped, checksum FROM slots ORDER BY id").map {
            SlotRow(
                id: $0[0],
                kind: $0[1],
                parameters: $0[2],
                wrappedMasterKey: $0[3],
                checksum: $0[4]
            )
        }
    }

    /// Every class key row.
    package func classKeys() throws -> [ClassKeyRow] {
        try Row.fetchAll(db, sql: "SELECT class, bymaster, bydevice FROM classkeys").map {
            ClassKeyRow(keyClass: $0[0], byMaster: $0[1], byDevice: $0[2])
        }
    }

    /// A counter bumped by every committed write, in any process.
    package func changeCounter() throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT counter FROM changes WHERE id = 1")) ?? 0
    }

    /// The rows of `table` that pass `filter`, in insertion order.
    ///
    /// - Parameter includeSecret: Whether to read the secret ciphertext (skipped for attribute-only reads).
    package func select(from table: ItemTable, where filter: RowFilter, includeSecret: Bool) throws -> [ItemRow] {
        var clauses: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let persistref = filter.persistref {
            clauses.append("persistref = ?")
            arguments.append(persistref)
        }
        if let primaryKey = filter.primaryKey {
            clauses.append("pk = ?")
            arguments.append(primaryKey)
        }
        for condition in filter.conditions {
            precondition(table.tokenColumns.contains(condition.column), "unknown column \(condition.column)")
            if condition.tokens.count == 1 {
                clauses.append("\(condition.column) = ?")
            } else {
                let marks = Array(repeating: "?", count: condition.tokens.count).joined(separator: ",")
                clauses.append("\(condition.column) IN (\(marks))")
            }
            arguments.append(contentsOf: condition.tokens.map { $0 as (any DatabaseValueConvertible)? })
        }
        let tokenList = table.tokenColumns.joined(separator: ", ")
        var sql = "SELECT id, persistref, pk, itemkey, attrs, \(includeSecret ? "secret" : "NULL"), \(tokenList) "
        sql += "FROM \(table.rawValue)"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY id"
        if let limit = filter.limit { sql += " LIMIT \(limit)" }
        let statement = try db.cachedStatement(sql: sql)
        let columns = table.tokenColumns
        let rows = try Row.fetchAll(statement, arguments: StatementArguments(arguments))
        return rows.map { row in
            var tokens: [String: Data] = [:]
            for (offset, column) in columns.enumerated() {
                if let token: Data = row[6 + offset] { tokens[column] = token }
            }
            return ItemRow(
                id: row[0],
                persistref: row[1],
                primaryKey: row[2],
                tokens: tokens,
                itemKey: row[3],
                attributes: row[4],
                secret: row[5]
            )
        }
    }

    /// The number of rows in `table` (for diagnostics and benchmarks).
    package func count(in table: ItemTable) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.rawValue)") ?? 0
    }

    /// SQLite's own structural check; returns its messages, `["ok"]` when sound.
    package func integrityCheck() throws -> [String] {
        try String.fetchAll(db, sql: "PRAGMA integrity_check")
    }
}
