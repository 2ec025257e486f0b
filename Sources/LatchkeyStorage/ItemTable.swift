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
    package var searchColumns: [String] {
        switch self {
        case .genp: ["acct", "svce", "gena", "labl", "desc", "icmt", "crtr", "type"]
        case .inet: ["acct", "srvr", "sdmn", "ptcl", "atyp", "port", "path", "labl", "desc", "icmt", "crtr", "type"]
        case .cert: ["ctyp", "subj", "issr", "slnr", "skid", "pkhh", "labl", "alis"]
        case .keys: ["kcls", "klbl", "atag", "crtr", "type", "bsiz", "esiz", "labl", "alis", "priv"]
        }
    }

    /// Every token column, fixed ones first.
    package var tokenColumns: [String] { Self.fixedTokenColumns + searchColumns }

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
