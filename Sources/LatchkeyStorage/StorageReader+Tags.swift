import Foundation

// Search tags (migration v3, docs/storage-format.md §11): the rows of the `tags` table and how a search by
// tags is ordered. `select` runs the search itself.
extension StorageReader {
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
        let query = try query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tags'")
        return try query.step()
    }

    /// `filter` with its tag tokens ordered for the search: the one with the fewest rows in `tags` (probed
    /// like `drivingColumn`, up to `probeLimit` entries each) first, since it drives the search and the
    /// others are only tested on its rows. `nil` when no row can match: a token without rows, or a file
    /// without the `tags` table (not migrated to v3, opened read-only), where no item has tags.
    func orderingTags(_ table: ItemTable, _ filter: RowFilter) throws -> RowFilter? {
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
        let query = try query("EXPLAIN QUERY PLAN " + key.sql(SelectSQL.of(table)))
        var details: [String] = []
        while try query.step() { details.append(try query.requiredText(3)) }
        return details
    }
}
