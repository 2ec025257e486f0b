import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeySync

/// The envelope: a row opens only under the header it was sealed with, and its size says little.
@Suite struct SyncEnvelopeTests {
    @Test func sealedRowOpensToTheSameRecord() throws {
        let envelope = try SyncFixture.envelope()
        let record = SyncFixture.password()
        let row = try envelope.seal(record, version: 1)
        #expect(row.keychain == SyncFixture.keychain)
        #expect(row.version == 1 && row.epoch == 0 && !row.isTombstone && row.format == 1)
        #expect(row.author == SyncFixture.machineA)
        #expect(try envelope.open(row) == record)
        // Another machine of the keychain opens it too.
        #expect(try SyncFixture.envelope(author: SyncFixture.machineB).open(row) == record)
    }

    @Test func everyAttributeKindAndATombstoneRoundTrip() throws {
        let envelope = try SyncFixture.envelope()
        var record = SyncFixture.password()
        record.attributes[.generic] = .data(Data([0, 1, 2, 255]))
        record.attributes[.creator] = .number(-42)
        record.attributes["test"] = .double(2.5)
        record.secret = SecretData(Data())
        #expect(try envelope.open(try envelope.seal(record, version: 7)) == record)
        let tombstone = SyncFixture.password(tombstone: true)
        let row = try envelope.seal(tombstone, version: 2)
        #expect(row.isTombstone)
        #expect(try envelope.open(row) == tombstone)
    }

    @Test func rowMovedToAnotherUUIDIsRefused() throws {
        let envelope = try SyncFixture.envelope()
        var row = try envelope.seal(SyncFixture.password(), version: 1)
        let other = try envelope.seal(SyncFixture.password(account: "bob@example.com"), version: 1)
        row.rowID = other.rowID
        #expect(throws: SyncError.rowRefused(row: other.rowID)) { try envelope.openRow(row) }
    }

    @Test func rowMovedToAnotherKeychainIsRefused() throws {
        let envelope = try SyncFixture.envelope()
        let row = try envelope.seal(SyncFixture.password(), version: 1)
        // The server hands the row to a machine of another keychain holding the same sync key...
        let otherKeychain = SyncEnvelope(
            keys: try SyncKeys(syncKey: SyncFixture.syncKey, keychain: UUID(), epoch: 0),
            author: SyncFixture.machineB
        )
        #expect(throws: SyncError.rowRefused(row: row.rowID)) { try otherKeychain.openRow(row) }
        // ...or relabels it as that keychain's row.
        var relabelled = row
        relabelled.keychain = otherKeychain.keys.keychain
        #expect(throws: SyncError.rowRefused(row: row.rowID)) { try otherKeychain.openRow(relabelled) }
    }

    @Test func flippedTombstoneIsRefused() throws {
        let envelope = try SyncFixture.envelope()
        var live = try envelope.seal(SyncFixture.password(), version: 1)
        live.isTombstone = true
        #expect(throws: SyncError.rowRefused(row: live.rowID)) { try envelope.openRow(live) }
        var dead = try envelope.seal(SyncFixture.password(tombstone: true), version: 2)
        dead.isTombstone = false
        #expect(throws: SyncError.rowRefused(row: dead.rowID)) { try envelope.openRow(dead) }
    }

    @Test func replayedOlderCiphertextUnderANewerVersionIsRefused() throws {
        let envelope = try SyncFixture.envelope()
        let first = try envelope.seal(SyncFixture.password(secret: "old password"), version: 1)
        var replayed = try envelope.seal(SyncFixture.password(secret: "new password"), version: 2)
        replayed.ciphertext = first.ciphertext
        #expect(throws: SyncError.rowRefused(row: first.rowID)) { try envelope.openRow(replayed) }
    }

