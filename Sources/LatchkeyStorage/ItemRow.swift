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
    package var tokens: RowTokens
    /// The per-item key, wrapped by its class key.
    package var itemKey: Data
    /// The encrypted attribute record.
    package var attributes: Data
    /// The encrypted secret, or `nil` when the item has no data (absent is not empty) or when it was
    /// not read (see `hasSecret`).
    package var secret: Data?
    /// Whether the row stores a secret, known even when the secret itself was not read.
    package var hasSecret: Bool

    /// A row with its tokens given by column name (absent columns are NULL).
    package init(
        id: Int64? = nil,
        persistref: Data,
        primaryKey: Data,
        tokens: [String: Data],
        itemKey: Data,
        attributes: Data,
        secret: Data?
    ) {
        self.init(
            id: id,
            persistref: persistref,
            primaryKey: primaryKey,
            rowTokens: RowTokens(tokens),
            itemKey: itemKey,
            attributes: attributes,
            secret: secret,
            hasSecret: secret != nil
        )
    }

    /// A row whose tokens are already a `RowTokens` (the read path).
    package init(
        id: Int64?,
        persistref: Data,
        primaryKey: Data,
        rowTokens: RowTokens,
        itemKey: Data,
        attributes: Data,
        secret: Data?,
        hasSecret: Bool
    ) {
        self.id = id
        self.persistref = persistref
        self.primaryKey = primaryKey
        self.tokens = rowTokens
        self.itemKey = itemKey
        self.attributes = attributes
        self.secret = secret
        self.hasSecret = hasSecret
    }
}

/// The token columns of one row: column name → token, NULL columns absent.
///
/// Read rows keep every token in one buffer (a header of end offsets, then the tokens' bytes) instead of
/// a dictionary of separately allocated `Data`: a lookup reads one or two of a dozen columns, and the
/// read path builds one of these per row.
package struct RowTokens: Sendable, Equatable {
    /// Column names, in the order of the header's entries.
    private var columns: [String]
    /// For each column a 32-bit end offset into the token area (high bit set when the column is not
    /// NULL), then the tokens' bytes one after another.
    private var buffer: Data

    private static let present: UInt32 = 1 << 31

    /// Tokens from a dictionary (column → token).
    package init(_ tokens: [String: Data]) {
        let columns = tokens.keys.sorted()
        self.init(columns: columns, count: { tokens[columns[$0]]?.count }) { index, target in
            tokens[columns[index]]?.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress, let target = target.baseAddress {
                    target.copyMemory(from: source, byteCount: bytes.count)
                }
            }
        }
    }

    /// Tokens read column by column: `count(i)` is column `i`'s length (`nil` for NULL), and `copy(i, to:)`
    /// writes its bytes into a buffer of exactly that length.
    init(
        columns: [String],
        count: (Int) -> Int?,
        copy: (Int, UnsafeMutableRawBufferPointer) -> Void
    ) {
        self.columns = columns
        let header = columns.count * MemoryLayout<UInt32>.size
        var ends: [UInt32] = []
        ends.reserveCapacity(columns.count)
        var length = 0
        for index in columns.indices {
            if let tokenLength = count(index) {
                length += tokenLength
                ends.append(UInt32(length) | Self.present)
            } else {
                ends.append(UInt32(length))
            }
        }
        var buffer = Data(count: header + length)
        buffer.withUnsafeMutableBytes { target in
            var start = header
            for (index, end) in ends.enumerated() {
                target.storeBytes(of: end, toByteOffset: index * MemoryLayout<UInt32>.size, as: UInt32.self)
                guard end & Self.present != 0 else { continue }
                let stop = header + Int(end & ~Self.present)
                copy(index, UnsafeMutableRawBufferPointer(rebasing: target[start..<stop]))
                start = stop
            }
        }
        self.buffer = buffer
    }

    /// The token of `column`, or `nil` for NULL (or a column this row does not have).
    package subscript(column: String) -> Data? {
        get {
            guard let index = columns.firstIndex(of: column) else { return nil }
            return token(at: index)
        }
        set {
            var tokens = dictionary
            tokens[column] = newValue
            self = RowTokens(tokens)
        }
    }

    /// Calls `body` with the bytes of the column at `index` (the table's token-column order), or `nil` for
    /// NULL, without copying them out.
    package func withToken<R>(atColumn index: Int, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard index < columns.count else { return body(nil) }
        let header = columns.count * MemoryLayout<UInt32>.size
        // One access to the buffer for the offsets and the bytes (each `Data` access has a cost of its own).
        return buffer.withUnsafeBytes { raw in
            let size = MemoryLayout<UInt32>.size
            let end = raw.loadUnaligned(fromByteOffset: index * size, as: UInt32.self)
            guard end & Self.present != 0 else { return body(nil) }
            let start =
                index == 0
                ? 0 : Int(raw.loadUnaligned(fromByteOffset: (index - 1) * size, as: UInt32.self) & ~Self.present)
            return body(UnsafeRawBufferPointer(rebasing: raw[header + start..<header + Int(end & ~Self.present)]))
        }
    }

    /// Calls `body` with the bytes of `column`'s token, or `nil` for NULL (or a column this row does not
    /// have), without copying them out.
    package func withToken<R>(named column: String, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let index = columns.firstIndex(of: column) else { return body(nil) }
        return withToken(atColumn: index, body)
    }

    /// Every non-NULL column and its token.
    package var dictionary: [String: Data] {
        var tokens: [String: Data] = [:]
        for index in columns.indices {
            if let token = token(at: index) { tokens[columns[index]] = token }
        }
        return tokens
    }

    private func end(_ index: Int) -> UInt32 {
        buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * MemoryLayout<UInt32>.size, as: UInt32.self) }
    }

    private func token(at index: Int) -> Data? {
        let end = end(index)
        guard end & Self.present != 0 else { return nil }
        let start = index == 0 ? 0 : Int(self.end(index - 1) & ~Self.present)
        let header = columns.count * MemoryLayout<UInt32>.size
        return buffer.subdata(in: header + start..<header + Int(end & ~Self.present))
    }

    package static func == (lhs: RowTokens, rhs: RowTokens) -> Bool {
        lhs.dictionary == rhs.dictionary
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
    /// Search-tag tokens every row must carry (in the `tags` table); the search is then driven by the
    /// tags' index.
    package var tags: [Data]

    package init(
        conditions: [(column: String, tokens: [Data])] = [],
        persistref: Data? = nil,
        primaryKey: Data? = nil,
        limit: Int? = nil,
        tags: [Data] = []
    ) {
        self.conditions = conditions
        self.persistref = persistref
        self.primaryKey = primaryKey
        self.limit = limit
        self.tags = tags
    }

    package static func == (lhs: RowFilter, rhs: RowFilter) -> Bool {
        lhs.persistref == rhs.persistref && lhs.primaryKey == rhs.primaryKey && lhs.limit == rhs.limit
            && lhs.tags == rhs.tags
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
