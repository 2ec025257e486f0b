import Foundation
import Latchkey
import Logging
import PostgresNIO

/// The sync database's schema and its versioned migrations.
///
/// `latchkey_sync_schema` records the versions applied. Each migration runs in its own transaction that
/// first takes a transaction-level advisory lock (`pg_advisory_xact_lock`), so two machines migrating one
/// database at once apply each migration exactly once: the second waits, then finds it applied. Running
/// the migrations again is a no-op. A database whose schema is newer than this build knows is refused
/// (`SyncError.schemaTooNew`), never written.
///
/// No column holds anything a user stored in plaintext: rows are ciphertext under the sync key behind a
/// header of identifiers, versions and flags (`SealedRow`); machines hold public keys; key epochs hold the
/// sync key wrapped per machine.
public enum SyncSchema {
    /// The newest schema version this build knows.
    public static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// The advisory-lock key every migration holds: the ASCII bytes of "lk-sync!" as a big-endian Int64.
    static let lockKey: Int64 = 0x6C6B_2D73_796E_6321

    static let migrations: [SyncMigration] = [
        SyncMigration(
            version: 1,
            statements: [
                """
                CREATE TABLE latchkey_machines (
                    keychain uuid NOT NULL,
                    machine uuid NOT NULL,
                    public_key bytea NOT NULL,
                    state text NOT NULL CHECK (state IN ('pending', 'approved', 'revoked')),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (keychain, machine)
                )
                """,
                """
                CREATE TABLE latchkey_key_epochs (
                    keychain uuid NOT NULL,
                    epoch integer NOT NULL CHECK (epoch >= 0),
                    machine uuid NOT NULL,
                    wrapped_key bytea NOT NULL,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (keychain, epoch, machine),
                    FOREIGN KEY (keychain, machine) REFERENCES latchkey_machines (keychain, machine)
                )
                """,
                """
                CREATE TABLE latchkey_rows (
                    keychain uuid NOT NULL,
                    row_id uuid NOT NULL,
                    version bigint NOT NULL CHECK (version >= 1),
                    epoch integer NOT NULL CHECK (epoch >= 0),
                    tombstone boolean NOT NULL,
                    author uuid NOT NULL,
                    format smallint NOT NULL,
                    ciphertext bytea NOT NULL,
                    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (keychain, row_id)
                )
                """,
                "CREATE INDEX latchkey_rows_pull ON latchkey_rows (keychain, xid, row_id)",
            ]
        ),
        SyncMigration(
            version: 2,
            statements: [
                // The sync key wrapped under a recovery or enrollment secret (`SyncSecret`), found by a keyed
                // hash of the secret: the server holds neither the secret nor the key.
                """
                CREATE TABLE latchkey_enrollments (
                    lookup bytea PRIMARY KEY,
                    keychain uuid NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('recovery', 'enrollment')),
                    wrapped_key bytea NOT NULL,
                    uses_left integer CHECK (uses_left IS NULL OR uses_left >= 0),
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "CREATE INDEX latchkey_enrollments_keychain ON latchkey_enrollments (keychain, kind)",
            ]
        ),
    ]

    /// Brings the database `client` reaches to `currentVersion`.
    ///
    /// - Parameters:
    ///   - client: A running `PostgresClient` (its `run()` is being awaited elsewhere).
    ///   - logger: Where statements are logged (never a bound value).
    /// - Returns: The schema version the database is at.
    /// - Throws: `KeychainError.Code.notAvailable` when the database is newer than this build or the server
    ///   fails.
    @discardableResult
    public static func migrate(_ client: PostgresClient, logger: Logger) async throws(KeychainError) -> Int {
        do {
            return try await migrateDatabase(client, logger: logger)
        } catch {
            throw error.keychainError
        }
    }

    /// `migrate(_:logger:)`, throwing the layer's error.
    package static func migrateDatabase(_ client: PostgresClient, logger: Logger) async throws(SyncError) -> Int {
        var version = 0
        for migration in migrations {
            version = try await SyncTransaction.run(client, logger: logger) { connection in
                try await apply(migration, on: connection, logger: logger)
            }
        }
        return version
    }

    /// Applies `migration` unless it already is, under the advisory lock, inside the caller's transaction.
    private static func apply(
        _ migration: SyncMigration,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int {
        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS latchkey_sync_schema (
                version integer PRIMARY KEY,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            logger: logger
        )
        let found = try await appliedVersion(on: connection, logger: logger)
        if found > currentVersion { throw SyncError.schemaTooNew(found: found, known: currentVersion) }
        guard found < migration.version else { return found }
        for statement in migration.statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await connection.query(
            "INSERT INTO latchkey_sync_schema (version) VALUES (\(Int32(migration.version)))",
            logger: logger
        )
        logger.info("sync schema migrated", metadata: ["version": "\(migration.version)"])
        return migration.version
    }

    /// The newest version recorded in `latchkey_sync_schema` (0 when none).
    static func appliedVersion(on connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query(
            "SELECT coalesce(max(version), 0) FROM latchkey_sync_schema",
            logger: logger
        )
        for try await found in rows.decode(Int32.self) { return Int(found) }
        return 0
    }
}
