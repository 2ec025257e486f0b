import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Stored blobs exchanged between two rows with the `sqlite3` shell, within a table, across tables and across
/// keychain files: both items fail with errSecDecode and are named, neither ever reads as the other, and the
/// items not touched still read (*TamperingTests* covers a blob copied one way and flipped bits).
struct SwappedBlobTests {
    /// A row's id, persistent id (hex) and the hex of the given columns, read with the `sqlite3` shell.
    static func row(
        _ database: String,
        table: String,
        persistref: Data,
        columns: [String]
    ) throws -> (id: String, persistref: String, blobs: [String]) {
        let selected = (["id", "hex(persistref)"] + columns.map { "hex(\($0))" }).joined(separator: ", ")
        let hex = persistref.map { String(format: "%02X", $0) }.joined()
        let output = try SQLiteShell.run(
            database,
            "SELECT \(selected) FROM \(table) WHERE persistref = X'\(hex)'"
        )
        let fields = output.trimmingCharacters(in: .newlines).split(separator: "|", omittingEmptySubsequences: false)
            .map(String.init)
        try #require(fields.count == columns.count + 2, "\(table) row \(hex): \(output)")
        return (fields[0], fields[1], Array(fields.dropFirst(2)))
    }

    /// The SQL that writes `blobs` (hex) into `columns` of row `id`.
    static func assignment(table: String, id: String, columns: [String], blobs: [String]) -> String {
        let sets = zip(columns, blobs).map { "\($0) = X'\($1)'" }.joined(separator: ", ")
        return "UPDATE \(table) SET \(sets) WHERE id = \(id);"
    }

    static func decodeFails(_ body: () throws(KeychainError) -> some Any) -> Bool {
        switch Result(catching: body) {
        case .success: false
        case .failure(let error): error.code == .decode
        }
    }

