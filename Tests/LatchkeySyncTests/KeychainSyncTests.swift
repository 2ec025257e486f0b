import Foundation
import Latchkey
import LatchkeyTesting
import Logging
import PostgresNIO
import Testing

@testable import LatchkeySync

/// Three machines (separate keychain files, device secrets and clocks) syncing through a real PostgreSQL:
/// changes both ways, the scope rules, concurrent edits, the server going away, a crash between push and
/// answer, tampered rows, and what the server and the files hold.
@Suite struct KeychainSyncTests {
    /// Machine A sets sync up; B joins with the enrollment secret, C with the recovery secret.
    static func machines(
        _ server: PostgresServer,
        offsets: [TimeInterval] = [0, 0, 0]
    ) async throws -> (a: TestMachine, b: TestMachine, c: TestMachine, setup: SyncSetup) {
        let a = try TestMachine(clockOffset: offsets[0])
        let b = try TestMachine(clockOffset: offsets[1])
        let c = try TestMachine(clockOffset: offsets[2])
        let setup = try await a.sync.setup(databaseURL: server.url)
        try await b.sync.join(databaseURL: server.url, secret: .enrollment(setup.enrollmentSecret))
        try await c.sync.join(databaseURL: server.url, secret: .recovery(setup.recoverySecret))
        return (a, b, c, setup)
    }

