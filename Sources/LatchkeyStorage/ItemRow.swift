import Foundation

/// One stored item as bytes: identifiers, keyed tokens and ciphertexts.
package struct ItemRow: Sendable, Equatable {
    /// SQLite row id (insertion order); `nil` before insertion.
    package var id: Int64?
    /// 16 random bytes naming the item for its whole life (basis of persistent references and of the
    /// ciphertexts' associated data).
    package var persistref: Data
    /// Keyed hash of the canonical primary-key tuple (UNIQUE).
    package var primaryKey: Data
    /// Token column name → token; absent or `nil` means NULL.
    package var tokens: [String: Data]
    /// The per-item key, wrapped by its class key.
    package var itemKey: Data
    /// The encrypted attribute record.
    package var attributes: Data
    /// The encrypted secret, or `nil` when the item has no data (absent is not empty).
    package var secret: Data?

    package init(
        id: Int64? = nil,
        persistref: Data,
        primaryKey: Data,
        tokens: [String: Data],
        itemKey: Data,
        attributes: Data,
        secret: Data?
    ) {
        self.id = id
        self.persistref = persistref
        self.primaryKey = primaryKey
        self.tokens = tokens
        self.itemKey = itemKey
        self.attributes = attributes
        self.secret = secret
    }
}

/// An AND of column conditions; each column must equal one of the listed tokens.
package struct RowFilter: Sendable, Equatable {
    /// (column, accepted tokens) pairs; one token is `=`, several are `IN (...)`.
    package var conditions: [(column: String, tokens: [Data])]
    /// Restrict to the row with this persistent identifier.
    package var persistref: Data?
    /// Restrict to the row with this primary-key hash.
    package var primaryKey: Data?
    /// Stop after this many rows (in insertion order); `nil` for all.
    package var limit: Int?

    package init(
        conditions: [(column: String, tokens: [Data])] = [],
        persistref: Data? = nil,
        primaryKey: Data? = nil,
        limit: Int? = nil
    ) {
        self.conditions = conditions
        self.persistref = persistref
        self.primaryKey = primaryKey
        self.limit = limit
    }

    package static func == (lhs: RowFilter, rhs: RowFilter) -> Bool {
        lhs.persistref == rhs.persistref && lhs.primaryKey == rhs.primaryKey && lhs.limit == rhs.limit
            && lhs.conditions.map(\.column) == rhs.conditions.map(\.column)
            && lhs.conditions.map(\.tokens) == rhs.conditions.map(\.tokens)
    }
}

/// One unlock slot: a way to recover the master key.
package struct SlotRow: Sendable, Equatable {
    /// Row id; `nil` before insertion.
    package var id: Int64?
    /// `passphrase` or `keyfile`.
    package var kind: String
    /// KDF parameters (scrypt cost and salt, or the key-file salt).
    package var parameters: Data
    /// The master key wrapped by the slot's key-encryption key.
    package var wrappedMasterKey: Data
    /// SHA-256 over kind, parameters and wrapped key, to tell a damaged slot from a wrong passphrase.
    package var checksum: Data

    package init(id: Int64? = nil, kind: String, parameters: Data, wrappedMasterKey: Data, checksum: Data) {
        self.id = id
        self.kind = kind
        self.parameters = parameters
        self.wrappedMasterKey = wrappedMasterKey
        self.checksum = checksum
    }
}

/// A class key (one per accessibility class), wrapped under the master key and/or the device key.
package struct ClassKeyRow: Sendable, Equatable {
    /// The accessibility code, e.g. `ak`.
    package var keyClass: String
    /// Wrapped by a key derived from the master key (or master key + device secret).
    package var byMaster: Data?
    /// Wrapped by a key derived from the device secret alone (classes readable without the passphrase).
    package var byDevice: Data?

    package init(keyClass: String, byMaster: Data?, byDevice: Data?) {
        self.keyClass = keyClass
        self.byMaster = byMaster
        self.byDevice = byDevice
    }
}
