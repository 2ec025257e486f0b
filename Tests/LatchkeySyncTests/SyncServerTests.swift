import Foundation
import Latchkey
import Logging
import PostgresNIO
import Testing

@testable import LatchkeySync

/// Push and pull against a real PostgreSQL: compare-and-swap, idempotent re-push, the late-commit cursor,
/// and what a `pg_dump` holds.
@Suite struct SyncServerTests {
    @Test func pushInsertsThenReplacesOnlyTheExpectedVersion() async throws {
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            let sync = SyncServer(client: client, logger: server.logger)
            let envelope = try SyncFixture.envelope()
            let first = try envelope.seal(SyncFixture.password(secret: "one"), version: 1)
            #expect(try await sync.push([first]) == [.applied])
            let second = try envelope.seal(SyncFixture.password(secret: "two"), version: 2)
            #expect(try await sync.push([second]) == [.applied])
            // Machine B edited version 1 without seeing version 2: its version 2 loses the swap.
            let stale = try SyncFixture.envelope(author: SyncFixture.machineB)
                .seal(SyncFixture.password(secret: "three"), version: 2)
            #expect(try await sync.push([stale]) == [.conflict(current: second)])
            // A version that skips one is refused too, and a new row at version 1 when one exists.
            let skipping = try envelope.seal(SyncFixture.password(secret: "four"), version: 4)
            #expect(try await sync.push([skipping]) == [.conflict(current: second)])
            let again = try envelope.seal(SyncFixture.password(secret: "five"), version: 1)
            #expect(try await sync.push([again]) == [.conflict(current: second)])
            // An edit of an item the server never held.
            let orphan = try envelope.seal(SyncFixture.password(account: "nobody"), version: 3)
            #expect(try await sync.push([orphan]) == [.conflict(current: nil)])
            let pulled = try await sync.pull(keychain: SyncFixture.keychain, after: .start, limit: 10)
            #expect(pulled.rows == [second])
            #expect(try envelope.open(pulled.rows[0], knownVersion: 2).secret == SecretData(string: "two"))
        }
    }

    @Test func reSentRowIsANoOpAndOtherBytesUnderItsVersionConflict() async throws {
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            let sync = SyncServer(client: client, logger: server.logger)
            let envelope = try SyncFixture.envelope()
            let row = try envelope.seal(SyncFixture.password(), version: 1)
            let other = try envelope.seal(SyncFixture.password(account: "bob@example.com"), version: 1)
            #expect(try await sync.push([row, other]) == [.applied, .applied])
            let before = try await sync.pull(keychain: SyncFixture.keychain, after: .start, limit: 10)
            // The answer was lost; the outbox sends the same sealed bytes again.
            #expect(try await sync.push([row, other]) == [.alreadyApplied, .alreadyApplied])
            // The same item and version sealed again (new nonce): other bytes, a conflict.
            let resealed = try envelope.seal(SyncFixture.password(), version: 1)
            #expect(resealed.ciphertext != row.ciphertext)
            #expect(try await sync.push([resealed]) == [.conflict(current: row)])
            // The no-op wrote nothing: no new transaction id, nothing new to pull.
            let after = try await sync.pull(keychain: SyncFixture.keychain, after: before.cursor, limit: 10)
            #expect(after.rows.isEmpty && after.cursor == before.cursor)
            let edit = try envelope.seal(SyncFixture.password(secret: "edited"), version: 2)
            #expect(try await sync.push([edit, edit]) == [.applied, .alreadyApplied])
        }
    }

    @Test func aTransactionThatCommitsLateIsSeenByALaterPull() async throws {
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            let sync = SyncServer(client: client, logger: server.logger)
            let envelope = try SyncFixture.envelope()
            let early = try envelope.seal(SyncFixture.password(account: "early"), version: 1)
            #expect(try await sync.push([early]) == [.applied])
            let start = try await sync.pull(keychain: SyncFixture.keychain, after: .start, limit: 10)
            #expect(start.rows == [early])

            // Connection A begins and inserts, and stays open.
            let late = try envelope.seal(SyncFixture.password(account: "late"), version: 1)
            let connectionA = try await server.connect(id: 1)
            try await connectionA.query("BEGIN", logger: server.logger)
            try await connectionA.query(
                """
                INSERT INTO latchkey_rows (keychain, row_id, version, epoch, tombstone, author, format, ciphertext)
                VALUES (\(late.keychain), \(late.rowID), \(late.version), \(late.epoch), \(late.isTombstone),
                        \(late.author), \(late.format), \(late.ciphertext))
                """,
                logger: server.logger
            )
            // B inserts and commits after A began.
            let prompt = try SyncFixture.envelope(author: SyncFixture.machineB)
                .seal(SyncFixture.password(account: "prompt"), version: 1)
            #expect(try await sync.push([prompt]) == [.applied])

            // The pull sees nothing of A, and its cursor does not pass A (nor B, committed behind A).
            let during = try await sync.pull(keychain: SyncFixture.keychain, after: start.cursor, limit: 10)
            #expect(during.rows.isEmpty)
            #expect(during.cursor == start.cursor)

            try await connectionA.query("COMMIT", logger: server.logger)
            try await connectionA.close()
            let after = try await sync.pull(keychain: SyncFixture.keychain, after: during.cursor, limit: 10)
            #expect(after.rows == [late, prompt])
            #expect(after.cursor.transaction > start.cursor.transaction)
            let finally = try await sync.pull(keychain: SyncFixture.keychain, after: after.cursor, limit: 10)
            #expect(finally.rows.isEmpty && finally.cursor == after.cursor)
        }
    }

    @Test func pullPagesThroughRowsInCommitOrderAndSeesEditsAgain() async throws {
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            let sync = SyncServer(client: client, logger: server.logger)
            let envelope = try SyncFixture.envelope()
            let rows = try (0..<7).map { try envelope.seal(SyncFixture.password(account: "user\($0)"), version: 1) }
            // One transaction of four rows, then three of one row each.
            #expect(try await sync.push(Array(rows[0..<4])).count == 4)
            for row in rows[4...] { #expect(try await sync.push([row]) == [.applied]) }
            var cursor = SyncCursor.start
            var seen: [SealedRow] = []
            while true {
                let page = try await sync.pull(keychain: SyncFixture.keychain, after: cursor, limit: 3)
                if page.rows.isEmpty { break }
                seen += page.rows
                cursor = page.cursor
            }
            #expect(Set(seen) == Set(rows) && seen.count == rows.count)
            #expect(Set(seen.prefix(4)) == Set(rows.prefix(4)))
            #expect(Array(seen.suffix(3)) == Array(rows.suffix(3)))
            // An edit moves its row behind the cursor's end: the next pull returns its new version only.
            let edit = try envelope.seal(SyncFixture.password(account: "user0", secret: "changed"), version: 2)
            #expect(try await sync.push([edit]) == [.applied])
            let next = try await sync.pull(keychain: SyncFixture.keychain, after: cursor, limit: 10)
            #expect(next.rows == [edit])
            // Another keychain's rows are never pulled.
            let elsewhere = try await sync.pull(keychain: UUID(), after: .start, limit: 10)
            #expect(elsewhere.rows.isEmpty)
        }
    }

    @Test func pgDumpHoldsNoSecretAccountServiceLabelOrAccessGroup() async throws {
        try await PostgresServer.with { server, client in
            try await SyncSchema.migrate(client, logger: server.logger)
            let sync = SyncServer(client: client, logger: server.logger)
            let envelope = try SyncFixture.envelope()
            let values = [
                "account": "dump-account-Quokka", "service": "dump-service-Wombat", "label": "dump-label-Numbat",
                "group": "dump.group.Echidna", "secret": "dump-secret-Platypus",
            ]
            let record = SyncFixture.password(
                account: values["account"]!,
                service: values["service"]!,
                label: values["label"]!,
                accessGroup: values["group"]!,
                secret: values["secret"]!
            )
            let row = try envelope.seal(record, version: 1)
            let tombstone = try envelope.seal(
                SyncFixture.password(account: values["account"]! + "-gone", tombstone: true),
                version: 1
            )
            #expect(try await sync.push([row, tombstone]) == [.applied, .applied])
            let dump = try await server.dump()
            #expect(dump.contains("latchkey_rows"))
            #expect(dump.contains(row.rowID.uuidString.lowercased()))
            for (what, value) in values {
                #expect(!dump.contains(value), "pg_dump holds the \(what)")
                // Also not as hex (bytea is dumped as \x...) nor base64.
                let hex = Data(value.utf8).map { String(format: "%02x", $0) }.joined()
                #expect(!dump.lowercased().contains(hex), "pg_dump holds the \(what) in hex")
                #expect(!dump.contains(Data(value.utf8).base64EncodedString().dropLast(4)), "base64 \(what)")
            }
        }
    }
}
