import Foundation

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
