import Foundation
import GRDB
import LatchkeyStorage
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Migration v4 (issue 25, item 5): the composite primary-key indexes (`genp(acct, svce)`, `inet(srvr, acct)`,
/// `cert(issr, slnr)`) replace the indexes on their leading columns; a file of the format before them is read
/// as it is and gains them at its first writable open, its items, ledger and format unchanged.
@Suite(.serialized)
struct CompositeIndexUpgradeTests {
    /// The item indexes SQLite lists for the file (automatic indexes of UNIQUE columns left out), sorted.
    static func itemIndexes(_ keychain: TemporaryKeychain) throws -> [String] {
        try TamperingTests.raw(keychain) { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('genp', 'inet', 'cert', 'keys')
                    AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name
                    """
            )
        }
    }

    /// The indexes of a file of the format before migration v4 (schema v3).
    static let version3Indexes = [
        "cert_issr", "cert_pkhh", "cert_subj", "genp_acct", "genp_gena", "genp_svce", "inet_acct", "inet_srvr",
        "keys_atag", "keys_klbl", "keys_labl",
    ]

    /// The indexes after migration v4.
    static let version4Indexes = [
        "cert_issr_slnr", "cert_pkhh", "cert_subj", "genp_acct_svce", "genp_gena", "genp_svce", "inet_acct",
        "inet_srvr_acct", "keys_atag", "keys_klbl", "keys_labl",
    ]

    /// Turns a closed keychain's file into the schema v3 layout: the v1 indexes on the leading columns in
    /// place of the composite ones, and migration v4 not recorded (what a build of that format wrote).
    static func downgradeToVersion3(_ keychain: TemporaryKeychain) throws {
        try TamperingTests.raw(keychain) { db in
            for (table, leading, trailing) in [
                ("genp", "acct", "svce"), ("inet", "srvr", "acct"), ("cert", "issr", "slnr"),
            ] {
                try db.execute(sql: "DROP INDEX \(table)_\(leading)_\(trailing)")
                try db.execute(sql: "CREATE INDEX \(table)_\(leading) ON \(table)(\(leading))")
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4'")
        }
    }

    /// Items sharing one account under several services (the case the composite index is for), items of
    /// their own accounts under one service, and an internet password.
    static func fill(_ store: KeychainStore) throws {
        var items: [NewItem] = []
        for index in 0..<40 {
            items.append(
                NewItem(
                    .genericPassword,
                    attributes: [.account: .string("shared"), .service: .string("service-\(index)")],
                    data: SecretData(string: "secret-\(index)")
                )
            )
            items.append(
                NewItem(
                    .genericPassword,
                    attributes: [.account: .string("user-\(index)"), .service: .string("mail")],
                    data: SecretData(string: "mail-\(index)")
                )
            )
        }
        _ = try store.perform(.addAll(items, tolerateExisting: false))
        try store.add(
            .internetPassword,
            attributes: [.server: .string("example.org"), .account: .string("shared")],
            data: SecretData(string: "web")
        )
    }

    /// The secret of the generic password with `account` and `service`.
    static func secret(_ store: KeychainStore, account: String, service: String) throws -> SecretData? {
        let query = ItemQuery(.genericPassword, attributes: [.account: .string(account), .service: .string(service)])
        return try store.findOne(query, withData: true).data
    }

    /// SQLite's plan for the find of the generic password with `account` and `service`.
    static func findPlan(_ store: KeychainStore, account: String, service: String) throws -> [String] {
        let query = ItemQuery(.genericPassword, attributes: [.account: .string(account), .service: .string(service)])
        let plan = try store.plan(query)
        let filter = try store.rowFilter(plan, tokens: try store.tokenCache(store.keys.snapshot()), limit: 1)
        return try store.storage.read { try $0.queryPlan(from: .genp, where: filter, includeSecret: true) }
    }

    @Test func aNewKeychainFindsByAccountAndServiceInOneDescentOfTheCompositeIndex() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try Self.fill(store)
        #expect(try Self.itemIndexes(keychain) == Self.version4Indexes)
        let steps = try Self.findPlan(store, account: "shared", service: "service-7")
        #expect(steps.contains { $0.contains("USING INDEX genp_acct_svce (acct=? AND svce=?)") }, "\(steps)")
        #expect(try Self.secret(store, account: "shared", service: "service-7") == SecretData(string: "secret-7"))
        #expect(try Self.secret(store, account: "user-7", service: "mail") == SecretData(string: "mail-7"))
        #expect(try store.findAll(ItemQuery(.genericPassword, attributes: [.account: .string("shared")])).count == 40)
        #expect(try store.findAll(ItemQuery(.genericPassword, attributes: [.service: .string("mail")])).count == 40)
        let web = ItemQuery(
            .internetPassword,
            attributes: [.server: .string("example.org"), .account: .string("shared")]
        )
        #expect(try store.findOne(web, withData: true).data == SecretData(string: "web"))
    }

    @Test func aVersion3FileIsReadAsItIsThenGainsTheCompositeIndexesAtItsFirstWritableOpen() throws {
        let keychain = TemporaryKeychain()
        var store = try keychain.open()
        try Self.fill(store)
        try store.close()
        try Self.downgradeToVersion3(keychain)
        #expect(try Self.itemIndexes(keychain) == Self.version3Indexes)

        // Read-only: nothing is migrated, and searches use the leading column's index as before.
        let reader = try keychain.open(readOnly: true)
        #expect(try Self.secret(reader, account: "shared", service: "service-3") == SecretData(string: "secret-3"))
        #expect(try Self.secret(reader, account: "user-3", service: "mail") == SecretData(string: "mail-3"))
        let oldSteps = try Self.findPlan(reader, account: "shared", service: "service-3")
        #expect(oldSteps.contains { $0.contains("USING INDEX genp_acct (acct=?)") }, "\(oldSteps)")
        try reader.close()
        #expect(try Self.itemIndexes(keychain) == Self.version3Indexes)

        // The first writable open migrates: composite indexes, the same items, ledger and format.
        store = try keychain.open()
        #expect(try Self.itemIndexes(keychain) == Self.version4Indexes)
        let steps = try Self.findPlan(store, account: "shared", service: "service-3")
        #expect(steps.contains { $0.contains("USING INDEX genp_acct_svce (acct=? AND svce=?)") }, "\(steps)")
        for index in [0, 3, 39] {
            #expect(
                try Self.secret(store, account: "shared", service: "service-\(index)")
                    == SecretData(string: "secret-\(index)")
            )
            #expect(
                try Self.secret(store, account: "user-\(index)", service: "mail") == SecretData(string: "mail-\(index)")
            )
        }
        #expect(try store.verifyIntegrity().isSound)
        #expect(try LedgerUpgradeTests.format(keychain) == "2", "an index is not a format change")

        // Writes go on through the new indexes: a duplicate is still refused, an update and a delete land.
        #expect(throws: KeychainError.self) {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("shared"), .service: .string("service-5")],
                data: nil
            )
        }
        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("shared"), .service: .string("service-5")]),
            with: ItemChanges(data: SecretData(string: "changed"))
        )
        #expect(try Self.secret(store, account: "shared", service: "service-5") == SecretData(string: "changed"))
        try store.delete(
            ItemQuery(.genericPassword, attributes: [.account: .string("shared"), .service: .string("service-6")])
        )
        #expect(try store.findAll(ItemQuery(.genericPassword, attributes: [.account: .string("shared")])).count == 39)
        #expect(try store.verifyIntegrity().isSound)
        try store.close()
    }
}
