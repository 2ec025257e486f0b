import Crypto
import Foundation
import GRDB
import Latchkey
import LatchkeyTesting
import Testing

/// Damaged or tampered bytes are detected, reported with a clear error and never crash; one bad item
/// does not hide the others.
struct TamperingTests {
    static let accounts = ["alice", "bob", "carol"]

    /// A closed keychain holding three generic passwords, and their persistent ids (row `persistref`).
    static func threeItems() throws -> (keychain: TemporaryKeychain, persistrefs: [String: Data]) {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        var persistrefs: [String: Data] = [:]
        for account in accounts {
            let added = try store.add(
                .genericPassword,
                attributes: [
                    .account: .string(account), .service: .string("tamper"), .label: .string("label-\(account)"),
                ],
                data: SecretData(string: "secret-\(account)")
            )
            persistrefs[account] = added.persistentReference.suffix(16)
        }
        try store.close()
        return (keychain, persistrefs)
    }

    /// Runs `body` on the raw SQLite file, outside Latchkey.
    static func raw<T>(_ keychain: TemporaryKeychain, _ body: (Database) throws -> T) throws -> T {
        let queue = try DatabaseQueue(path: keychain.path)
        defer { try? queue.close() }
        return try queue.write(body)
    }

    static func flipByte(in column: String, table: String = "genp", persistref: Data, keychain: TemporaryKeychain)
        throws
    {
        try raw(keychain) { db in
            var blob = try #require(
                try Data.fetchOne(
                    db,
                    sql: "SELECT \(column) FROM \(table) WHERE persistref = ?",
                    arguments: [persistref]
                )
            )
            blob[blob.startIndex + blob.count / 2] ^= 0x20
            try db.execute(
                sql: "UPDATE \(table) SET \(column) = ? WHERE persistref = ?",
                arguments: [blob, persistref]
            )
            #expect(db.changesCount == 1)
        }
    }

    static func query(_ account: String) -> ItemQuery {
        ItemQuery(.genericPassword, attributes: [.account: .string(account)])
    }

    @Test(arguments: ["attrs", "secret", "itemkey", "pk"])
    func flippedByteMakesTheItemUnreadableButNotTheOthers(column: String) throws {
        let (keychain, persistrefs) = try Self.threeItems()
        try Self.flipByte(in: column, persistref: try #require(persistrefs["bob"]), keychain: keychain)
        let store = try keychain.open()

        // A direct read of the damaged item fails with errSecDecode.
        let error = #expect(throws: KeychainError.self) { try store.findOne(Self.query("bob"), withData: true) }
        #expect(error?.code == .decode)
        #expect(error?.code.rawValue == -26275)
        #expect(error?.message.contains("bob") == false, "messages never contain attribute values")

        // A search over every item skips it and returns the other two, in order.
        let all = try store.find(ItemQuery(.genericPassword), limit: .all, withData: true)
        #expect(all.map { $0.attributes[.account] } == [.string("alice"), .string("carol")])
        #expect(all.map(\.data) == [SecretData(string: "secret-alice"), SecretData(string: "secret-carol")])

        // The neighbours still read directly.
        #expect(try store.findOne(Self.query("alice"), withData: true).data == SecretData(string: "secret-alice"))
        #expect(try store.findOne(Self.query("carol"), withData: true).data == SecretData(string: "secret-carol"))

        // The integrity check names the damaged item.
        let report = try store.verifyIntegrity()
        #expect(!report.isSound)
        #expect(report.sqlite == ["ok"])
        #expect(report.verified == 2)
        #expect(report.undecryptable == [Data("genp".utf8) + (persistrefs["bob"] ?? Data())])
    }

    @Test func flippedSecretStillLetsTheAttributesBeRead() throws {
        let (keychain, persistrefs) = try Self.threeItems()
        try Self.flipByte(in: "secret", persistref: try #require(persistrefs["bob"]), keychain: keychain)
        let store = try keychain.open()
        let attributesOnly = try store.findOne(Self.query("bob"), withData: false)
        #expect(attributesOnly.attributes[.label] == .string("label-bob"))
        expectKeychainError(.decode) { try store.findOne(Self.query("bob"), withData: true) }
    }

    @Test func searchForOneSkipsADamagedFirstItem() throws {
        let (keychain, persistrefs) = try Self.threeItems()
        try Self.flipByte(in: "attrs", persistref: try #require(persistrefs["alice"]), keychain: keychain)
        let store = try keychain.open()
        let first = try store.findOne(ItemQuery(.genericPassword), withData: true)
        #expect(first.attributes[.account] == .string("bob"))
        let firstTwo = try store.find(ItemQuery(.genericPassword), limit: .count(2))
        #expect(firstTwo.map { $0.attributes[.account] } == [.string("bob"), .string("carol")])
    }

    /// docs/apple-semantics.md §3.10: an add whose primary key belongs to a corrupt row replaces that row.
    @Test func addingOverADamagedItemReplacesIt() throws {
        let (keychain, persistrefs) = try Self.threeItems()
        try Self.flipByte(in: "attrs", persistref: try #require(persistrefs["bob"]), keychain: keychain)
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.account: .string("bob"), .service: .string("tamper")],
            data: SecretData(string: "fresh")
        )
        #expect(try store.findOne(Self.query("bob"), withData: true).data == SecretData(string: "fresh"))
        let report = try store.verifyIntegrity()
        #expect(report.isSound)
        #expect(report.verified == 3)
    }

    /// Every filter is checked again on the decrypted values, and the row ledger covers the search tokens:
    /// swapping two rows' tokens can hide items, never return the wrong one.
    @Test func swappedSearchTokensNeverReturnTheWrongItem() throws {
        let (keychain, persistrefs) = try Self.threeItems()
        let alice = try #require(persistrefs["alice"])
        let bob = try #require(persistrefs["bob"])
        try Self.raw(keychain) { db in
            let aliceToken = try Data.fetchOne(
                db,
                sql: "SELECT acct FROM genp WHERE persistref = ?",
                arguments: [alice]
            )
            let bobToken = try Data.fetchOne(db, sql: "SELECT acct FROM genp WHERE persistref = ?", arguments: [bob])
            try db.execute(sql: "UPDATE genp SET acct = ? WHERE persistref = ?", arguments: [bobToken, alice])
            try db.execute(sql: "UPDATE genp SET acct = ? WHERE persistref = ?", arguments: [aliceToken, bob])
        }
        let store = try keychain.open()
        for account in ["alice", "bob"] {
            // Hidden by the damaged index (itemNotFound) is acceptable; the wrong item is not.
            let result = Result { () throws(KeychainError) in
                try store.find(Self.query(account), limit: .all, withData: true)
            }
            switch result {
            case .success(let found):
                #expect(found.allSatisfy { $0.attributes[.account] == .string(account) })
                #expect(found.allSatisfy { $0.data == SecretData(string: "secret-\(account)") })
            case .failure(let error):
                // Refused as not what the keychain stored (row ledger, format 2) or hidden.
                #expect(error.code == .decode || error.code == .itemNotFound)
            }
        }
        // The items' ciphertexts are intact; the row ledger names both rows as changed outside Latchkey.
        let report = try store.verifyIntegrity()
        #expect(report.undecryptable.isEmpty)
        let named: Set<Data> = Set(report.ledger?.mismatched ?? [])
        let swapped: Set<Data> = [Data("genp".utf8) + alice, Data("genp".utf8) + bob]
        #expect(named.isSuperset(of: swapped))
    }

    @Test func aSoundKeychainVerifiesEveryItem() throws {
        let (keychain, _) = try Self.threeItems()
        let store = try keychain.open()
        let report = try store.verifyIntegrity()
        #expect(report.isSound)
        #expect(report.verified == 3)
        #expect(report.undecryptable.isEmpty)
        #expect(report.locked == 0)
    }

    /// Moving a ciphertext from one row to another is detected: every blob is bound to its row.
    @Test(arguments: [["attrs"], ["secret"], ["itemkey"], ["itemkey", "attrs", "secret"]])
    func ciphertextMovedToAnotherRowIsDetected(columns: [String]) throws {
        let (keychain, persistrefs) = try Self.threeItems()
        let alice = try #require(persistrefs["alice"])
        let bob = try #require(persistrefs["bob"])
        try Self.raw(keychain) { db in
            for column in columns {
                let blob = try Data.fetchOne(
                    db,
                    sql: "SELECT \(column) FROM genp WHERE persistref = ?",
                    arguments: [alice]
                )
                try db.execute(sql: "UPDATE genp SET \(column) = ? WHERE persistref = ?", arguments: [blob, bob])
            }
        }
        let store = try keychain.open()
        expectKeychainError(.decode) { try store.findOne(Self.query("bob"), withData: true) }
        // Bob's row must never read back as alice's item.
        let all = try store.find(ItemQuery(.genericPassword), limit: .all, withData: true)
        #expect(all.map { $0.attributes[.account] } == [.string("alice"), .string("carol")])
        #expect(try store.verifyIntegrity().undecryptable.count == 1)
    }

    /// Swapping the accessibility token of a row (e.g. to make an `ak` item look like `dk`) is detected.
    @Test func changedAccessibilityColumnIsDetected() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let locked = try store.add(
            .genericPassword,
            attributes: [.account: .string("ak-item"), .accessible: .string("ak")],
            data: SecretData(string: "a")
        )
        let always = try store.add(
            .genericPassword,
            attributes: [.account: .string("dk-item"), .accessible: .string("dk")],
            data: SecretData(string: "d")
        )
        try store.close()
        try Self.raw(keychain) { db in
            let dkToken = try Data.fetchOne(
                db,
                sql: "SELECT kc FROM genp WHERE persistref = ?",
                arguments: [always.persistentReference.suffix(16)]
            )
            try db.execute(
                sql: "UPDATE genp SET kc = ? WHERE persistref = ?",
                arguments: [dkToken, locked.persistentReference.suffix(16)]
            )
        }
        let reopened = try keychain.open()
        expectKeychainError(.decode) {
            try reopened.findOne(
                ItemQuery(.genericPassword, attributes: [.account: .string("ak-item")]),
                withData: true
            )
        }
        #expect(
            try reopened.findOne(
                ItemQuery(.genericPassword, attributes: [.account: .string("dk-item")]),
                withData: true
            ).data == SecretData(string: "d")
        )
    }

    // MARK: - Unlock slots

    static func passphraseSlotColumn(_ column: String, _ keychain: TemporaryKeychain, _ change: (inout Data) -> Void)
        throws
    {
        try raw(keychain) { db in
            var blob = try #require(try Data.fetchOne(db, sql: "SELECT \(column) FROM slots WHERE kind = 'passphrase'"))
            change(&blob)
            try db.execute(sql: "UPDATE slots SET \(column) = ? WHERE kind = 'passphrase'", arguments: [blob])
        }
    }

    @Test(arguments: ["wrapped", "parameters", "checksum"])
    func damagedPassphraseSlotGivesSlotDamagedNotACrash(column: String) throws {
        let (keychain, _) = try Self.threeItems()
        try Self.passphraseSlotColumn(column, keychain) { $0[$0.startIndex + 3] ^= 0x01 }
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.code == .decode)
        #expect(error?.message.contains("damaged") == true, "\(String(describing: error))")
    }

    /// A slot whose checksum was recomputed over hostile KDF parameters (log2 N = 40) is refused before
    /// any key derivation runs.
    @Test func hostileKDFParametersWithAValidChecksumAreRefusedQuickly() throws {
        let (keychain, _) = try Self.threeItems()
        try Self.raw(keychain) { db in
            let row = try #require(
                try Row.fetchOne(db, sql: "SELECT parameters, wrapped FROM slots WHERE kind = 'passphrase'")
            )
            var parameters: Data = row["parameters"]
            let wrapped: Data = row["wrapped"]
            parameters[parameters.startIndex] = 40
            var hasher = SHA256()
            hasher.update(data: Data("passphrase".utf8))
            hasher.update(data: [0])
            hasher.update(data: parameters)
            hasher.update(data: wrapped)
            let checksum = Data(hasher.finalize())
            try db.execute(
                sql: "UPDATE slots SET parameters = ?, checksum = ? WHERE kind = 'passphrase'",
                arguments: [parameters, checksum]
            )
        }
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(clock.now - start < .seconds(10))
        #expect(error?.code == .decode)
        #expect(error?.message.contains("damaged") == true)
    }

    @Test func damagedPassphraseSlotLeavesTheKeyFileSlotUsable() throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        let store = try keychain.open(credentials: [.passphrase(keychain.passphrase), keyFile])
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "s"))
        try store.close()
        try Self.passphraseSlotColumn("wrapped", keychain) { $0[$0.startIndex] ^= 0xFF }
        expectKeychainError(.decode) { try keychain.open() }
        let reopened = try keychain.open(credentials: [keyFile])
        #expect(try reopened.findOne(Self.query("a"), withData: true).data == SecretData(string: "s"))
    }

    // MARK: - Files that are not keychains

    static func writePrivateFile(_ path: String, _ contents: Data) {
        _ = FileManager.default.createFile(atPath: path, contents: contents, attributes: [.posixPermissions: 0o600])
    }

    @Test func emptyFileIsRefusedWithDecodeNamingTheProblem() throws {
        let keychain = TemporaryKeychain()
        Self.writePrivateFile(keychain.path, Data())
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.code == .decode)
        #expect(error?.message.contains("empty") == true, "\(String(describing: error))")
        #expect(error?.message.contains(keychain.path) == true)
    }

    @Test func randomBytesAreRefusedWithDecodeNamingTheProblem() throws {
        let keychain = TemporaryKeychain()
        var bytes = Data((0..<16_384).map { _ in UInt8.random(in: 0...255) })
        bytes[0] = 0
        Self.writePrivateFile(keychain.path, bytes)
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.code == .decode)
        #expect(error?.message.contains("not an SQLite database") == true, "\(String(describing: error))")
        // The file is left as it was: nothing overwrote the user's data.
        #expect(FileManager.default.contents(atPath: keychain.path) == bytes)
    }

    @Test func anotherSQLiteDatabaseIsRefusedWithDecodeNamingTheProblem() throws {
        let keychain = TemporaryKeychain()
        let queue = try DatabaseQueue(path: keychain.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE contacts (name TEXT)")
            try db.execute(sql: "INSERT INTO contacts VALUES ('x')")
        }
        try queue.close()
        chmod(keychain.path, 0o600)
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.code == .decode)
        #expect(error?.message.contains("not a Latchkey keychain") == true, "\(String(describing: error))")
        // The foreign database is untouched.
        let check = try DatabaseQueue(path: keychain.path)
        #expect(try check.read { try String.fetchAll($0, sql: "SELECT name FROM contacts") } == ["x"])
        try check.close()
    }

    @Test func keychainWithoutItsFileIdentifierIsRefused() throws {
        let (keychain, _) = try Self.threeItems()
        try Self.raw(keychain) { db in try db.execute(sql: "DELETE FROM meta WHERE name = 'fileid'") }
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.code == .decode)
    }
}
