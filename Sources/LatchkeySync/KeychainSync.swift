import Crypto
import Foundation
import Latchkey
import Logging
import PostgresNIO

/// Syncs one keychain file's synchronizable items with the other machines of its sync keychain, through
/// one PostgreSQL database (docs/sync.md).
///
/// Every change of an item with `kSecAttrSynchronizable = true` whose accessibility is not `ThisDeviceOnly`
/// is recorded in the file's outbox in the same SQLite transaction as the change itself. `syncNow()` seals
/// the outbox's items into rows (`SyncEnvelope`), keeps each sealed row in the file until the server
/// answers (so a row is re-sent byte for byte after a crash, and lands exactly once), pushes them with
/// compare-and-swap on their version, then pulls every row committed since its cursor and applies it,
/// resolving concurrent edits by their hybrid-logical-clock stamps: the later edit wins on every machine,
/// and the loser is kept in a bounded history (`status()`).
///
/// ```swift
/// let store = try KeychainStore.open(path: path, credentials: [.deviceSecret])
/// let setup = try await KeychainSync.setup(store: store, databaseURL: "postgresql://sync@db/keychains")
/// print(setup.recoverySecret)            // shown once: keep it
/// let report = try await KeychainSync(store: store).syncNow()
/// ```
///
/// `Sendable`: the store is, and nothing else is mutable. Every store call runs off the caller's executor
/// (`BlockingWork`), every database call on postgres-nio's event loops.
public struct KeychainSync: Sendable {
    /// The rows a pull asks for at once (the initial sync resumes after the last page it applied).
    public static let pageSize = 500
    /// The outbox items sealed into rows at once.
    static let outboxBatch = 200
    /// How far ahead of this machine's clock a pulled stamp may be and still move the sync clock (seconds).
    static let maximumClockLead: TimeInterval = 60 * 60

    /// The keychain file this sync sends from and applies to.
    public let store: KeychainStore
    let logger: Logger
    let physicalClock: any KeychainClock

    /// Makes the sync of `store`'s keychain file (set up or joined before: `setup`, `join`).
    ///
    /// - Parameters:
    ///   - store: The keychain file, unlocked.
    ///   - logger: Where sync logs (ids, counts and versions; never an attribute or secret).
    ///   - clock: The wall clock stamps are checked against.
    public init(
        store: KeychainStore,
        logger: Logger = Logger(label: "latchkey.sync"),
        clock: any KeychainClock = SystemClock()
    ) {
        self.store = store
        self.logger = logger
        physicalClock = clock
    }

    /// Makes the sync of the keychain file `service` opened in this process (`KeychainFile.open`).
    ///
    /// - Throws: `KeychainError.Code.unimplemented` for a service that is not a file opened in this process
    ///   (an agent's client): sync writes the file's outbox and items in its own transactions.
    public init(service: any KeychainService, logger: Logger = Logger(label: "latchkey.sync")) throws(KeychainError) {
        guard let store = service as? KeychainStore else {
            throw KeychainError(
                .unimplemented,
                "Sync runs on a keychain file opened in this process, not through an agent's connection."
            )
        }
        self.init(store: store, logger: logger)
    }

    /// Whether sync is set up for this keychain file.
    public func isEnabled() async throws(KeychainError) -> Bool {
        try await readSettings() != nil
    }

    /// Sends this machine's changes and applies the other machines', until the outbox is empty and every
    /// row committed on the server has been seen.
    ///
    /// - Returns: What was sent, applied and refused.
    /// - Throws: `KeychainError` — `notAvailable` when the server cannot be reached (the changes stay queued
    ///   and go out at the next sync), `interactionNotAllowed` when the keychain is locked, `param` when sync
    ///   is not set up.
    @discardableResult
    public func syncNow() async throws(KeychainError) -> SyncReport {
        let settings = try await requiredSettings()
        let envelope = try settings.envelope()
        do {
            let report = try await Self.withServer(settings.databaseURL, logger: logger) {
                server throws(KeychainError) in
                var report = try await push(server: server, envelope: envelope)
                let pulled = try await pull(server: server, envelope: envelope)
                report.applied = pulled.applied
                report.refused = pulled.refused
                report.conflicts += pulled.conflicts
                report.lastRefusal = pulled.lastRefusal
                // Local edits that won a conflict while pulling go out now.
                let again = try await push(server: server, envelope: envelope)
                report.sent += again.sent
                report.conflicts += again.conflicts
                return report
            }
            try await recordStatus(SyncStatusRecord(lastSync: physicalClock.now(), lastError: report.lastRefusal))
            return report
        } catch {
            try? await recordStatus(SyncStatusRecord(lastSync: nil, lastError: error.message))
            throw error
        }
    }

