import Foundation
import Latchkey
import LatchkeySync
import PostgresNIO
import Testing

/// The sync database's migrations, against a real PostgreSQL.
@Suite struct SyncSchemaTests {
    @Test func migratingTwiceIsANoOp() async throws {
        try await PostgresServer.with { server, client in
            #expect(try await SyncSchema.migrate(client, logger: server.logger) == SyncSchema.currentVersion)
            #expect(try await SyncSchema.migrate(client, logger: server.logger) == SyncSchema.currentVersion)
            let versions = try await client.query("SELECT version FROM latchkey_sync_schema ORDER BY version")
                .collect().map { try $0.decode(Int32.self) }
            #expect(versions == (1...SyncSchema.currentVersion).map(Int32.init))
        }
    }

    @Test func machinesMigratingAtOnceApplyEachVersionOnce() async throws {
        try await PostgresServer.with { server, client in
            // Eight "machines" migrate one empty database concurrently, each on its own connection.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await SyncSchema.migrate(client, logger: server.logger) }
                }
                for try await version in group { #expect(version == SyncSchema.currentVersion) }
            }
            let applied = try await client.query("SELECT count(*) FROM latchkey_sync_schema").collect()
            #expect(try applied.first?.decode(Int64.self) == Int64(SyncSchema.currentVersion))
        }
    }

    @Test func aNewerSchemaIsRefused() async throws {
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            try await client.query("INSERT INTO latchkey_sync_schema (version) VALUES (99)")
            let error = await #expect(throws: KeychainError.self) {
                try await SyncSchema.migrate(client, logger: server.logger)
            }
            #expect(error?.code == .notAvailable)
            #expect(error?.message.contains("schema version 99") == true)
            #expect(error?.message.contains("Update Latchkey") == true)
        }
    }

    @Test func noColumnCanHoldAUsersTextInPlaintext() async throws {
        // Every column is an identifier, a number, a flag, a time, key material or ciphertext: no text but
        // the machine's state and the kind of a wrapped key ('recovery' or 'enrollment', both constants).
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            let columns = try await client.query(
                """
                SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns
                WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'json', 'jsonb')
                ORDER BY 1, 2
                """
            ).collect().map { try $0.decode((String, String, String).self) }
            #expect(columns.map { "\($0.0).\($0.1)" } == ["latchkey_enrollments.kind", "latchkey_machines.state"])
        }
    }
}
