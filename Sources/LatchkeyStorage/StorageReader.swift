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

    /// A reader on a GRDB connection (a pool read or a write transaction).
    init(db: Database) {
        source = .grdb(db)
    }

    /// A reader on the dedicated read connection.
    init(connection: ReadConnection) {
        source = .direct(connection)
    }

    /// The prepared statement for `sql` on this reader's connection, ready to bind.
    private func query(_ sql: String) throws -> SQLiteQuery {
        try query(.sql(sql)) { sql }
    }

    /// The prepared statement named by `key`, whose text `sql` builds only when it is not prepared yet
    /// (on the dedicated connection; GRDB's cache is keyed by the text itself).
    private func query(_ key: StatementKey, sql: () -> String) throws -> SQLiteQuery {
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
        var query = try query("SELECT ledger FROM changes WHERE id = 1")
        return try query.step() ? query.blob(0) : nil
    }

    /// Every unlock slot, oldest first.
    package func slots() throws -> [SlotRow] {
        var query = try query("SELECT id, kind, parameters, wrapped, checksum FROM slots ORDER BY id")
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
        var query = try query("SELECT class, bymaster, bydevice FROM classkeys")
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
        var query = try query("SELECT counter FROM changes WHERE id = 1")
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

    /// The `driving` value of a search by tags: no token column's index may drive it (each gets a `+`), so
    /// that SQLite starts from the rows of the tags' tokens (`tags_token`) and reads only the rows carrying
    /// every tag, by row id.
    static let tagIndex = "tags"

    /// Every search-tag token of the rows of `table`, by row id, each row's tokens in byte order (empty for a
    /// file without the `tags` table). Rows that name no item are included.
    package func tagTokens(in table: ItemTable) throws -> [Int64: [Data]] {
        guard try hasTagTable() else { return [:] }
        var query = try query("SELECT item, token FROM tags WHERE tbl = ? ORDER BY item, token")
        try query.bind(table.rawValue)
        var tokens: [Int64: [Data]] = [:]
        while try query.step() { tokens[query.int64(0), default: []].append(try query.requiredBlob(1)) }
        return tokens
    }

    /// Whether the file has the `tags` table (migration v3).
    private func hasTagTable() throws -> Bool {
        var query = try query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tags'")
        return try query.step()
    }

    /// `filter` with its tag tokens ordered for the search: the one with the fewest rows in `tags` (probed
    /// like `drivingColumn`, up to `probeLimit` entries each) first, since it drives the search and the
    /// others are only tested on its rows. `nil` when no row can match: a token without rows, or a file
    /// without the `tags` table (not migrated to v3, opened read-only), where no item has tags.
    private func orderingTags(_ table: ItemTable, _ filter: RowFilter) throws -> RowFilter? {
        guard try hasTagTable() else { return nil }
        let distinct = filter.tags.reduce(into: [Data]()) { tags, tag in if !tags.contains(tag) { tags.append(tag) } }
        var ordered = filter
        ordered.tags = distinct
        guard distinct.count > 1 else { return ordered }
        var counted: [(tag: Data, rows: Int)] = []
        for tag in distinct {
            var query = try query(.tagProbe) {
                "SELECT count(*) FROM (SELECT 1 FROM tags WHERE token = ? AND tbl = ? LIMIT \(Self.probeLimit))"
            }
            try query.bind(tag)
            try query.bind(table.rawValue)
            let rows = try query.step() ? Int(query.int64(0)) : 0
            if rows == 0 { return nil }
            counted.append((tag, rows))
        }
        // A stable sort: equal counts keep the caller's order.
        ordered.tags = counted.enumerated().sorted { ($0.element.rows, $0.offset) < ($1.element.rows, $1.offset) }
            .map(\.element.tag)
        return ordered
    }

    /// SQLite's plan (`EXPLAIN QUERY PLAN`, one detail line per step) for the statement `select` runs first
    /// for `filter`; tests use it to show which index drives a search.
    package func queryPlan(from table: ItemTable, where filter: RowFilter, includeSecret: Bool) throws -> [String] {
        var filter = filter
        if !filter.tags.isEmpty {
            guard let ordered = try orderingTags(table, filter) else { return [] }
            filter = ordered
        }
        let driving: String? = filter.tags.isEmpty ? firstCandidate(table, filter) : Self.tagIndex
        let key = selectKey(table, filter, includeSecret, driving: driving)
        var query = try query("EXPLAIN QUERY PLAN " + key.sql(SelectSQL.of(table)))
        var details: [String] = []
        while try query.step() { details.append(try query.requiredText(3)) }
        return details
    }

    /// The shape of the statement that selects `filter`'s rows of `table`, driven by the index on `driving`.
    private func selectKey(
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
            terms: filter.conditions.map { Self.term($0, shape, driving: driving) },
            tags: filter.tags.count
        )
    }

    /// One condition's term: its column, its token count, and whether a `+` keeps its index from driving.
    private static func term(
        _ condition: (column: String, tokens: [Data]),
        _ shape: SelectSQL,
        driving: String?
    ) -> SelectKey.Term {
        guard let column = shape.tokenColumns.firstIndex(of: condition.column) else {
            preconditionFailure("unknown column \(condition.column)")
        }
        // A unary `+` keeps a term out of index selection without changing its value (SQLite's
        // documented way to disqualify an index), so that the chosen index drives the search.
        let disqualified =
            driving != nil && driving != condition.column && shape.indexedColumns.contains(condition.column)
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
            signature = packed.append(Self.term(condition, shape, driving: driving)) ? packed : nil
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
    fileprivate static func test(_ term: String, count: Int) -> String {
        if count == 1 { return "\(term) = ?" }
        return "\(term) IN (\(Array(repeating: "?", count: count).joined(separator: ",")))"
    }

    /// The number of rows in `table` (for diagnostics and benchmarks).
    package func count(in table: ItemTable) throws -> Int {
        var query = try query("SELECT COUNT(*) FROM \(table.rawValue)")
        return try query.step() ? Int(query.int64(0)) : 0
    }

    /// SQLite's own structural check; returns its messages, `["ok"]` when sound.
    package func integrityCheck() throws -> [String] {
        var query = try query("PRAGMA integrity_check")
        var messages: [String] = []
        while try query.step() { messages.append(try query.requiredText(0)) }
        return messages
    }
}

