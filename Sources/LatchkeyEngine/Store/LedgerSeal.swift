import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// A 128-bit keyed digest of one row, or the XOR of several (a bucket's aggregate).
struct LedgerDigest: Hashable, Sendable {
    var high: UInt64 = 0
    var low: UInt64 = 0

    /// The zero digest (the aggregate of no rows).
    init() {}

    /// The first 16 bytes of `bytes`, big-endian.
    init(_ bytes: Data) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        bytes.withUnsafeBytes { raw in
            for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
        }
        self.high = high
        self.low = low
    }

    static func ^= (lhs: inout LedgerDigest, rhs: LedgerDigest) {
        lhs.high ^= rhs.high
        lhs.low ^= rhs.low
    }

    /// The 16 bytes, big-endian.
    func append(to data: inout Data) {
        withUnsafeBytes(of: high.bigEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: low.bigEndian) { data.append(contentsOf: $0) }
    }
}

/// Names a row in the ledger: its table and its row id (ids are never reused: `AUTOINCREMENT`).
struct LedgerKey: Hashable, Sendable {
    var table: UInt8
    var id: Int64

    init(_ table: ItemTable, _ id: Int64) {
        self.table = UInt8(ItemTable.allCases.firstIndex(of: table) ?? 0)
        self.id = id
    }

    /// The bucket whose aggregate covers this row: consecutive ids of one table fall in consecutive buckets,
    /// so each table's rows spread over all of them.
    var bucket: Int { Int((UInt64(bitPattern: id) &+ UInt64(table) &* 16) % UInt64(LedgerSeal.bucketCount)) }
}

/// The keys of the row ledger: both are the file's index key under domains of their own, so the ledger
/// is checked and kept whenever items can be read or written at all.
struct LedgerContext: Sendable {
    /// Keyed digest of a row's stored bytes.
    let rows: DomainTokenizer
    /// The seal's MAC.
    let seal: DomainTokenizer

    init(tokenizer: IndexTokenizer) {
        rows = tokenizer.domain("ledger/row")
        seal = tokenizer.domain("ledger/seal")
    }

    /// The digest of a row: table, row id, persistref, primary-key token, every token column in the
    /// table's order (NULL distinguished from empty), the wrapped item key and whether a secret is stored.
    ///
    /// The attribute record and the secret are covered through the item key: each is sealed under a key
    /// drawn afresh by every write and wrapped in `itemkey`, so an older record or secret never opens with
    /// the current item key (docs/storage-format.md §10).
    func digest(of row: ItemRow, in table: ItemTable, columnsInTableOrder: Bool) -> LedgerDigest {
        let columns = table.tokenColumns
        // The message is assembled in one temporary buffer (on the stack for a row of 16-byte tokens, about
        // 300 bytes) and hashed in one call.
        var length = 1 + 8 + 1  // table, id, hasSecret; then 5 header bytes per field at most
        length += 5 * 3 + row.persistref.count + row.primaryKey.count + row.itemKey.count
        for index in columns.indices {
            length += 5
            if columnsInTableOrder {
                length += row.tokens.withToken(atColumn: index) { $0?.count ?? 0 }
            } else {
                length += row.tokens[columns[index]]?.count ?? 0
            }
        }
        let bytes = withUnsafeTemporaryAllocation(byteCount: max(length, 1), alignment: 1) { buffer in
            var offset = 0
            func put(_ byte: UInt8) {
                buffer[offset] = byte
                offset += 1
            }
            func put(_ bytes: UnsafeRawBufferPointer?) {
                guard let bytes else {
                    put(0)
                    return
                }
                put(1)
                let count = UInt32(truncatingIfNeeded: bytes.count)
                for shift in stride(from: 24, through: 0, by: -8) { put(UInt8(truncatingIfNeeded: count >> shift)) }
                if let base = bytes.baseAddress, let target = buffer.baseAddress, !bytes.isEmpty {
                    (target + offset).copyMemory(from: base, byteCount: bytes.count)
                }
                offset += bytes.count
            }
            put(UInt8(ItemTable.allCases.firstIndex(of: table) ?? 0))
            let id = UInt64(bitPattern: row.id ?? -1)
            for shift in stride(from: 56, through: 0, by: -8) { put(UInt8(truncatingIfNeeded: id >> shift)) }
            row.persistref.withUnsafeBytes { put($0) }
            row.primaryKey.withUnsafeBytes { put($0) }
            for (index, column) in columns.enumerated() {
                if columnsInTableOrder {
                    row.tokens.withToken(atColumn: index) { put($0) }
                } else if let token = row.tokens[column] {
                    token.withUnsafeBytes { put($0) }
                } else {
                    put(nil)
                }
            }
            row.itemKey.withUnsafeBytes { put($0) }
            put(row.hasSecret ? 1 : 0)
            return rows.token { feed in feed(UnsafeRawBufferPointer(rebasing: buffer[0..<offset])) }
        }
        return LedgerDigest(bytes)
    }
}

/// The ledger's stored state, `changes.ledger`: a generation that every item write bumps, and for each of
/// 64 buckets the XOR of the keyed digests of its rows, all under a MAC.
///
/// Encoding: `0x01 ‖ generation (u64) ‖ 64 × 16-byte aggregates ‖ MAC (16)`, where the MAC is the
/// `ledger/seal` token of everything before it.
struct LedgerSeal: Equatable, Sendable {
    static let bucketCount = 64
    static let encodedLength = 1 + 8 + bucketCount * 16 + 16

    var generation: UInt64
    var buckets: [LedgerDigest]

    /// The seal of an empty keychain.
    static let empty = LedgerSeal(generation: 0, buckets: Array(repeating: LedgerDigest(), count: bucketCount))

    func encoded(_ context: LedgerContext) -> Data {
        // Every write seals: the body is filled in one buffer access, not one `Data` append per field.
        var body = Data(count: Self.encodedLength - 16)
        body.withUnsafeMutableBytes { raw in
            raw[0] = 1
            raw.storeBytes(of: generation.bigEndian, toByteOffset: 1, as: UInt64.self)
            var offset = 9
            for bucket in buckets {
                raw.storeBytes(of: bucket.high.bigEndian, toByteOffset: offset, as: UInt64.self)
                raw.storeBytes(of: bucket.low.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
                offset += 16
            }
        }
        body.append(context.seal.token(body))
        return body
    }

    /// Decodes and authenticates a stored seal.
    ///
    /// - Throws: `decode` when it is malformed or its MAC fails (it was edited outside Latchkey).
    static func decode(_ raw: Data, _ context: LedgerContext) throws(KeychainError) -> LedgerSeal {
        guard raw.count == encodedLength, raw.first == 1 else { throw RowLedger.damagedSeal }
        let body = raw.prefix(encodedLength - 16)
        guard constantTimeEqual(context.seal.token(Data(body)), raw.suffix(16)) else { throw RowLedger.damagedSeal }
        var generation: UInt64 = 0
        for byte in raw[raw.startIndex + 1..<raw.startIndex + 9] { generation = generation << 8 | UInt64(byte) }
        var buckets: [LedgerDigest] = []
        buckets.reserveCapacity(bucketCount)
        var offset = raw.startIndex + 9
        for _ in 0..<bucketCount {
            buckets.append(LedgerDigest(raw.subdata(in: offset..<offset + 16)))
            offset += 16
        }
        return LedgerSeal(generation: generation, buckets: buckets)
    }

    private static func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
