import Foundation
import GRDB
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Issue 14, finding 6: rows restored from an older copy of the keychain (or edited, added or removed
/// outside Latchkey) are refused with errSecDecode (-26275), in a process that opens the file afterwards
/// and in one that has it open while it happens; the user can accept the current state on purpose.
@Suite(.serialized)
struct RollbackTests {
    typealias Row = [String: DatabaseValue]

    static let blobColumns = ["pk", "kc", "agrp", "sync", "tomb", "acct", "svce", "itemkey", "attrs", "secret"]

    /// Every stored column of the row holding `persistref`.
    static func saveRow(_ keychain: TemporaryKeychain, _ persistref: Data) throws -> Row {
        try TamperingTests.raw(keychain) { db in
            let row = try #require(
                try GRDB.Row.fetchOne(db, sql: "SELECT * FROM genp WHERE persistref = ?", arguments: [persistref])
            )
            var saved: Row = [:]
            for column in blobColumns { saved[column] = row[column] as DatabaseValue }
            return saved
        }
    }

    /// Writes saved columns back over the row holding `persistref`, as `sqlite3` would.
    static func restoreRow(_ keychain: TemporaryKeychain, _ persistref: Data, _ saved: Row) throws {
        try TamperingTests.raw(keychain) { db in
            let assignments = blobColumns.map { "\($0) = ?" }.joined(separator: ", ")
            let arguments = StatementArguments(blobColumns.map { saved[$0] ?? .null } + [persistref.databaseValue])
            try db.execute(sql: "UPDATE genp SET \(assignments) WHERE persistref = ?", arguments: arguments)
            #expect(db.changesCount == 1)
        }
    }

    static func secret(_ store: KeychainStore, _ account: String) throws(KeychainError) -> String? {
        try store.findOne(TamperingTests.query(account), withData: true).data?.utf8String
    }

    @Test func aRowRestoredFromAnOlderCopyIsRefusedByTheNextOpener() throws {
        let (keychain, persistrefs) = try TamperingTests.threeItems()
        let bob = try #require(persistrefs["bob"])
        let old = try Self.saveRow(keychain, bob)
        let store = try keychain.open()
        try store.update(TamperingTests.query("bob"), with: ItemChanges(data: SecretData(string: "rotated")))
        try store.close()
        try Self.restoreRow(keychain, bob, old)

        let reopened = try keychain.open()
        expectKeychainError(.decode) { _ = try Self.secret(reopened, "bob") }
        let report = try reopened.verifyIntegrity()
        #expect(!report.isSound)
        #expect(
            report.ledger?.mismatched.contains(Data("genp".utf8) + bob) == true,
            "\(String(describing: report.ledger))"
        )
        // Backups name it instead of carrying the old secret forward.
        let damaged = try reopened.damagedItems(.genericPassword, includingSecrets: true).map(\.persistentReference)
        #expect(damaged.contains(Data("genp".utf8) + bob))

        // The user decides the file as it is now is right: the old secret is then what the item holds.
        try reopened.acceptCurrentRows()
        #expect(try Self.secret(reopened, "bob") == "secret-bob")
        #expect(try reopened.verifyIntegrity().isSound)
        try reopened.close()
        let again = try keychain.open()
        #expect(try Self.secret(again, "bob") == "secret-bob")
        #expect(try Self.secret(again, "alice") == "secret-alice")
    }

    @Test func aRowRolledBackWhileTheKeychainIsOpenIsRefused() throws {
        let (keychain, persistrefs) = try TamperingTests.threeItems()
        let alice = try #require(persistrefs["alice"])
        let store = try keychain.open()
        #expect(try Self.secret(store, "alice") == "secret-alice")
        let old = try Self.saveRow(keychain, alice)
        try store.update(TamperingTests.query("alice"), with: ItemChanges(data: SecretData(string: "new")))
        #expect(try Self.secret(store, "alice") == "new")
        try Self.restoreRow(keychain, alice, old)
        expectKeychainError(.decode) { _ = try Self.secret(store, "alice") }
        // Writes refuse to build on it too.
        expectKeychainError(.decode) {
            try store.update(TamperingTests.query("alice"), with: ItemChanges(data: SecretData(string: "x")))
        }
    }

    @Test(arguments: ["agrp", "sync", "tomb", "svce", "acct", "itemkey"])
    func aColumnChangedOutsideLatchkeyIsNamedAndNeverReadAsCurrent(column: String) throws {
        let (keychain, persistrefs) = try TamperingTests.threeItems()
        let alice = try #require(persistrefs["alice"])
        let carol = try #require(persistrefs["carol"])
        // Another row's value, different from alice's in every one of these columns.
        let carolRow = try Self.saveRow(keychain, carol)
        var aliceRow = try Self.saveRow(keychain, alice)
        aliceRow[column] = column == "itemkey" ? carolRow["itemkey"] : carolRow["acct"]
        try Self.restoreRow(keychain, alice, aliceRow)
        let store = try keychain.open()
        let report = try store.verifyIntegrity()
        #expect(!report.isSound)
        #expect(report.ledger?.mismatched.contains(Data("genp".utf8) + alice) == true)
        // Selected or not by its changed column, the row never reads back as an item.
        let everything = try store.find(
            ItemQuery(.genericPassword, synchronizable: .any, includeTombstones: true),
            limit: .all,
            withData: true,
            authentication: .confirmed
        )
        #expect(!everything.contains { $0.persistentReference.suffix(16) == alice })
        #expect(everything.map(\.data) == [SecretData(string: "secret-bob"), SecretData(string: "secret-carol")])
    }

    @Test func aRowRemovedOrAddedOutsideLatchkeyIsReported() throws {
        let (keychain, persistrefs) = try TamperingTests.threeItems()
        let bob = try #require(persistrefs["bob"])
        let saved = try TamperingTests.raw(keychain) { db in
            let row = try #require(
                try GRDB.Row.fetchOne(db, sql: "SELECT * FROM genp WHERE persistref = ?", arguments: [bob])
            )
            try db.execute(sql: "DELETE FROM genp WHERE persistref = ?", arguments: [bob])
            return row
        }
        var store = try keychain.open()
        let report = try #require(try store.verifyIntegrity().ledger)
        #expect(report.rowsMissing || !report.mismatched.isEmpty, "\(report)")
        try store.close()

        // Putting the row back (same id, same bytes) makes the file what Latchkey last stored again.
        try TamperingTests.raw(keychain) { db in
            let columns = Array(saved.columnNames)
            let marks = Array(repeating: "?", count: columns.count).joined(separator: ",")
            try db.execute(
                sql: "INSERT INTO genp (\(columns.joined(separator: ","))) VALUES (\(marks))",
                arguments: StatementArguments(columns.map { saved[$0] as DatabaseValue })
            )
        }
        store = try keychain.open()
        #expect(try store.verifyIntegrity().isSound)
        #expect(try Self.secret(store, "bob") == "secret-bob")
    }

    @Test func aMissingOrForgedLedgerRefusesEveryItemUntilAccepted() throws {
        let (keychain, _) = try TamperingTests.threeItems()
        try TamperingTests.raw(keychain) { db in
            try db.execute(sql: "UPDATE changes SET ledger = zeroblob(length(ledger))")
        }
        var store = try keychain.open()
        expectKeychainError(.decode) { _ = try Self.secret(store, "carol") }
        #expect(try store.verifyIntegrity().ledger?.sealDamaged == true)
        try TamperingTests.raw(keychain) { db in try db.execute(sql: "UPDATE changes SET ledger = NULL") }
        try store.close()
        store = try keychain.open()
        expectKeychainError(.decode) { _ = try Self.secret(store, "carol") }
        try store.acceptCurrentRows()
        #expect(try Self.secret(store, "carol") == "secret-carol")
    }

    @Test func theWholeTableRolledBackWithItsLedgerWhileOpenIsRefusedAtTheNextWrite() throws {
        let (keychain, _) = try TamperingTests.threeItems()
        let store = try keychain.open()
        let snapshot = try TamperingTests.raw(keychain) { db in
            (
                try GRDB.Row.fetchAll(db, sql: "SELECT * FROM genp"),
                try Data.fetchOne(db, sql: "SELECT ledger FROM changes")
            )
        }
        try store.update(TamperingTests.query("carol"), with: ItemChanges(data: SecretData(string: "newer")))
        // The table and its ledger go back together: an older copy, consistent with itself.
        try TamperingTests.raw(keychain) { db in
            try db.execute(sql: "DELETE FROM genp")
            for row in snapshot.0 {
                let columns = Array(row.columnNames)
                let marks = Array(repeating: "?", count: columns.count).joined(separator: ",")
                try db.execute(
                    sql: "INSERT INTO genp (\(columns.joined(separator: ","))) VALUES (\(marks))",
                    arguments: StatementArguments(columns.map { row[$0] as DatabaseValue })
                )
            }
            try db.execute(sql: "UPDATE changes SET ledger = ?", arguments: [snapshot.1])
        }
        // This process knows the file went further than that copy.
        expectKeychainError(.decode) {
            try store.add(.genericPassword, attributes: [.account: .string("dave")], data: SecretData(string: "d"))
        }
    }

    @Test func concurrentReadersAndWritersInTwoHandlesNeverSeeAFalseMismatch() async throws {
        let keychain = TemporaryKeychain()
        let first = try keychain.open()
        let second = try keychain.open()
        for index in 0..<20 {
            try first.add(
                .genericPassword,
                attributes: [.account: .string("a\(index)"), .service: .string("race")],
                data: SecretData(string: "v0")
            )
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writerIndex, store) in [first, second].enumerated() {
                group.addTask {
                    for round in 0..<40 {
                        let account = "a\((round * 7 + writerIndex) % 20)"
                        try store.update(
                            ItemQuery(.genericPassword, attributes: [.account: .string(account)]),
                            with: ItemChanges(data: SecretData(string: "v\(round)"))
                        )
                    }
                }
            }
            for store in [first, second, first] {
                group.addTask {
                    for round in 0..<150 {
                        let found = try store.findOne(
                            ItemQuery(.genericPassword, attributes: [.account: .string("a\(round % 20)")]),
                            withData: true
                        )
                        #expect(found.data?.utf8String?.hasPrefix("v") == true)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.verifyIntegrity().isSound)
        #expect(try second.verifyIntegrity().isSound)
    }
    /// The issue's reproduction, through the built CLI and the sqlite3 shell: save one item's stored blobs,
    /// update the item, write the old blobs back; the CLI must not print the old secret as current.
    @Test func theCLIRefusesARowWrittenBackWithSqlite3AndAcceptsItOnlyWhenAsked() throws {
        let fixture = try KeyFileFixture()
        for (account, secret) in [("alice", "one"), ("bob", "bob-secret")] {
            let added = try fixture.latchkey(["add-generic-password", "-s", "s", "-a", account, "-w", secret])
            try #require(added.status == 0, "\(added.stderr)")
        }
        let columns = "pk, kc, agrp, sync, tomb, acct, svce, itemkey, attrs, secret"
        let saved = try SQLiteShell.run(
            fixture.keychain,
            "SELECT \(columns.split(separator: ",").map { "quote(\($0.trimmingCharacters(in: .whitespaces)))" }.joined(separator: " || ',' || ")) FROM genp WHERE id = 1"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let updated = try fixture.latchkey(["add-generic-password", "-U", "-s", "s", "-a", "alice", "-w", "two"])
        try #require(updated.status == 0, "\(updated.stderr)")
        let values = saved.split(separator: ",").map(String.init)
        let assignments = zip(columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }, values)
            .map { "\($0) = \($1)" }.joined(separator: ", ")
        _ = try SQLiteShell.run(fixture.keychain, "UPDATE genp SET \(assignments) WHERE id = 1")

        let found = try fixture.latchkey(["find-generic-password", "-s", "s", "-a", "alice", "-w"])
        #expect(found.status == 1, "\(found.stdout) \(found.stderr)")
        #expect(!found.stdout.contains("one") && !found.stdout.contains("two"))
        #expect(found.stderr.contains("-26275"), "\(found.stderr)")
        let other = try fixture.latchkey(["find-generic-password", "-s", "s", "-a", "bob", "-w"])
        #expect(other.stdout == "bob-secret\n", "another bucket's item still reads: \(other.stderr)")

        let verified = try fixture.latchkey(["verify-keychain"])
        #expect(verified.status == 65, "\(verified.stdout) \(verified.stderr)")
        #expect(verified.stdout.contains("not as last stored: 67656e70"), "\(verified.stdout)")
        #expect(!verified.stdout.contains("alice"), "no attribute values")
        let dumped = try fixture.latchkey(["dump-keychain", "-d"])
        #expect(dumped.status == 1 && dumped.stderr.contains("-26275"), "a backup names it: \(dumped.stderr)")
        let skipping = try fixture.latchkey(["dump-keychain", "-d", "--skip-damaged"])
        #expect(skipping.status == 65, "\(skipping.stderr)")
        #expect(skipping.stdout.contains("bob-secret"), "\(skipping.stdout)")
        #expect(!skipping.stdout.contains("alice"), "the rolled-back item is left out: \(skipping.stdout)")
        #expect(skipping.stderr.contains("skipped damaged item genp"), "\(skipping.stderr)")

        let accepted = try fixture.latchkey(["verify-keychain", "--accept-current-state"])
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let after = try fixture.latchkey(["find-generic-password", "-s", "s", "-a", "alice", "-w"])
        #expect(after.stdout == "one\n", "the user accepted the restored row: \(after.stderr)")
        #expect(try fixture.latchkey(["verify-keychain"]).status == 0)
    }
}