/// The shape of an item `SELECT`: everything its SQL text depends on, so that the dedicated connection
/// finds the prepared statement without building the text (the tokens and the limit are bound).
struct SelectKey: Hashable {
    /// One condition: which token column, how many accepted tokens, and whether the `+` keeps its index
    /// from driving the search.
    struct Term: Hashable {
        var column: Int
        var tokens: Int
        var disqualified: Bool
    }

    var table: ItemTable
    var includeSecret: Bool
    var persistref: Bool
    var primaryKey: Bool
    var limited: Bool
    var terms: [Term] = []
    /// How many search-tag tokens the row must carry.
    var tags = 0

    /// The same shape packed into 64 bits, when it fits (up to five terms of at most 31 tokens each,
    /// the usual query), so that looking up its statement hashes one integer and allocates nothing.
    struct Signature {
        private(set) var bits: UInt64
        private var terms = 0

        init?(table: ItemTable, includeSecret: Bool, persistref: Bool, primaryKey: Bool, limited: Bool) {
            guard let tableIndex = ItemTable.allCases.firstIndex(of: table) else { return nil }
            bits = UInt64(tableIndex)
            for flag in [includeSecret, persistref, primaryKey, limited] {
                bits = bits << 1 | (flag ? 1 : 0)
            }
        }

        /// Adds a term; `false` when it does not fit (the caller then keys the statement by `SelectKey`).
        mutating func append(_ term: Term) -> Bool {
            guard terms < 5, term.column < 16, term.tokens < 32 else { return false }
            // 6 bits of table and flags, then 10 bits per term, then the term count in the top 4 bits.
            let packed = UInt64(term.column | term.tokens << 4 | (term.disqualified ? 1 << 9 : 0))
            bits |= packed << UInt64(6 + 10 * terms)
            terms += 1
            bits = bits & ~(0xF << 60) | UInt64(terms) << 60
            return true
        }
    }

    /// The SQL text; parameters in order: persistref, primary key, the tag tokens, each term's tokens, the
    /// limit.
    func sql(_ shape: SelectSQL) -> String {
        var sql = includeSecret ? shape.headWithSecret : shape.headWithoutSecret
        var separator = " WHERE "
        if persistref {
            sql += separator + "persistref = ?"
            separator = " AND "
        }
        if primaryKey {
            sql += separator + "pk = ?"
            separator = " AND "
        }
        if tags > 0 {
            // The rows of the first tag's token (through `tags_token`), each checked for the other tags
            // through the primary key of `tags`.
            let name = table.rawValue
            sql += separator + "id IN (SELECT item FROM tags WHERE token = ? AND tbl = '\(name)')"
            for _ in 1..<tags {
                sql += " AND EXISTS (SELECT 1 FROM tags WHERE tbl = '\(name)' AND item = \(name).id AND token = ?)"
            }
            separator = " AND "
        }
        for term in terms {
            sql += separator + (term.disqualified ? "+" : "")
            sql += StorageReader.test(shape.tokenColumns[term.column], count: term.tokens)
            separator = " AND "
        }
        sql += " ORDER BY id"
        if limited { sql += " LIMIT ?" }
        return sql
    }
}

/// The fixed parts of an item `SELECT`, built once per table instead of on every lookup.
struct SelectSQL: Sendable {
    let tokenColumns: [String]
    let indexedColumns: [String]
    /// `SELECT id, persistref, pk, itemkey, attrs, secret, secret IS NOT NULL, <token columns> FROM <table>`.
    let headWithSecret: String
    /// The same with `NULL` in place of `secret`.
    let headWithoutSecret: String
    /// Every row in id order with `NULL` in place of `attrs` and `secret` (the row ledger's scan).
    let ledgerHead: String
    /// The same for the rows of one ledger bucket: parameters offset, modulus, value.
    let ledgerBucketHead: String

    /// The index of the first token column in every head.
    static let firstTokenColumn = 7

    init(_ table: ItemTable) {
        tokenColumns = table.tokenColumns
        indexedColumns = table.indexedColumns
        let tokenList = tokenColumns.joined(separator: ", ")
        let tail = "secret IS NOT NULL, \(tokenList) FROM \(table.rawValue)"
        headWithSecret = "SELECT id, persistref, pk, itemkey, attrs, secret, \(tail)"
        headWithoutSecret = "SELECT id, persistref, pk, itemkey, attrs, NULL, \(tail)"
        ledgerHead = "SELECT id, persistref, pk, itemkey, NULL, NULL, \(tail) ORDER BY id"
        ledgerBucketHead = "SELECT id, persistref, pk, itemkey, NULL, NULL, \(tail) WHERE (id + ?) % ? = ? ORDER BY id"
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
