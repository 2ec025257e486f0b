/// The four item tables and their opaque token columns.
///
/// Storage knows columns and bytes, not what they mean: the `Latchkey` layer decides which attribute
/// value's keyed token goes into which column. Every token column holds a 16-byte keyed hash or NULL.
package enum ItemTable: String, CaseIterable, Sendable {
    /// Generic passwords.
    case genp
    /// Internet passwords.
    case inet
    /// Certificates.
    case cert
    /// Cryptographic keys.
    case keys

    /// Token columns every table has (NOT NULL): accessibility class, access group, sync flag, tombstone flag.
    package static let fixedTokenColumns = ["kc", "agrp", "sync", "tomb"]

    /// Optional token columns for searchable attributes, named after the attribute short names.
    package var searchColumns: [String] { Columns.of(self).search }

    /// Every token column, fixed ones first.
    package var tokenColumns: [String] { Columns.of(self).token }

    /// The column lists, built once per table (they are read on every query).
    private struct Columns: Sendable {
        let search: [String]
        let token: [String]

        init(_ search: [String]) {
            self.search = search
            token = ItemTable.fixedTokenColumns + search
        }

        static let genp = Columns(["acct", "svce", "gena", "labl", "desc", "icmt", "crtr", "type"])
        static let inet = Columns([
            "acct", "srvr", "sdmn", "ptcl", "atyp", "port", "path", "labl", "desc", "icmt", "crtr", "type",
        ])
        static let cert = Columns(["ctyp", "subj", "issr", "slnr", "skid", "pkhh", "labl", "alis"])
        static let keys = Columns(["kcls", "klbl", "atag", "crtr", "type", "bsiz", "esiz", "labl", "alis", "priv"])

        static func of(_ table: ItemTable) -> Columns {
            switch table {
            case .genp: genp
            case .inet: inet
            case .cert: cert
            case .keys: keys
            }
        }
    }

    /// The composite index of migration v4 (docs/storage-format.md §3): the primary key's two most
    /// selective token columns, in place of schema version 1's index on the leading one alone.
    package var compositeIndex: (leading: String, trailing: String)? {
        switch self {
        case .genp: ("acct", "svce")
        case .inet: ("srvr", "acct")
        case .cert: ("issr", "slnr")
        case .keys: nil
        }
    }

    /// Columns that get an index in schema version 1.
    var indexedColumns: [String] {
        switch self {
        case .genp: ["acct", "svce", "gena"]
        case .inet: ["srvr", "acct"]
        case .cert: ["subj", "issr", "pkhh"]
        case .keys: ["klbl", "atag", "labl"]
        }
    }
}
