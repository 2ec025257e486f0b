import Foundation
import GRDB
import GRDBSQLite

/// Read access inside one SQLite transaction (or one statement); valid only inside the closure it is
/// handed to.
///
/// Every read runs a prepared statement through SQLite's C API: GRDB's cached statements inside pool
/// reads and write transactions, the dedicated connection's on the fast read path (`StorageFile.read`).
package struct StorageReader {
    /// Where the statements come from.
    private enum Source {
        case grdb(Database)
        case direct(ReadConnection)
    }

    private let source: Source
    /// Whether the file has migration v4's composite indexes (`ItemTable.compositeIndex`), which a search
    /// driven by their leading column uses for their trailing column too.
    let compositeIndexes: Bool

    /// A reader on a GRDB connection (a pool read or a write transaction).
    init(db: Database, compositeIndexes: Bool = false) {
        source = .grdb(db)
        self.compositeIndexes = compositeIndexes
    }

    /// A reader on the dedicated read connection.
    init(connection: ReadConnection, compositeIndexes: Bool = false) {
        source = .direct(connection)
        self.compositeIndexes = compositeIndexes
    }

    /// The prepared statement for `sql` on this reader's connection, ready to bind.
    func query(_ sql: String) throws -> SQLiteQuery {
        try query(.sql(sql)) { sql }
    }

    /// The prepared statement named by `key`, whose text `sql` builds only when it is not prepared yet
    /// (on the dedicated connection; GRDB's cache is keyed by the text itself).
    func query(_ key: StatementKey, sql: () -> String) throws -> SQLiteQuery {
        switch source {
        case .grdb(let db): SQLiteQuery(try db.cachedStatement(sql: sql()).sqliteStatement)
        case .direct(let connection): SQLiteQuery(try connection.statement(key, sql: sql), clearsBindings: false)
        }
    }

    /// The value stored under `name` in the `meta` table.
    package func meta(_ name: String) throws -> Data? {
        var query = try query("SELECT value FROM meta WHERE name = ?")
        try query.bind(name)
        return try query.step() ? query.blob(0) : nil
    }

    /// The row ledger's seal (`changes.ledger`), or `nil` when there is none (a format 1 file).
    package func ledgerSeal() throws -> Data? {
        let query = try query("SELECT ledger FROM changes WHERE id = 1")
        return try query.step() ? query.blob(0) : nil
    }

    /// Every unlock slot, oldest first.
    package func slots() throws -> [SlotRow] {
        let query = try query("SELECT id, kind, parameters, wrapped, checksum FROM slots ORDER BY id")
        var slots: [SlotRow] = []
        while try query.step() {
            slots.append(
                SlotRow(
                    id: query.int64(0),
                    kind: try query.requiredText(1),
                    parameters: try query.requiredBlob(2),
                    wrappedMasterKey: try query.requiredBlob(3),
                    checksum: try query.requiredBlob(4)
                )
            )
        }
        return slots
    }

    /// Every class key row.
    package func classKeys() throws -> [ClassKeyRow] {
        let query = try query("SELECT class, bymaster, bydevice FROM classkeys")
        var rows: [ClassKeyRow] = []
        while try query.step() {
            rows.append(
                ClassKeyRow(keyClass: try query.requiredText(0), byMaster: query.blob(1), byDevice: query.blob(2))
            )
        }
        return rows
    }

    /// A counter bumped by every committed write, in any process.
    package func changeCounter() throws -> Int64 {
        let query = try query("SELECT counter FROM changes WHERE id = 1")
        return try query.step() ? query.int64(0) : 0
    }

    /// The rows of `table` that pass `filter`, in insertion order.
    ///
    /// When the filter constrains more than one indexed column (and no unique key), the index that
    /// drives the search is chosen by probing (see `drivingColumn`): SQLite has no statistics on these
    /// opaque columns, and left to itself it may walk an index whose token every row shares (the same
    /// service on every item), which costs a row visit per item in the table.
    ///
    /// On the dedicated read connection the probe is skipped in the usual case: the search is first
    /// driven by the first constrained index (the account for a password), with a budget of SQLite
    /// instructions (`speculationBudget`) that a selective token never reaches; a token shared by many
    /// rows exhausts it, and the search is run again after probing.
    ///
    /// - Parameter includeSecret: Whether to read the secret ciphertext (skipped for attribute-only reads).
    package func select(from table: ItemTable, where filter: RowFilter, includeSecret: Bool) throws -> [ItemRow] {
        if !filter.tags.isEmpty {
            guard let ordered = try orderingTags(table, filter) else { return [] }
            return try select(table, ordered, includeSecret, driving: Self.tagIndex)
        }
        if case .direct(let connection) = source, let first = firstCandidate(table, filter),
            let rows = try connection.withinBudget(
                Self.speculationBudget,
                { try select(table, filter, includeSecret, driving: first, budgeted: connection) }
            )
        {
            return rows
        }
        switch try drivingColumn(table, filter) {
        case .noMatch: return []
        case .planner: return try select(table, filter, includeSecret, driving: nil)
        case .column(let column): return try select(table, filter, includeSecret, driving: column)
        }
    }

    /// The shape of the statement that selects `filter`'s rows of `table`, driven by the index on `driving`.
    func selectKey(
        _ table: ItemTable,
        _ filter: RowFilter,
        _ includeSecret: Bool,
        driving: String?
    ) -> SelectKey {
        let shape = SelectSQL.of(table)
        return SelectKey(
            table: table,
            includeSecret: includeSecret,
            persistref: filter.persistref != nil,
            primaryKey: filter.primaryKey != nil,
            limited: filter.limit != nil,
            terms: filter.conditions.map { term($0, table, shape, driving: driving) },
            tags: filter.tags.count
        )
    }

    /// One condition's term: its column, its token count, and whether a `+` keeps its index from driving.
    private func term(
        _ condition: (column: String, tokens: [Data]),
        _ table: ItemTable,
        _ shape: SelectSQL,
        driving: String?
    ) -> SelectKey.Term {
        guard let column = shape.tokenColumns.firstIndex(of: condition.column) else {
            preconditionFailure("unknown column \(condition.column)")
        }
        // A unary `+` keeps a term out of index selection without changing its value (SQLite's
        // documented way to disqualify an index), so that the chosen index drives the search. The
        // trailing column of the driving column's composite index keeps its term: SQLite then descends
        // that index by both (and prefers it, having more equalities, to the trailing column's own).
        let composite =
            compositeIndexes
            && table.compositeIndex.map { $0.leading == driving && $0.trailing == condition.column } ?? false
        let disqualified =
            driving != nil && driving != condition.column && shape.indexedColumns.contains(condition.column)
            && !composite
        return SelectKey.Term(column: column, tokens: condition.tokens.count, disqualified: disqualified)
    }

    /// SQLite virtual-machine instructions a search driven without probing may take (about a hundred
    /// index entries) before it is abandoned for the probing path.
    static let speculationBudget: Int32 = 1000

    /// The rows of `table` that pass `filter`, the search driven by the index on `driving` (or by
    /// SQLite's planner for `nil`).
    ///
    /// - Parameter budgeted: The connection whose instruction budget applies while the rows are stepped.
    private func select(
        _ table: ItemTable,
        _ filter: RowFilter,
        _ includeSecret: Bool,
        driving: String?,
        budgeted: ReadConnection? = nil
    ) throws -> [ItemRow] {
        let shape = SelectSQL.of(table)
        func key() -> SelectKey { selectKey(table, filter, includeSecret, driving: driving) }
        // A search by tags is keyed by its `SelectKey` (the signature has no room for tags).
        var signature =
            filter.tags.isEmpty
            ? SelectKey.Signature(
                table: table,
                includeSecret: includeSecret,
                persistref: filter.persistref != nil,
                primaryKey: filter.primaryKey != nil,
                limited: filter.limit != nil
            ) : nil
        for condition in filter.conditions {
            guard var packed = signature else { break }
            signature = packed.append(term(condition, table, shape, driving: driving)) ? packed : nil
        }
        let statementKey = signature.map { StatementKey.selectSignature($0.bits) } ?? .select(key())
        var query = try query(statementKey) { key().sql(shape) }
        if let persistref = filter.persistref { try query.bind(persistref) }
        if let primaryKey = filter.primaryKey { try query.bind(primaryKey) }
        for tag in filter.tags { try query.bind(tag) }
        for condition in filter.conditions {
            for token in condition.tokens { try query.bind(token) }
        }
        if let limit = filter.limit { try query.bind(Int64(limit)) }
        // The budget counts stepping only (a statement prepared under it could be abandoned forever).
        if let budgeted {
            query.resetInstructionCount()
            budgeted.startBudget()
        }
        var rows: [ItemRow] = []
        while try query.step() {
            rows.append(try Self.row(query, tokenColumns: shape.tokenColumns, attributes: true))
        }
        return rows
    }

    /// The row at the statement's current step; columns as in `SelectSQL` (`attributes: false` for
    /// `SelectSQL.ledgerHead`, which reads no ciphertext but the wrapped item key).
    private static func row(_ query: borrowing SQLiteQuery, tokenColumns: [String], attributes: Bool) throws -> ItemRow
    {
        let first = Int32(SelectSQL.firstTokenColumn)
        let tokens = RowTokens(
            columns: tokenColumns,
            count: { query.length(first + Int32($0)) },
            copy: { query.copy(first + Int32($0), to: $1) }
        )
        return ItemRow(
            id: query.int64(0),
            persistref: try query.requiredBlob(1),
            primaryKey: try query.requiredBlob(2),
            rowTokens: tokens,
            itemKey: try query.requiredBlob(3),
            attributes: attributes ? try query.requiredBlob(4) : Data(),
            secret: query.blob(5),
            hasSecret: query.int64(6) != 0
        )
    }

    /// The persistref of the row with `id` in `table`, or `nil` when there is none.
    package func persistref(of id: Int64, in table: ItemTable) throws -> Data? {
        var query = try query("SELECT persistref FROM \(table.rawValue) WHERE id = ?")
        try query.bind(id)
        return try query.step() ? query.blob(0) : nil
    }

    /// Calls `body` with every row of `table` in id order, without its ciphertexts (`attributes` empty,
    /// `secret` nil, `hasSecret` set): what the row ledger hashes.
    ///
    /// - Parameter bucket: Only the rows whose `(id + offset) % modulus == value` (SQLite tests the row id
    ///   in each cell without decoding the other columns); `nil` for every row.
    package func scanRows(
        of table: ItemTable,
        bucket: (offset: Int64, modulus: Int64, value: Int64)? = nil,
        _ body: (ItemRow) throws -> Void
    ) throws {
        let shape = SelectSQL.of(table)
        var statement: SQLiteQuery
        if let bucket {
            statement = try query(shape.ledgerBucketHead)
            try statement.bind(bucket.offset)
            try statement.bind(bucket.modulus)
            try statement.bind(bucket.value)
        } else {
            statement = try query(shape.ledgerHead)
        }
        while try statement.step() {
            try body(try Self.row(statement, tokenColumns: shape.tokenColumns, attributes: false))
        }
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
    /// The first indexed column a search could be driven by, when it would otherwise be probed.
    func firstCandidate(_ table: ItemTable, _ filter: RowFilter) -> String? {
        guard filter.persistref == nil, filter.primaryKey == nil, filter.conditions.count > 1 else { return nil }
        let indexed = SelectSQL.of(table).indexedColumns
        func constrained(_ column: String) -> Bool { filter.conditions.contains { $0.column == column } }
        guard indexed.lazy.filter(constrained).count > 1 else { return nil }
        return indexed.first(where: constrained)
    }

    func drivingColumn(_ table: ItemTable, _ filter: RowFilter) throws -> SearchPlan {
        guard filter.persistref == nil, filter.primaryKey == nil, filter.conditions.count > 1 else { return .planner }
        let indexed = SelectSQL.of(table).indexedColumns
        func constrained(_ column: String) -> Bool { filter.conditions.contains { $0.column == column } }
        guard indexed.lazy.filter(constrained).count > 1 else { return .planner }
        var best: (column: String, rows: Int)?
        for column in indexed where constrained(column) {
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
        var query = try query(.probe(table, column, tokens.count)) {
            "SELECT count(*) FROM (SELECT 1 FROM \(table.rawValue) WHERE \(Self.test(column, count: tokens.count)) "
                + "LIMIT \(Self.probeLimit))"
        }
        for token in tokens { try query.bind(token) }
        return try query.step() ? Int(query.int64(0)) : 0
    }

    /// `term = ?`, or `term IN (?, ...)` for several tokens (`IN ()`, never true, for none).
    static func test(_ term: String, count: Int) -> String {
        if count == 1 { return "\(term) = ?" }
        return "\(term) IN (\(Array(repeating: "?", count: count).joined(separator: ",")))"
    }

    /// The number of rows in `table` (for diagnostics and benchmarks).
    package func count(in table: ItemTable) throws -> Int {
        let query = try query("SELECT COUNT(*) FROM \(table.rawValue)")
        return try query.step() ? Int(query.int64(0)) : 0
    }

    /// SQLite's own structural check; returns its messages, `["ok"]` when sound.
    package func integrityCheck() throws -> [String] {
        let query = try query("PRAGMA integrity_check")
        var messages: [String] = []
        while try query.step() { messages.append(try query.requiredText(0)) }
        return messages
    }
}
