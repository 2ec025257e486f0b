import Foundation
import Latchkey
import Logging
import PostgresNIO

// Machines and the secrets that let one join (docs/sync.md §10).
extension SyncServer {
    /// Records `machine` of `keychain` as approved with its X25519 public key (again: its key is replaced).
    func registerMachine(keychain: UUID, machine: UUID, publicKey: Data) async throws(SyncError) {
        try await execute { connection, logger in
            try await connection.query(
                """
                INSERT INTO latchkey_machines (keychain, machine, public_key, state)
                VALUES (\(keychain), \(machine), \(publicKey), 'approved')
                ON CONFLICT (keychain, machine) DO UPDATE
                SET public_key = excluded.public_key, state = 'approved', updated_at = now()
                """,
                logger: logger
            )
        }
    }

    /// Sets the state of `machine`; returns whether the keychain has that machine.
    func setMachineState(keychain: UUID, machine: UUID, state: String) async throws(SyncError) -> Bool {
        try await execute { connection, logger in
            let rows = try await connection.query(
                """
                UPDATE latchkey_machines SET state = \(state), updated_at = now()
                WHERE keychain = \(keychain) AND machine = \(machine) RETURNING 1
                """,
                logger: logger
            )
            return try await rows.collect().count == 1
        }
    }

    /// The machines of `keychain`, oldest first.
    func machines(keychain: UUID, asking: UUID) async throws(SyncError) -> [SyncMachine] {
        try await execute { connection, logger in
            let rows = try await connection.query(
                """
                SELECT machine, state, created_at, updated_at FROM latchkey_machines
                WHERE keychain = \(keychain) ORDER BY created_at, machine
                """,
                logger: logger
            )
            var machines: [SyncMachine] = []
            for try await (machine, state, created, updated) in rows.decode((UUID, String, Date, Date).self) {
                machines.append(
                    SyncMachine(
                        id: machine,
                        state: state,
                        joined: created,
                        updated: updated,
                        isThisMachine: machine == asking
                    )
                )
            }
            return machines
        }
    }

    /// Stores the sync key wrapped under `secret`; an enrollment secret replaces the keychain's earlier ones.
    func storeSecret(
        _ secret: SyncSecret,
        keychain: UUID,
        wrapped: Data,
        uses: Int?
    ) async throws(SyncError) {
        try await transaction { connection, logger in
            if secret.kind == .enrollment {
                try await connection.query(
                    "DELETE FROM latchkey_enrollments WHERE keychain = \(keychain) AND kind = 'enrollment'",
                    logger: logger
                )
            }
            try await connection.query(
                """
                INSERT INTO latchkey_enrollments (lookup, keychain, kind, wrapped_key, uses_left)
                VALUES (\(secret.lookup), \(keychain), \(secret.kind.rawValue), \(wrapped), \(uses.map(Int32.init)))
                """,
                logger: logger
            )
        }
    }

    /// The wrapped sync key stored for `secret`, using one of its uses.
    ///
    /// - Throws: `SyncError.server` when the secret is unknown or used up.
    func redeem(_ secret: SyncSecret) async throws(SyncError) -> Data {
        let found: Data?? = try await transaction { connection, logger in
            let rows = try await connection.query(
                """
                UPDATE latchkey_enrollments SET uses_left = uses_left - 1
                WHERE lookup = \(secret.lookup) AND kind = \(secret.kind.rawValue)
                  AND (uses_left IS NULL OR uses_left > 0)
                RETURNING wrapped_key
                """,
                logger: logger
            )
            for try await wrapped in rows.decode(Data.self) { return .some(wrapped) }
            let known = try await connection.query(
                "SELECT 1 FROM latchkey_enrollments WHERE lookup = \(secret.lookup)",
                logger: logger
            )
            return try await known.collect().isEmpty ? .none : .some(nil)
        }
        switch found {
        case .some(.some(let wrapped)): return wrapped
        case .some(.none):
            throw SyncError.refused(
                "this \(secret.kind.rawValue) secret has no uses left; run `latchkey sync rotate-enrollment-secret` on "
                    + "a machine that syncs and use the new one"
            )
        case .none:
            throw SyncError.refused(
                "the sync database holds no keychain for this \(secret.kind.rawValue) secret (a rotated secret, "
                    + "another database, or a typing error)"
            )
        }
    }

    /// Runs `body` on a leased connection, mapping errors.
    func execute<Result: Sendable>(
        _ body: (PostgresConnection, Logger) async throws -> Result
    ) async throws(SyncError) -> Result {
        let logger = logger
        do {
            return try await client.withConnection { connection in try await body(connection, logger) }
        } catch {
            throw SyncTransaction.map(error)
        }
    }

    /// Runs `body` in a transaction, mapping errors.
    func transaction<Result: Sendable>(
        _ body: (PostgresConnection, Logger) async throws -> Result
    ) async throws(SyncError) -> Result {
        let logger = logger
        return try await SyncTransaction.run(client, logger: logger) { connection in try await body(connection, logger)
        }
    }
}