    @Test func addUpdateAndDeleteReachEveryMachineBothWays() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, c, _) = try await Self.machines(server)
            try a.add("alice", "one")
            #expect(try await a.sync.syncNow().sent == 1)
            let pulled = try await b.sync.syncNow()
            #expect(pulled.applied == 1, "\(pulled)")
            #expect(try b.secret("alice") == "one")
            // Every attribute arrives as stored, the label among them.
            let copied = try b.store.findOne(TestMachine.query("alice"))
            #expect(copied.attributes[.label] == .string("Label of alice"))
            try b.update("alice", "two")
            try b.add("bob", "from b")
            try await b.sync.syncNow()
            try await a.sync.syncNow()
            try await c.sync.syncNow()
            #expect(try a.secret("alice") == "two")
            #expect(try c.secret("alice") == "two")
            #expect(try a.secret("bob") == "from b")
            try c.delete("bob")
            try await c.sync.syncNow()
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            #expect(try a.secret("bob") == nil)
            #expect(try b.secret("bob") == nil)
            #expect(try a.accounts() == ["alice"])
            // A sync with nothing new sends and applies nothing: an applied row is never sent back.
            let quiet = try await a.sync.syncNow()
            #expect(quiet.sent == 0 && quiet.applied == 0)
            #expect(try await a.sync.status().queued == 0)
        }
    }

    @Test func onlySynchronizableItemsNotBoundToTheirMachineLeave() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, _) = try await Self.machines(server)
            try a.add("local", "stays", synchronizable: false)
            try a.add("bound", "stays too", accessible: .afterFirstUnlockThisDeviceOnly)
            try a.add("shared", "leaves")
            #expect(try await a.sync.syncNow().sent == 1)
            try await b.sync.syncNow()
            #expect(try b.accounts() == ["shared"])
        }
    }

    @Test func leavingOrResettingOneMachineDeletesNothingElsewhere() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, _) = try await Self.machines(server)
            try a.add("alice", "kept")
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            #expect(try await b.sync.leave())
            #expect(try await b.sync.isEnabled() == false)
            // B's items stay on B; deleting them there after leaving does not reach A.
            #expect(try b.secret("alice") == "kept")
            try b.delete("alice")
            try await a.sync.syncNow()
            #expect(try a.secret("alice") == "kept")
            let machines = try await a.sync.machines()
            #expect(machines.filter { $0.state == "revoked" }.count == 1)
            #expect(machines.count == 3)
        }
    }

    @Test func concurrentEditsConvergeOnTheLaterStampWithTheLoserInHistory() async throws {
        try await PostgresServer.with { server, _ in
            // B's clock runs ten minutes behind A's, C's ten minutes ahead of A's.
            let (a, b, c, _) = try await Self.machines(server, offsets: [0, -600, 600])
            try a.add("alice", "original")
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            try await c.sync.syncNow()
            // Offline edits of one item on A and C: C's stamp is later (its clock is ahead).
            try a.update("alice", "from a")
            try c.update("alice", "from c")
            try await a.sync.syncNow()
            try await c.sync.syncNow()
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            for machine in [a, b, c] { #expect(try machine.secret("alice") == "from c") }
            // C decided the conflict when its push met A's edit: its history keeps A's losing edit.
            let history = try await c.sync.status().conflicts
            #expect(history.count == 1)
            #expect(history.first?.lostLocally == false)
            #expect(history.first?.loserMachine == (try await a.sync.readSettings())?.machine)
            // B, ten minutes behind, edits after seeing C's edit: its edit wins whatever its clock says.
            try b.update("alice", "from b, later")
            try await b.sync.syncNow()
            for machine in [a, c] {
                try await machine.sync.syncNow()
                #expect(try machine.secret("alice") == "from b, later")
            }
        }
    }

    @Test func twoMachinesAddingTheSameAccountConvergeOnOneItem() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, _) = try await Self.machines(server)
            try a.add("alice", "a's")
            try b.add("alice", "b's")
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            try await a.sync.syncNow()
            #expect(try a.accounts() == ["alice"])
            #expect(try b.accounts() == ["alice"])
            #expect(try a.secret("alice") == b.secret("alice"))
            let rows = try await server.count("SELECT count(*) FROM latchkey_rows")
            #expect(rows == 1)
        }
    }

    @Test func aLaterEditRevivesADeletedItemAndOtherwiseTheDeleteWins() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, _) = try await Self.machines(server)
            try a.add("alice", "one")
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            // A deletes, then B edits later: the edit revives the item everywhere.
            try a.delete("alice")
            b.clock.advance(by: 5)
            try b.update("alice", "revived")
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            try await a.sync.syncNow()
            #expect(try a.secret("alice") == "revived")
            #expect(try b.secret("alice") == "revived")
            // B edits, then A deletes later: the delete wins everywhere.
            try b.update("alice", "edited")
            a.clock.advance(by: 10)
            try a.delete("alice")
            try await b.sync.syncNow()
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            #expect(try a.secret("alice") == nil)
            #expect(try b.secret("alice") == nil)
        }
    }

    @Test func writesMadeWhileTheServerIsDownArriveOnceItIsBack() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, _) = try await Self.machines(server)
            try await a.sync.syncNow()
            try await server.pause()
            try a.add("offline", "queued")
            await expectKeychainError(.notAvailable) { _ = try await a.sync.syncNow() }
            let status = try await a.sync.status()
            #expect(status.queued == 1)
            #expect(status.lastError?.contains("sync server") == true)
            try await server.resume()
            #expect(try await a.sync.syncNow().sent == 1)
            try await b.sync.syncNow()
            #expect(try b.secret("offline") == "queued")
        }
    }

    @Test func aRowPushedBeforeACrashIsResentByteForByteAndLandsOnce() async throws {
        try await PostgresServer.with { server, client in
            let (a, b, _, _) = try await Self.machines(server)
            try a.add("alice", "one")
            try await a.sync.syncNow()
            try a.update("alice", "two")
            // The push reaches the server, and the machine dies before it records the answer.
            let settings = try #require(try await a.sync.readSettings())
            let envelope = try settings.envelope()
            let sealed = try await a.sync.transaction { try KeychainSync.sealOutbox($0, envelope: envelope) }
            #expect(sealed == 1)
            let pending = try await a.sync.transaction { try $0.pendingSyncRows().compactMap(SealedRow.init(encoded:)) }
            #expect(try await SyncServer(client: client, logger: server.logger).push(pending) == [.applied])
            // A restarted machine: a new store and sync on the same file.
            let restarted = try KeychainStore.open(
                path: a.keychain.path,
                credentials: [.passphrase(a.keychain.passphrase)],
                options: a.keychain.options()
            )
            let report = try await KeychainSync(store: restarted).syncNow()
            #expect(report.sent == 1 && report.conflicts == 0)
            #expect(try await server.count("SELECT version FROM latchkey_rows") == 2)
            try await b.sync.syncNow()
            #expect(try b.secret("alice") == "two")
        }
    }

    @Test func tamperedMovedOrFlippedRowsAreRefusedAndNotApplied() async throws {
        try await PostgresServer.with { server, client in
            let (a, b, _, _) = try await Self.machines(server)
            try a.add("alice", "one")
            try a.add("bob", "two")
            try a.add("carol", "three")
            try await a.sync.syncNow()
            try await client.query(
                """
                UPDATE latchkey_rows SET ciphertext = overlay(ciphertext placing '\\xff'::bytea from 40 for 1)
                WHERE row_id = (SELECT row_id FROM latchkey_rows ORDER BY row_id LIMIT 1)
                """,
                logger: server.logger
            )
            try await client.query(
                """
                UPDATE latchkey_rows SET tombstone = true
                WHERE row_id = (SELECT row_id FROM latchkey_rows ORDER BY row_id OFFSET 1 LIMIT 1)
                """,
                logger: server.logger
            )
            let report = try await b.sync.syncNow()
            #expect(report.refused == 2)
            #expect(report.applied == 1)
            #expect(try b.accounts().count == 1)
            #expect(try await b.sync.status().lastError?.contains("integrity") == true)
        }
    }

    @Test func theServerAndTheKeychainFilesHoldNoSecretInPlaintext() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, setup) = try await Self.machines(server)
            let secret = "plaintext-secret-7f3a9"
            try a.add("account-name-5d1c", secret)
            try await a.sync.syncNow()
            try await b.sync.syncNow()
            let dump = try await server.dump()
            for needle in [secret, "account-name-5d1c", "mail.example.com", TestMachine.group] {
                #expect(!dump.contains(needle))
                #expect(!dump.contains(Data(needle.utf8).base64EncodedString()))
            }
            // The sync key and the secrets are sealed in the keychain file, never stored in plaintext.
            let settings = try #require(try await b.sync.readSettings())
            for machine in [a, b] {
                let bytes = try machine.fileBytes()
                #expect(bytes.range(of: settings.syncKey) == nil)
                #expect(bytes.range(of: Data(server.url.utf8)) == nil)
                #expect(bytes.range(of: Data(secret.utf8)) == nil)
                #expect(bytes.range(of: Data(setup.recoverySecret.utf8)) == nil)
            }
        }
    }

    @Test func anEnrollmentSecretCanBeLimitedRotatedAndMistypedSecretsAreRefused() async throws {
        try await PostgresServer.with { server, _ in
            let a = try TestMachine()
            let setup = try await a.sync.setup(databaseURL: server.url, enrollmentUses: 1)
            let b = try TestMachine()
            try await b.sync.join(databaseURL: server.url, secret: .enrollment(setup.enrollmentSecret))
            let c = try TestMachine()
            await expectKeychainError(.authFailed) {
                try await c.sync.join(databaseURL: server.url, secret: .enrollment(setup.enrollmentSecret))
            }
            await expectKeychainError(.param) {
                try await c.sync.join(databaseURL: server.url, secret: .enrollment("LKE1-NOT-A-SECRET"))
            }
            let rotated = try await a.sync.rotateEnrollmentSecret()
            #expect(rotated != setup.enrollmentSecret)
            try await c.sync.join(databaseURL: server.url, secret: .enrollment(rotated))
            #expect(try await c.sync.isEnabled())
            // A second set-up of a syncing keychain is refused.
            await expectKeychainError(.duplicateItem) {
                _ = try await a.sync.setup(databaseURL: server.url)
            }
        }
    }

    @Test func anInitialSyncResumesAfterTheLastPageItApplied() async throws {
        try await PostgresServer.with { server, _ in
            let (a, b, _, _) = try await Self.machines(server)
            let count = KeychainSync.pageSize * 2 + 7
            _ = try a.store.batch(
                (0..<count).map { index in
                    .add(
                        NewItem(
                            .genericPassword,
                            attributes: [
                                .account: .string("bulk-\(index)"), .service: .string("mail.example.com"),
                                .synchronizable: .number(1),
                            ],
                            data: SecretData(string: "secret \(index)")
                        )
                    )
                }
            )
            #expect(try await a.sync.syncNow().sent == count)
            // B pulls one page and stops (a killed initial sync), then resumes.
            let settings = try #require(try await b.sync.readSettings())
            let first = try await KeychainSync.withServer(settings.databaseURL, logger: server.logger) {
                server throws(KeychainError) in
                let batch = try await server.pull(
                    keychain: settings.keychain,
                    after: .start,
                    limit: KeychainSync.pageSize
                )
                try await b.sync.transaction { transaction in
                    for row in batch.rows {
                        _ = try KeychainSync.takePulled(row, transaction, envelope: try settings.envelope())
                    }
                    try transaction.setSyncMeta("cursor", try JSONEncoder().encode(batch.cursor))
                }
                return batch.rows.count
            }
            #expect(first == KeychainSync.pageSize)
            let resumed = try await b.sync.syncNow()
            #expect(resumed.applied == count - KeychainSync.pageSize)
            #expect(try b.accounts().count == count)
        }
    }
}

/// The file's sync clock takes in pulled stamps, except one implausibly far ahead of this machine's clock.
@Suite struct SyncClockBoundTests {
    @Test func aStampMoreThanTheMaximumLeadAheadDoesNotMoveTheClock() async throws {
        let machine = try TestMachine()
        let now = UInt64(machine.clock.now().timeIntervalSince1970 * 1000)
        let lead = KeychainSync.maximumClockLead
        let taken = try await machine.sync.transaction { transaction in
            [
                try transaction.receiveSyncStamp(SyncStamp(milliseconds: now + 600_000, counter: 0), maximumLead: lead),
                try transaction.receiveSyncStamp(
                    SyncStamp(milliseconds: now + UInt64(lead * 1000) + 60_000, counter: 0),
                    maximumLead: lead
                ),
            ]
        }
        #expect(taken == [true, false])
    }
}
