import Foundation

/// One concurrent edit that lost, as this machine's bounded history keeps it (`sync_history`, the newest
/// 100): the losing row, sealed under the sync key as it was sent or received, and the winner's stamp.
///
/// `latchkey sync status` lists them; nothing in the history is plaintext.
public struct SyncConflict: Sendable, Hashable, Codable {
    /// The item's row UUID on the server.
    public var rowID: UUID
    /// When this machine decided it (milliseconds since 1970).
    public var recordedMilliseconds: Int64
    /// The winning edit's clock reading.
    public var winner: String
    /// The losing edit's clock reading.
    public var loser: String
    /// The machine whose edit lost.
    public var loserMachine: UUID
    /// Whether the losing edit was made on this machine.
    public var lostLocally: Bool

    /// The stored entry: `u8 lostLocally ‖ winner (28) ‖ loser (28) ‖ loser row (SealedRow.encoded)`.
    static func entry(winner: HLCTimestamp, loser: HLCTimestamp, loserRow: SealedRow?, lostLocally: Bool) -> Data {
        var out = Data([lostLocally ? 1 : 0])
        out.append(winner.encoded)
        out.append(loser.encoded)
        if let loserRow { out.append(loserRow.encoded) }
        return out
    }

    /// Decodes a stored entry; `nil` for other bytes.
    init?(rowID: Data, recordedMilliseconds: Int64, entry: Data) {
        let bytes = [UInt8](entry)
        guard bytes.count >= 57, rowID.count == 16 else { return nil }
        func stamp(_ start: Int) -> HLCTimestamp {
            HLCTimestamp(
                physicalMilliseconds: bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) },
                counter: bytes[start + 8..<start + 12].reduce(0) { $0 << 8 | UInt32($1) },
                machine: UUID(bytes: bytes[start + 12..<start + 28])
            )
        }
        let winner = stamp(1)
        let loser = stamp(29)
        self.rowID = UUID(bytes: rowID)
        self.recordedMilliseconds = recordedMilliseconds
        self.winner = winner.description
        self.loser = loser.description
        loserMachine = loser.machine
        lostLocally = bytes[0] == 1
    }
}
