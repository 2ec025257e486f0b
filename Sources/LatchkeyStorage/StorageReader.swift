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
    /// When the filter constrains more than one indexed column (and no unique key), the index that
    /// drives the search is chosen by probing (see `drivingColumn`): SQLite has no statistics on these
    /// opaque columns, and left to itself it may walk an index whose token every row shares (the same
    /// service on every item), which costs a row visit per item in the table.
    ///
    /// - Parameter includeSecret: Whether to read the secret ciphertext (skipped for attribute-only reads).
    package func select(from table: ItemTable, where filter: RowFilter, includeSecret: Bool) throws -> [ItemRow] {
        let driving: String?
        switch try drivingColumn(table, filter) {
        case .noMatch: return []
        case .planner: driving = nil
        case .column(let column): driving = column
        }
        let shape = SelectSQL.of(table)
        var sql = includeSecret ? shape.headWithSecret : shape.headWithoutSecret
        var arguments: [Data] = []
        var separator = " WHERE "
        if let persistref = filter.persistref {
            sql += separator + "persistref = ?"
            separator = " AND "
            arguments.append(persistref)
        }
        if let primaryKey = filter.primaryKey {
            sql += separator + "pk = ?"
            separator = " AND "
            arguments.append(primaryKey)
        }
        for condition in filter.conditions {
            precondition(shape.tokenColumns.contains(condition.column), "unknown column \(condition.column)")
            sql += separator
            separator = " AND "
            // A unary `+` keeps a term out of index selection without changing its value (SQLite's
            // documented way to disqualify an index), so that the chosen index drives the search.
            if let driving, driving != condition.column, shape.indexedColumns.contains(condition.column) { sql += "+" }
            sql += Self.test(condition.column, count: condition.tokens.count)
            arguments += condition.tokens
        }
        sql += " ORDER BY id"
        if let limit = filter.limit { sql += " LIMIT \(limit)" }
        let statement = try db.cachedStatement(sql: sql)
        // A cursor decodes straight from SQLite's columns (no intermediate copy of every value).
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
        var rows: [ItemRow] = []
        while let row = try cursor.next() {
            var tokens: [String: Data] = [:]
            tokens.reserveCapacity(shape.tokenColumns.count)
            for (offset, column) in shape.tokenColumns.enumerated() where !row.hasNull(atIndex: 6 + offset) {
                tokens[column] = row[6 + offset] as Data
            }
            rows.append(
                ItemRow(
                    id: row[0] as Int64,
                    persistref: row[1],
                    primaryKey: row[2],
                    tokens: tokens,
                    itemKey: row[3],
                    attributes: row[4],
                    secret: row.hasNull(atIndex: 5) ? nil : row[5] as Data
                )
            )
        }
        return rows
    }

    /// How `select` searches: SQLite's own plan, one chosen index, or not at all (no row can match).
    enum SearchPlan: Equatable {
        case planner
        case column(String)
        case noMatch
    }

    /// Index entries a probe counts at most; probing a column whose token most rows share stays cheap.
    static let probeLimit = 32

    /// Picks the indexed column that drives a search when several are constrained.
    ///
    /// A unique key (persistref, primary-key hash) is left to SQLite, which always prefers it; so is a
    /// filter with at most one indexed column. Otherwise each indexed column is probed, in the table's
    /// index order, by counting (up to `probeLimit`) the rows its condition alone admits; the first with
    /// at most one row wins, else the smallest count. A count of zero proves that nothing matches.
    func drivingColumn(_ table: ItemTable, _ filter: RowFilter) throws -> SearchPlan {
        guard filter.persistref == nil, filter.primaryKey == nil, filter.conditions.count > 1 else { return .planner }
        let candidates = SelectSQL.of(table).indexedColumns.filter { column in
            filter.conditions.contains { $0.column == column }
        }
        guard candidates.count > 1 else { return .planner }
        var best: (column: String, rows: Int)?
        for column in candidates {
            var rows = Int.max
            for condition in filter.conditions where condition.column == column {
                rows = min(rows, try probe(table, column, condition.tokens))
            }
            if rows == 0 { return .noMatch }
            if rows <= 1 { return .column(column) }
            if rows < best?.rows ?? Int.max { best = (column, rows) }
        }
        return best.map { .column($0.column) } ?? .planner
    }

    /// How many rows (up to `probeLimit`) satisfy `column = token` (or `column IN tokens`), by the index.
    private func probe(_ table: ItemTable, _ column: String, _ tokens: [Data]) throws -> Int {
        let statement = try db.cachedStatement(
            sql:
                "SELECT count(*) FROM (SELECT 1 FROM \(table.rawValue) WHERE \(Self.test(column, count: tokens.count)) "
                + "LIMIT \(Self.probeLimit))"
        )
        return try Int.fetchOne(statement, arguments: StatementArguments(tokens)) ?? 0
    }

    /// `term = ?`, or `term IN (?, ...)` for several tokens (`IN ()`, never true, for none).
    private static func test(_ term: String, count: Int) -> String {
        if count == 1 { return "\(term) = ?" }
        return "\(term) IN (\(Array(repeating: "?", count: count).joined(separator: ",")))"
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

/// The fixed parts of an item `SELECT`, built once per table instead of on every lookup.
private struct SelectSQL: Sendable {
    let tokenColumns: [String]
    let indexedColumns: [String]
    /// `SELECT id, persistref, pk, itemkey, attrs, secret, <token columns> FROM <table>`.
    let headWithSecret: String
    /// The same with `NULL` in place of `secret`.
    let headWithoutSecret: String

    init(_ table: ItemTable) {
        tokenColumns = table.tokenColumns
        indexedColumns = table.indexedColumns
        let tokenList = tokenColumns.joined(separator: ", ")
        headWithSecret = "SELECT id, persistref, pk, itemkey, attrs, secret, \(tokenList) FROM \(table.rawValue)"
        headWithoutSecret = "SELECT id, persistref, pk, itemkey, attrs, NULL, \(tokenList) FROM \(table.rawValue)"
    }

    private static let genp = SelectSQL(.genp)
    private static let inet = SelectSQL(.inet)
    private static let cert = SelectSQL(.cert)
    private static let keys = SelectSQL(.keys)

    static func of(_ table: ItemTable) -> SelectSQL {
        switch table {
        case .genp: genp
        case .inet: inet
        case .cert: cert
        case .keys: keys
        }
    }
}