    @Test func wholeRowRolledBackToAnOlderVersionIsRefused() throws {
        let envelope = try SyncFixture.envelope()
        let first = try envelope.seal(SyncFixture.password(secret: "old password"), version: 1)
        _ = try envelope.seal(SyncFixture.password(secret: "new password"), version: 2)
        #expect(throws: SyncError.rolledBack(row: first.rowID, offered: 1, known: 2)) {
            try envelope.openRow(first, knownVersion: 2)
        }
        #expect(try envelope.openRow(first, knownVersion: 1).secret == SecretData(string: "old password"))
    }

    @Test(arguments: ["version", "epoch", "author", "format"])
    func changedHeaderFieldIsRefused(field: String) throws {
        let envelope = try SyncFixture.envelope()
        var row = try envelope.seal(SyncFixture.password(), version: 3)
        switch field {
        case "version": row.version = 4
        case "epoch": row.epoch = 1
        case "author": row.author = SyncFixture.machineB
        default: row.format = 0
        }
        #expect(throws: SyncError.rowRefused(row: row.rowID)) { try envelope.openRow(row) }
    }

    @Test func newerRecordFormatIsRefusedAsUnsupported() throws {
        let envelope = try SyncFixture.envelope()
        var row = try envelope.seal(SyncFixture.password(), version: 1)
        row.format = 2
        #expect(throws: SyncError.unsupportedRowFormat(row: row.rowID, format: 2)) { try envelope.openRow(row) }
    }

    @Test func everyFlippedBitIsRefused() throws {
        let envelope = try SyncFixture.envelope()
        let row = try envelope.seal(SyncFixture.password(), version: 1)
        let random = SeededRandom(seed: 26)
        for _ in 0..<64 {
            var tampered = row
            let draw = random.bytes(4).reduce(0) { $0 << 8 | Int($1) }
            let bit = draw % (row.ciphertext.count * 8)
            tampered.ciphertext[bit / 8] ^= UInt8(1 << (bit % 8))
            #expect(throws: SyncError.rowRefused(row: row.rowID)) { try envelope.openRow(tampered) }
        }
        var truncated = row
        truncated.ciphertext = row.ciphertext.prefix(20)
        #expect(throws: SyncError.rowRefused(row: row.rowID)) { try envelope.openRow(truncated) }
    }

    @Test func contentsUnderAnotherItemsIdentityAreRefused() throws {
        // A machine with the key seals Bob's record under Alice's row: the record opens, its identity does not match.
        let envelope = try SyncFixture.envelope()
        let alice = try envelope.seal(SyncFixture.password(), version: 1)
        let forged = try SealedRowForge.reseal(
            SyncFixture.password(account: "bob@example.com"),
            as: alice,
            keys: try SyncFixture.keys()
        )
        #expect(throws: SyncError.identityMismatch(row: alice.rowID)) { try envelope.openRow(forged) }
    }

    @Test func oneAndNineteenByteSecretsGiveEqualLengths() throws {
        let envelope = try SyncFixture.envelope()
        let one = try envelope.seal(SyncFixture.password(secret: "x"), version: 1)
        let nineteen = try envelope.seal(SyncFixture.password(secret: String(repeating: "y", count: 19)), version: 1)
        #expect(one.ciphertext.count == nineteen.ciphertext.count)
        #expect(one.ciphertext.count == 256 + 28)
        // A much larger secret moves to a larger bucket, a power of two.
        let large = try envelope.seal(SyncFixture.password(secret: String(repeating: "z", count: 3000)), version: 1)
        #expect(large.ciphertext.count == 4096 + 28)
    }

    @Test(arguments: [(1, 256), (252, 256), (256, 256), (257, 512), (65_536, 65_536), (65_537, 131_072)])
    func paddingBuckets(count: Int, bucket: Int) {
        #expect(RecordPadding.bucket(for: count) == bucket)
    }

    @Test func refusalsBecomeKeychainErrorsThatSayWhatToDo() throws {
        let envelope = try SyncFixture.envelope()
        var row = try envelope.seal(SyncFixture.password(), version: 1)
        row.isTombstone = true
        let error = try #require(throws: KeychainError.self) { try envelope.open(row) }
        #expect(error.code == .decode)
        #expect(error.message.contains("integrity check"))
        #expect(!error.message.contains("alice"))
        row.isTombstone = false
        let rolledBack = try #require(throws: KeychainError.self) { try envelope.open(row, knownVersion: 5) }
        #expect(rolledBack.message.contains("rollback"))
    }
}