    /// Runs `body` against the store in one write transaction, off the caller's executor.
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (ItemTransaction) throws -> T
    ) async throws(KeychainError) -> T {
        let store = store
        return try await BlockingWork.run { () throws(KeychainError) -> T in try store.transaction(body) }
    }

    /// The stored settings, or `nil` when sync is off.
    func readSettings() async throws(KeychainError) -> SyncSettings? {
        let store = store
        let data = try await BlockingWork.run { () throws(KeychainError) -> Data? in try store.syncSettings() }
        return try data.map { data throws(KeychainError) in try SyncSettings.decode(data) }
    }

    /// The stored settings; `param` when sync is off.
    func requiredSettings() async throws(KeychainError) -> SyncSettings {
        guard let settings = try await readSettings() else {
            throw KeychainError(
                .param,
                "Sync is not set up for this keychain: run `latchkey sync setup <postgres URL>` on the first machine "
                    + "and `latchkey sync join <postgres URL>` on the others."
            )
        }
        return settings
    }

    /// Records the outcome of the last sync (`status()` shows it).
    func recordStatus(_ record: SyncStatusRecord) async throws(KeychainError) {
        let data = try? JSONEncoder().encode(record)
        try await transaction { transaction in
            var merged = record
            if record.lastSync == nil, let old = try transaction.syncMeta("status"),
                let previous = try? JSONDecoder().decode(SyncStatusRecord.self, from: old)
            {
                merged.lastSync = previous.lastSync
            }
            try transaction.setSyncMeta("status", (try? JSONEncoder().encode(merged)) ?? data)
        }
    }

    /// Runs `body` with a client of the database at `url`, running until `body` returns.
    ///
    /// One connection is made first, with a deadline (`connectionDeadline`): a server that is down or refuses
    /// is an error naming why, at once, rather than a client waiting for its pool.
    static func withServer<T: Sendable>(
        _ url: String,
        logger: Logger,
        _ body: (SyncServer) async throws(KeychainError) -> T
    ) async throws(KeychainError) -> T {
        try await reachable(try SyncDatabaseURL.connectionConfiguration(url), logger: logger)
        let client = PostgresClient(configuration: try SyncDatabaseURL.configuration(url), backgroundLogger: logger)
        let result: Result<T, KeychainError> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do {
                return .success(try await body(SyncServer(client: client, logger: logger)))
            } catch {
                return .failure(mapped(error))
            }
        }
        return try result.get()
    }

    /// How long the first connection to the sync database may take.
    static let connectionDeadline: Duration = .seconds(60)

    /// Connects once to the database, and closes the connection.
    ///
    /// - Throws: `KeychainError.Code.notAvailable` naming PostgreSQL's answer, or the deadline.
    private static func reachable(
        _ configuration: PostgresConnection.Configuration,
        logger: Logger
    ) async throws(KeychainError) {
        let outcome: String? = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: configuration,
                        id: 0,
                        logger: logger
                    )
                    try? await connection.close()
                    return nil
                } catch {
                    return SyncTransaction.describe(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: connectionDeadline)
                return "no answer within \(connectionDeadline)"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let outcome { throw SyncError.server(outcome).keychainError }
    }
}

/// The outcome of the last sync, kept in the file (`meta` `sync.status`, no secret).
struct SyncStatusRecord: Codable, Sendable {
    var lastSync: Date?
    var lastError: String?
}

extension KeychainSync {
    /// The median of `samples` `SELECT 1` round trips to the database at `databaseURL`, in microseconds, timed
    /// with `now` (nanoseconds): the floor sync's benchmarks are printed against.
    public static func measureRoundTrip(
        databaseURL: String,
        samples: Int,
        now: @escaping @Sendable () -> UInt64
    ) async throws(KeychainError) -> Double {
        let logger = Logger(label: "latchkey.sync.bench", factory: { _ in SwiftLogNoOpLogHandler() })
        return try await withServer(databaseURL, logger: logger) { server throws(KeychainError) in
            var durations: [UInt64] = []
            do {
                try await server.client.withConnection { connection in
                    for _ in 0..<max(1, samples) {
                        let start = now()
                        try await connection.query("SELECT 1", logger: logger)
                        durations.append(now() - start)
                    }
                }
            } catch {
                throw SyncTransaction.map(error).keychainError
            }
            durations.sort()
            return Double(durations[durations.count / 2]) / 1000
        }
    }
}
