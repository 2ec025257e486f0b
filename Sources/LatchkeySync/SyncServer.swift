import Foundation
import Latchkey
import Logging
import PostgresNIO

/// The sync server's client: pushes sealed rows with compare-and-swap on their version and pulls them in
/// commit-safe order, through a `PostgresClient` over the schema of `SyncSchema`.
///
/// The server only ever sees `SealedRow`s. A push of version 1 inserts the row; a push of version `n`
/// replaces the server's version `n - 1` and nothing else. A row re-sent with the same UUID, version and
/// bytes is a no-op success (`PushOutcome.alreadyApplied`): an outbox may resend after a lost answer. Any
/// other mismatch is a `PushOutcome.conflict` carrying the server's row.
///
/// ```swift
/// let client = PostgresClient(configuration: configuration)
/// async let running: Void = client.run()
/// let server = SyncServer(client: client, logger: logger)
/// try await SyncSchema.migrate(client, logger: logger)
/// let outcomes = try await server.push([row])
/// let batch = try await server.pull(keychain: keychainID, after: .start, limit: 100)
/// ```
///
/// `Sendable`: a `PostgresClient` and a `Logger`; every call leases its own connection, and blocking never
/// happens on the caller's executor (postgres-nio runs on its event loops).
public struct SyncServer: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// Makes a client of the sync database `client` reaches.
    ///
    /// - Parameters:
    ///   - client: A `PostgresClient` whose `run()` is being awaited.
    ///   - logger: Where statements are logged (identifiers and counts only).
    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Pushes `rows` in one transaction, each with compare-and-swap on its version.
    ///
    /// - Parameter rows: Rows sealed by `SyncEnvelope`.
    /// - Returns: One outcome per row, in order.
    /// - Throws: `KeychainError.Code.notAvailable` when the server fails (nothing of the push is kept).
    public func push(_ rows: [SealedRow]) async throws(KeychainError) -> [PushOutcome] {
        do {
            return try await pushRows(rows)
        } catch {
            throw error.keychainError
        }
    }

    /// Pulls up to `limit` rows of `keychain` committed after `cursor`.
    ///
    /// Only rows below the oldest running transaction are returned, in `(xid, row UUID)` order, so a row
    /// committed late is never skipped: until its transaction ends, the cursor does not pass it.
    ///
    /// - Parameters:
    ///   - keychain: The sync keychain.
    ///   - cursor: Where the previous pull ended (`SyncCursor.start` the first time).
    ///   - limit: The most rows to return (at least 1).
    /// - Returns: The rows and the cursor to pass next.
    /// - Throws: `KeychainError.Code.notAvailable` when the server fails.
    public func pull(keychain: UUID, after cursor: SyncCursor, limit: Int) async throws(KeychainError) -> PullBatch {
        do {
            return try await pullRows(keychain: keychain, after: cursor, limit: limit)
        } catch {
            throw error.keychainError
        }
    }

    /// `push(_:)`, throwing the layer's error.
    package func pushRows(_ rows: [SealedRow]) async throws(SyncError) -> [PushOutcome] {
        let logger = logger
        let outcomes = try await SyncTransaction.run(client, logger: logger) { connection in
            var outcomes: [PushOutcome] = []
            outcomes.reserveCapacity(rows.count)
            for row in rows {
                outcomes.append(try await Self.push(row, on: connection, logger: logger))
            }
            return outcomes
        }
        logger.debug("sync push", metadata: ["rows": "\(rows.count)"])
        return outcomes
    }

    /// `pull(keychain:after:limit:)`, throwing the layer's error.
    package func pullRows(keychain: UUID, after cursor: SyncCursor, limit: Int) async throws(SyncError) -> PullBatch {
        let logger = logger
        do {
            return try await client.withConnection { connection in
                let found = try await connection.query(
                    """
                    SELECT row_id, version, epoch, tombstone, author, format, ciphertext, xid::text
                    FROM latchkey_rows
                    WHERE keychain = \(keychain)
                      AND (xid, row_id) > (\(String(cursor.transaction))::xid8, \(cursor.rowID))
                      AND xid < pg_snapshot_xmin(pg_current_snapshot())
                    ORDER BY xid, row_id
                    LIMIT \(Int64(max(1, limit)))
                    """,
                    logger: logger
                )
                var rows: [SealedRow] = []
                var next = cursor
                for try await (rowID, version, epoch, tombstone, author, format, ciphertext, xid) in found.decode(
                    (UUID, Int64, Int32, Bool, UUID, Int16, Data, String).self
                ) {
                    rows.append(
                        SealedRow(
                            keychain: keychain,
                            rowID: rowID,
                            version: version,
                            epoch: epoch,
                            isTombstone: tombstone,
                            author: author,
                            format: format,
                            ciphertext: ciphertext
                        )
                    )
                    guard let transaction = UInt64(xid) else { throw SyncError.server("an unreadable row xid") }
                    next = SyncCursor(transaction: transaction, rowID: rowID)
                }
                return PullBatch(rows: rows, cursor: next)
            }
        } catch {
            throw SyncTransaction.map(error)
        }
    }

    /// One row's compare-and-swap, inside the push's transaction.
    private static func push(
        _ row: SealedRow,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> PushOutcome {
        let changed: PostgresRowSequence
        if row.version == 1 {
            changed = try await connection.query(
                """
                INSERT INTO latchkey_rows (keychain, row_id, version, epoch, tombstone, author, format, ciphertext)
                VALUES (\(row.keychain), \(row.rowID), \(row.version), \(row.epoch), \(row.isTombstone),
                        \(row.author), \(row.format), \(row.ciphertext))
                ON CONFLICT (keychain, row_id) DO NOTHING
                RETURNING 1
                """,
                logger: logger
            )
        } else {
            changed = try await connection.query(
                """
                UPDATE latchkey_rows
                SET version = \(row.version), epoch = \(row.epoch), tombstone = \(row.isTombstone),
                    author = \(row.author), format = \(row.format), ciphertext = \(row.ciphertext),
                    xid = pg_current_xact_id(), updated_at = now()
                WHERE keychain = \(row.keychain) AND row_id = \(row.rowID) AND version = \(row.version - 1)
                RETURNING 1
                """,
                logger: logger
            )
        }
        if try await changed.collect().count == 1 { return .applied }
        let current = try await currentRow(keychain: row.keychain, rowID: row.rowID, on: connection, logger: logger)
        return current == row ? .alreadyApplied : .conflict(current: current)
    }

    /// The server's row `rowID` of `keychain`, if any.
    private static func currentRow(
        keychain: UUID,
        rowID: UUID,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> SealedRow? {
        let found = try await connection.query(
            """
            SELECT version, epoch, tombstone, author, format, ciphertext
            FROM latchkey_rows WHERE keychain = \(keychain) AND row_id = \(rowID)
            """,
            logger: logger
        )
        for try await (version, epoch, tombstone, author, format, ciphertext) in found.decode(
            (Int64, Int32, Bool, UUID, Int16, Data).self
        ) {
            return SealedRow(
                keychain: keychain,
                rowID: rowID,
                version: version,
                epoch: epoch,
                isTombstone: tombstone,
                author: author,
                format: format,
                ciphertext: ciphertext
            )
        }
        return nil
    }
}
