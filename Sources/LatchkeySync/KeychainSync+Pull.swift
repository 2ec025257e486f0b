import Foundation
import Latchkey
import Logging

// Receiving (docs/sync.md §6, §9): pages of rows after the cursor, each applied or decided against a local
// edit, the cursor saved with the page.
extension KeychainSync {
    /// Pulls and applies every row committed after the saved cursor, a page per transaction.
    func pull(server: SyncServer, envelope: SyncEnvelope) async throws(KeychainError) -> SyncReport {
        var report = SyncReport()
        var cursor =
            try await transaction { transaction in
                try transaction.syncMeta("cursor").flatMap { try? JSONDecoder().decode(SyncCursor.self, from: $0) }
            } ?? .start
        while true {
            let batch: PullBatch
            do {
                batch = try await server.pullRows(keychain: envelope.keys.keychain, after: cursor, limit: Self.pageSize)
            } catch {
                throw error.keychainError
            }
            let page = try await transaction { transaction in
                var page = SyncReport()
                for row in batch.rows {
                    do {
                        switch try Self.takePulled(row, transaction, envelope: envelope) {
                        case .applied: page.applied += 1
                        case .keptLocal: page.conflicts += 1
                        case .appliedOverLocal:
                            page.applied += 1
                            page.conflicts += 1
                        case .skipped: break
                        }
                    } catch {
                        page.refused += 1
                        page.lastRefusal = Self.mapped(error).message
                    }
                }
                try transaction.setSyncMeta("cursor", try JSONEncoder().encode(batch.cursor))
                return page
            }
            report.applied += page.applied
            report.conflicts += page.conflicts
            report.refused += page.refused
            report.lastRefusal = page.lastRefusal ?? report.lastRefusal
            if let refusal = page.lastRefusal {
                logger.warning("sync refused rows", metadata: ["count": "\(page.refused)", "last": "\(refusal)"])
            }
            cursor = batch.cursor
            if batch.rows.count < Self.pageSize { return report }
        }
    }

    /// What happened to one pulled row.
    enum Taken {
        case applied, appliedOverLocal, keptLocal, skipped
    }

    /// Opens and takes one pulled row: skipped when this machine holds that version already (its own push
    /// among them), else decided against any local edit not yet on the server.
    static func takePulled(_ row: SealedRow, _ transaction: ItemTransaction, envelope: SyncEnvelope) throws -> Taken {
        let state = try transaction.syncRow(row.rowID.bytes)
        if let state, row.version <= state.version { return .skipped }
        if let pending = state?.pending, SealedRow(encoded: pending) == row {
            // This machine's own push, whose answer was lost: it landed.
            try transaction.setSyncRow(row.rowID.bytes, version: row.version, pending: nil)
            return .skipped
        }
        let record = try envelope.openRow(row, knownVersion: state?.version)
        var lostPending: (row: SealedRow, stamp: HLCTimestamp)?
        if let pending = state?.pending.flatMap(SealedRow.init(encoded:)) {
            lostPending = (pending, try envelope.openRow(pending).timestamp)
        }
        return try take(row, record, transaction, envelope: envelope, lostPending: lostPending)
    }

    /// Decides a server row against this machine's unsent edit of the same item (its pending row, or its
    /// outbox record): the later stamp wins, the loser is kept in the history.
    static func take(
        _ row: SealedRow,
        _ record: SyncRecord,
        _ transaction: ItemTransaction,
        envelope: SyncEnvelope,
        lostPending pending: (row: SealedRow, stamp: HLCTimestamp)?
    ) throws -> Taken {
        try receive(record.timestamp, transaction)
        let local = try transaction.localSyncedItem(record.itemClass, primaryKeyOf: record.attributes)
        var localStamp = pending?.stamp
        if let unsent = local?.unsent {
            let stamp = HLCTimestamp(
                physicalMilliseconds: unsent.milliseconds,
                counter: unsent.counter,
                machine: envelope.author
            )
            localStamp = max(localStamp ?? stamp, stamp)
        }
        if let localStamp, localStamp > record.timestamp {
            try transaction.appendSyncHistory(
                rowID: row.rowID.bytes,
                entry: SyncConflict.entry(
                    winner: localStamp,
                    loser: record.timestamp,
                    loserRow: row,
                    lostLocally: false
                )
            )
            var again: Data?
            if let pending, pending.stamp > record.timestamp {
                again = try envelope.sealRow(try envelope.openRow(pending.row), version: row.version + 1).encoded
            }
            try transaction.setSyncRow(row.rowID.bytes, version: row.version, pending: again)
            return .keptLocal
        }
        if let localStamp {
            try transaction.appendSyncHistory(
                rowID: row.rowID.bytes,
                entry: SyncConflict.entry(
                    winner: record.timestamp,
                    loser: localStamp,
                    loserRow: pending?.row,
                    lostLocally: true
                )
            )
        }
        try transaction.applySynced(
            SyncedItem(
                itemClass: record.itemClass,
                attributes: record.attributes,
                secret: record.secret,
                isTombstone: record.isTombstone
            )
        )
        try transaction.setSyncRow(row.rowID.bytes, version: row.version, pending: nil)
        return localStamp == nil ? .applied : .appliedOverLocal
    }
}
