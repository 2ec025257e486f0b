import Foundation
import Latchkey
import Logging

// Sending (docs/sync.md §9): the outbox sealed into pending rows, pending rows pushed and their answers applied.
extension KeychainSync {
    /// The most rounds of seal, push and resolve one sync runs (each round sends up to `outboxBatch` items).
    static let maximumRounds = 10_000

    /// Sends the outbox and every pending row until both are empty.
    func push(server: SyncServer, envelope: SyncEnvelope) async throws(KeychainError) -> SyncReport {
        var report = SyncReport()
        for _ in 0..<Self.maximumRounds {
            let sealed = try await transaction { transaction in try Self.sealOutbox(transaction, envelope: envelope) }
            let pending = try await transaction { transaction in
                try transaction.pendingSyncRows().compactMap(SealedRow.init(encoded:))
            }
            if pending.isEmpty {
                if sealed == 0 { return report }
                continue
            }
            let outcomes: [PushOutcome]
            do {
                outcomes = try await server.pushRows(pending)
            } catch {
                throw error.keychainError
            }
            let resolved = try await transaction { transaction in
                try Self.resolve(pending, outcomes, transaction, envelope: envelope)
            }
            report.sent += resolved.sent
            report.conflicts += resolved.conflicts
            logger.debug("sync push", metadata: ["rows": "\(pending.count)", "conflicts": "\(resolved.conflicts)"])
        }
        throw KeychainError(.internalComponent, "Sync did not settle after \(Self.maximumRounds) rounds; run it again.")
    }

    /// Seals up to `outboxBatch` outbox items into pending rows, in the transaction that removes them from the
    /// outbox; an item whose row is still being sent waits for the next round. Returns how many were sealed.
    static func sealOutbox(_ transaction: ItemTransaction, envelope: SyncEnvelope) throws -> Int {
        var sealed = 0
        for entry in try transaction.syncOutbox(limit: outboxBatch) {
            guard let item = entry.item else {
                try transaction.removeSyncOutbox(entry.itemClass, persistref: entry.persistref)
                continue
            }
            let record = SyncRecord(
                itemClass: item.itemClass,
                attributes: item.attributes,
                secret: item.isTombstone ? nil : item.secret,
                timestamp: HLCTimestamp(
                    physicalMilliseconds: entry.stamp.milliseconds,
                    counter: entry.stamp.counter,
                    machine: envelope.author
                ),
                isTombstone: item.isTombstone
            )
            let rowID = try ItemIdentity(of: record.itemClass, attributes: record.attributes, keys: envelope.keys).rowID
            let state = try transaction.syncRow(rowID.bytes)
            if state?.pending != nil { continue }
            let version = state?.version ?? 0
            let row = try envelope.sealRow(record, version: version + 1)
            try transaction.setSyncRow(rowID.bytes, version: version, pending: row.encoded)
            try transaction.removeSyncOutbox(entry.itemClass, persistref: entry.persistref)
            sealed += 1
        }
        return sealed
    }

    /// Applies the server's answers to a push: accepted rows become the versions held; a conflict is merged by
    /// the stamps (the later edit wins, the loser goes to the history) and a winning local edit is sealed again
    /// over the server's version.
    static func resolve(
        _ rows: [SealedRow],
        _ outcomes: [PushOutcome],
        _ transaction: ItemTransaction,
        envelope: SyncEnvelope
    ) throws -> (sent: Int, conflicts: Int) {
        var sent = 0
        var conflicts = 0
        for (row, outcome) in zip(rows, outcomes) {
            switch outcome {
            case .applied, .alreadyApplied:
                try transaction.setSyncRow(row.rowID.bytes, version: row.version, pending: nil)
                sent += 1
            case .conflict(current: nil):
                // The server lost the row (a restored or emptied database): send it again as a new row.
                let record = try envelope.openRow(row)
                let again = try envelope.sealRow(record, version: 1)
                try transaction.setSyncRow(row.rowID.bytes, version: 0, pending: again.encoded)
            case .conflict(current: let current?):
                conflicts += 1
                let ours = try envelope.openRow(row)
                let theirs: SyncRecord
                do {
                    theirs = try envelope.openRow(current)
                } catch {
                    // The server's row does not open: this machine's valid edit replaces it.
                    let again = try envelope.sealRow(ours, version: current.version + 1)
                    try transaction.setSyncRow(
                        row.rowID.bytes,
                        version: current.version,
                        pending: again.encoded
                    )
                    continue
                }
                try receive(theirs.timestamp, transaction)
                if ours.timestamp > theirs.timestamp {
                    try transaction.appendSyncHistory(
                        rowID: row.rowID.bytes,
                        entry: SyncConflict.entry(
                            winner: ours.timestamp,
                            loser: theirs.timestamp,
                            loserRow: current,
                            lostLocally: false
                        )
                    )
                    let again = try envelope.sealRow(ours, version: current.version + 1)
                    try transaction.setSyncRow(
                        row.rowID.bytes,
                        version: current.version,
                        pending: again.encoded
                    )
                } else {
                    try transaction.setSyncRow(row.rowID.bytes, version: row.version - 1, pending: nil)
                    _ = try take(current, theirs, transaction, envelope: envelope, lostPending: (row, ours.timestamp))
                }
            }
        }
        return (sent, conflicts)
    }

    /// Takes a pulled stamp into the file's sync clock (unless it is more than `maximumClockLead` ahead of this
    /// machine's clock: then the row is applied but does not drag this machine's clock forward).
    static func receive(_ stamp: HLCTimestamp, _ transaction: ItemTransaction) throws {
        try transaction.receiveSyncStamp(
            SyncStamp(milliseconds: stamp.physicalMilliseconds, counter: stamp.counter),
            maximumLead: maximumClockLead
        )
    }
}