    @Test(arguments: [["attrs"], ["secret"], ["itemkey"], ["itemkey", "attrs", "secret"]])
    func blobsSwappedBetweenTwoRowsFailBothItemsAndNeverReadAsTheOther(columns: [String]) throws {
        let (keychain, persistrefs) = try TamperingTests.threeItems()
        let alice = try Self.row(
            keychain.path,
            table: "genp",
            persistref: #require(persistrefs["alice"]),
            columns: columns
        )
        let bob = try Self.row(keychain.path, table: "genp", persistref: #require(persistrefs["bob"]), columns: columns)
        _ = try SQLiteShell.run(
            keychain.path,
            "BEGIN; "
                + Self.assignment(table: "genp", id: alice.id, columns: columns, blobs: bob.blobs)
                + Self.assignment(table: "genp", id: bob.id, columns: columns, blobs: alice.blobs) + " COMMIT;"
        )

        let store = try keychain.open()
        for account in ["alice", "bob"] {
            expectKeychainError(.decode, "\(account)") {
                try store.findOne(TamperingTests.query(account), withData: true)
            }
            if columns == ["secret"] {
                // Its own attributes still read; only the secret is refused.
                let attributes = try store.findOne(TamperingTests.query(account), withData: false).attributes
                #expect(attributes[.label] == .string("label-\(account)"))
            } else {
                expectKeychainError(.decode, "\(account)") {
                    try store.findOne(TamperingTests.query(account), withData: false)
                }
            }
        }
        // The untouched item still reads; a search over every item skips the two or is refused, never
        // returning either under the other's name.
        #expect(
            try store.findOne(TamperingTests.query("carol"), withData: true).data == SecretData(string: "secret-carol")
        )
        Self.expectSearchReturnsOnly(["carol": "secret-carol"], store)
        let named = Set(
            try [alice.persistref, bob.persistref].map { Data("genp".utf8) + (try #require(Self.bytes(hex: $0))) }
        )
        Self.expectReported(named, store)
        try store.close()

        // The command line refuses both with -26275, prints nothing, and names both in a backup.
        let environment = CLIRunner.environment(keychain)
        for account in ["alice", "bob"] {
            let found = try CLIRunner.latchkey(
                ["find-generic-password", "-s", "tamper", "-a", account, "-w"],
                environment: environment
            )
            #expect(found.status == 1 && found.stderr.contains("-26275"), "\(account): \(found.stderr)")
            #expect(found.stdout.isEmpty, "\(account): \(found.stdout)")
        }
        let dumped = try CLIRunner.latchkey(["dump-keychain", "-d", "--skip-damaged"], environment: environment)
        #expect(dumped.status == 65, "\(dumped.stderr)")
        #expect(dumped.stdout.contains("secret-carol"))
        #expect(!dumped.stdout.contains("secret-alice") && !dumped.stdout.contains("secret-bob"), "\(dumped.stdout)")
        for reference in [alice.persistref, bob.persistref] {
            #expect(dumped.stderr.contains("67656e70" + reference.lowercased()), "\(dumped.stderr)")
        }
    }

    /// Expects a search over every generic password to return exactly `expected` (account → secret), or to
    /// be refused with errSecDecode.
    static func expectSearchReturnsOnly(
        _ expected: [String: String],
        _ store: KeychainStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let search = Result { () throws(KeychainError) in
            try store.find(ItemQuery(.genericPassword), limit: .all, withData: true)
        }
        switch search {
        case .success(let found):
            var secrets: [String: String] = [:]
            for item in found { secrets[item.attributes[.account]?.stringValue ?? ""] = item.data?.utf8String ?? "" }
            #expect(secrets == expected, sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == .decode, "\(error.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    /// Expects the integrity check to find the keychain unsound, naming no item but `tampered` (or to fail
    /// with errSecDecode).
    static func expectReported(
        _ tampered: Set<Data>,
        _ store: KeychainStore,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch Result(catching: { () throws(KeychainError) in try store.verifyIntegrity() }) {
        case .success(let report):
            #expect(!report.isSound, sourceLocation: sourceLocation)
            #expect(report.sqlite == ["ok"], sourceLocation: sourceLocation)
            #expect(Set(report.undecryptable).isSubset(of: tampered), sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(error.code == .decode, "\(error.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    /// The bytes of a hex string; `nil` when it is not hex.
    static func bytes(hex: String) -> Data? {
        var bytes = Data()
        var characters = hex.makeIterator()
        while let high = characters.next() {
            guard let low = characters.next(), let byte = UInt8(String([high, low]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    @Test func blobsSwappedBetweenAGenericAndAnInternetPasswordFailBoth() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let generic = try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("gen")],
            data: SecretData(string: "secret-generic")
        )
        let internet = try store.add(
            .internetPassword,
            attributes: [.server: .string("example.com"), .account: .string("net")],
            data: SecretData(string: "secret-internet")
        )
        _ = try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("kept")],
            data: SecretData(string: "secret-kept")
        )
        try store.close()
        let columns = ["itemkey", "attrs", "secret"]
        let genericRow = try Self.row(
            keychain.path,
            table: "genp",
            persistref: generic.persistentReference.suffix(16),
            columns: columns
        )
        let internetRow = try Self.row(
            keychain.path,
            table: "inet",
            persistref: internet.persistentReference.suffix(16),
            columns: columns
        )
        _ = try SQLiteShell.run(
            keychain.path,
            "BEGIN; "
                + Self.assignment(table: "genp", id: genericRow.id, columns: columns, blobs: internetRow.blobs)
                + Self.assignment(table: "inet", id: internetRow.id, columns: columns, blobs: genericRow.blobs)
                + " COMMIT;"
        )

        let reopened = try keychain.open()
        #expect(Self.decodeFails { () throws(KeychainError) in try reopened.findOne(ItemQuery(.internetPassword)) })
        #expect(
            Self.decodeFails { () throws(KeychainError) in
                try reopened.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("gen")]))
            }
        )
        #expect(
            try reopened.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("kept")]), withData: true)
                .data == SecretData(string: "secret-kept")
        )
        Self.expectSearchReturnsOnly(["kept": "secret-kept"], reopened)
        Self.expectReported(
            [
                Data("genp".utf8) + generic.persistentReference.suffix(16),
                Data("inet".utf8) + internet.persistentReference.suffix(16),
            ],
            reopened
        )
    }

    /// A whole row (persistent id and blobs) copied from another keychain, even one with the same passphrase,
    /// does not open: its item key is wrapped under the other file's class key.
    @Test func aRowCopiedFromAnotherKeychainFileFails() throws {
        let (keychain, persistrefs) = try TamperingTests.threeItems()
        let other = TemporaryKeychain()
        let otherStore = try other.open()
        let copied = try otherStore.add(
            .genericPassword,
            attributes: [.account: .string("bob"), .service: .string("tamper"), .label: .string("label-bob")],
            data: SecretData(string: "secret-from-another-file")
        )
        try otherStore.close()
        let columns = ["persistref", "itemkey", "attrs", "secret"]
        let source = try Self.row(
            other.path,
            table: "genp",
            persistref: copied.persistentReference.suffix(16),
            columns: columns
        )
        let target = try Self.row(keychain.path, table: "genp", persistref: #require(persistrefs["bob"]), columns: [])
        _ = try SQLiteShell.run(
            keychain.path,
            Self.assignment(table: "genp", id: target.id, columns: columns, blobs: source.blobs)
        )

        let store = try keychain.open()
        expectKeychainError(.decode) { try store.findOne(TamperingTests.query("bob"), withData: true) }
        for account in ["alice", "carol"] {
            #expect(
                try store.findOne(TamperingTests.query(account), withData: true).data
                    == SecretData(string: "secret-\(account)")
            )
        }
        Self.expectSearchReturnsOnly(["alice": "secret-alice", "carol": "secret-carol"], store)
        Self.expectReported([Data("genp".utf8) + copied.persistentReference.suffix(16)], store)
    }
}
