import Foundation

extension SealedRow {
    /// The row as this machine keeps it while sending it (`sync_rows.pending`) and in its conflict history:
    ///
    /// ```
    /// u8 1 ‖ keychain (16) ‖ row UUID (16) ‖ u64 version ‖ u32 epoch ‖ u8 tombstone ‖ author (16) ‖ u16 format
    ///      ‖ ciphertext (the rest)
    /// ```
    ///
    /// Only ciphertext under the sync key and the header the server sees anyway.
    var encoded: Data {
        var out = Data([1])
        out.append(header)
        out.append(ciphertext)
        return out
    }

    /// Decodes `encoded`; `nil` for other bytes.
    init?(encoded data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 64, bytes[0] == 1 else { return nil }
        func integer(_ range: Range<Int>) -> UInt64 { bytes[range].reduce(0) { $0 << 8 | UInt64($1) } }
        self.init(
            keychain: UUID(bytes: bytes[1..<17]),
            rowID: UUID(bytes: bytes[17..<33]),
            version: Int64(bitPattern: integer(33..<41)),
            epoch: Int32(bitPattern: UInt32(integer(41..<45))),
            isTombstone: bytes[45] == 1,
            author: UUID(bytes: bytes[46..<62]),
            format: Int16(bitPattern: UInt16(integer(62..<64))),
            ciphertext: Data(bytes[64...])
        )
    }
}
