import Foundation
import GRDB
import LatchkeyCrypto
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// A format 1 keychain (no row ledger, index key under the `latchkey/v1/index` context) is read as it is,
/// gains its ledger at its first writable unlock, and from then on cannot be passed off as format 1 again.
@Suite(.serialized)
struct LedgerUpgradeTests {
    /// Turns a fresh keychain into the format 1 layout: index key rewrapped under the v1 context (both
    /// copies), no ledger seal, `meta.format = 1`.
    static func downgradeToFormat1(_ keychain: TemporaryKeychain, _ store: KeychainStore) throws {
        let snapshot = store.keys.snapshot()
        let master = try #require(snapshot.master)
        let index = try #require(snapshot.indexKey)
        let device = try #require(store.keys.device)
        let fileID = store.keys.fileID
        try store.close()
        try TamperingTests.raw(keychain) { db in
            let byMaster = try KeyWrap.wrap(
                index,
                with: KeyHierarchy.indexKEK(master: master, fileID: fileID),
                context: KeyHierarchy.indexContext(fileID: fileID, ledger: false)
            )
            let byDevice = try KeyWrap.wrap(
                index,
                with: KeyHierarchy.indexKEK(device: device, fileID: fileID),
                context: KeyHierarchy.indexContext(fileID: fileID, ledger: false)
            )
            try db.execute(sql: "UPDATE meta SET value = ? WHERE name = 'index.bymaster'", arguments: [byMaster])
            try db.execute(sql: "UPDATE meta SET value = ? WHERE name = 'index.bydevice'", arguments: [byDevice])
            try db.execute(sql: "UPDATE changes SET ledger = NULL")
            try db.execute(sql: "UPDATE meta SET value = CAST('1' AS BLOB) WHERE name = 'format'")
        }
    }

    static func format(_ keychain: TemporaryKeychain) throws -> String? {
        try TamperingTests.raw(keychain) { db in
            try Data.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'format'").map {
                String(decoding: $0, as: UTF8.self)
            }
        }
    }

    @Test func aFormat1KeychainIsReadThenUpgradedAtItsFirstWritableUnlock() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.account: .string("old"), .accessible: .string("dk")],
            data: SecretData(string: "kept")
        )
        try Self.downgradeToFormat1(keychain, store)
        #expect(try Self.format(keychain) == "1")

        // Read-only, with the device secret alone: format 1 is read as it is, and left unchanged.
        let reader = try keychain.open(credentials: [], readOnly: true)
        #expect(!reader.keys.snapshot().ledgerRequired)
        let old = ItemQuery(.genericPassword, attributes: [.account: .string("old")])
        #expect(try reader.findOne(old, withData: true).data?.utf8String == "kept")
        try reader.close()
        #expect(try Self.format(keychain) == "1")

        // The first writable unlock adds the ledger over the rows as they are.
        let upgraded = try keychain.open()
        #expect(upgraded.keys.snapshot().ledgerRequired)
        #expect(try Self.format(keychain) == "2")
        let report = try upgraded.ledgerReport()
        #expect(report.enabled && report.isSound && report.rows == 1 && report.generation == 1)
        #expect(try upgraded.findOne(old, withData: true).data?.utf8String == "kept")
        try upgraded.close()

        // Deleting the ledger and writing format 1 back does not turn the check off: the index key's
        // wrapping says format 2.
        try TamperingTests.raw(keychain) { db in
            try db.execute(sql: "UPDATE changes SET ledger = NULL")
            try db.execute(sql: "UPDATE meta SET value = CAST('1' AS BLOB) WHERE name = 'format'")
        }
        let stripped = try keychain.open()
        #expect(stripped.keys.snapshot().ledgerRequired)
        expectKeychainError(.decode) { try stripped.findOne(old, withData: true) }
    }

    @Test func aHandleOpenedBeforeAnotherUpgradedTheFileKeepsTheLedgerInItsWrites() throws {
        let keychain = TemporaryKeychain()
        try Self.downgradeToFormat1(keychain, try keychain.open())
        // Opened on the device secret alone while the file is format 1: it cannot upgrade it itself.
        let early = try keychain.open(credentials: [])
        #expect(!early.keys.snapshot().ledgerRequired)
        let upgrader = try keychain.open()
        #expect(try Self.format(keychain) == "2")
        try early.add(
            .genericPassword,
            attributes: [.account: .string("late"), .accessible: .string("dk")],
            data: SecretData(string: "written by the early handle")
        )
        #expect(early.keys.snapshot().ledgerRequired)
        #expect(try upgrader.ledgerReport().isSound)
        let late = ItemQuery(.genericPassword, attributes: [.account: .string("late")])
        #expect(try upgrader.findOne(late, withData: true).data?.utf8String == "written by the early handle")
    }

    @Test func aNewKeychainStartsWithAnEmptyLedgerAndEveryWriteBumpsItsGeneration() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        #expect(try Self.format(keychain) == "2")
        var report = try store.ledgerReport()
        #expect(report.enabled && report.generation == 0 && report.rows == 0)
        let query = ItemQuery(.genericPassword, attributes: [.account: .string("a")])
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "1"))
        try store.update(query, with: ItemChanges(data: SecretData(string: "2")))
        _ = try store.delete(query)
        report = try store.ledgerReport()
        #expect(report.generation == 3 && report.rows == 0 && report.isSound)
    }
}
