import Foundation
import Latchkey

/// What `latchkey sync status` shows: this machine's place in its sync keychain, its queue, its cursor,
/// the conflicts it decided and the last error. Nothing secret.
public struct SyncStatus: Sendable, Codable {
    /// Whether sync is set up.
    public var enabled: Bool
    /// The sync keychain's id.
    public var keychain: UUID?
    /// This machine's id.
    public var machine: UUID?
    /// The database URL without its password.
    public var database: String?
    /// The key epoch.
    public var epoch: Int32?
    /// Local changes not yet sealed for sending.
    public var queued: Int
    /// Rows sealed and waiting for the server's answer.
    public var sending: Int
    /// Where the next pull starts (`xid/row`).
    public var cursor: String?
    /// When the last sync finished.
    public var lastSync: Date?
    /// The last sync's error or refusal, if any.
    public var lastError: String?
    /// The newest decided conflicts, newest first.
    public var conflicts: [SyncConflict]
}

extension KeychainSync {
    /// This machine's sync status, read from the keychain file alone (no server call).
    public func status() async throws(KeychainError) -> SyncStatus {
        let settings = try await readSettings()
        let store = store
        let facts = try await BlockingWork.run { () throws(KeychainError) in try store.syncFacts() }
        let record = facts.meta["status"].flatMap { try? JSONDecoder().decode(SyncStatusRecord.self, from: $0) }
        let cursor = facts.meta["cursor"].flatMap { try? JSONDecoder().decode(SyncCursor.self, from: $0) }
        return SyncStatus(
            enabled: settings != nil,
            keychain: settings?.keychain,
            machine: settings?.machine,
            database: settings.map { SyncDatabaseURL.redacted($0.databaseURL) },
            epoch: settings?.epoch,
            queued: facts.outbox,
            sending: facts.pending,
            cursor: cursor?.description,
            lastSync: record?.lastSync,
            lastError: record?.lastError,
            conflicts: facts.history.compactMap {
                SyncConflict(rowID: $0.rowID, recordedMilliseconds: $0.recordedMilliseconds, entry: $0.entry)
            }
        )
    }
}
