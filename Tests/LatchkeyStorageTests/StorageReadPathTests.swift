import Dispatch
import Foundation
import LatchkeyStorage
import Synchronization
import Testing

/// The read path: `StorageFile.read` serves reads from a dedicated connection with prepared statements,
/// and from GRDB's pool when that connection is busy; both must see the same committed state.
struct StorageReadPathTests {
    typealias Scratch = StorageFileTests.Scratch

    /// A 16-byte token whose bytes all equal `byte`.
    static func token(_ byte: UInt8) -> Data { Data(repeating: byte, count: 16) }

    /// A generic-password row with an account token `account` and a fixed service token.
    static func row(_ number: UInt8, account: UInt8, secret: Bool = true) -> ItemRow {
        ItemRow(
            persistref: token(number),
            primaryKey: token(0x80 | number),
            tokens: [
                "kc": token(1), "agrp": token(2), "sync": token(3), "tomb": token(4), "acct": token(account),
                "svce": token(5),
            ],
            itemKey: Data(repeating: number, count: 60),
            attributes: Data(repeating: number, count: 96),
            secret: secret ? Data(repeating: number, count: 64) : nil
        )
    }

    /// The filter a find by service + account builds: two indexed columns (so the driving index is
    /// probed), group, sync and tombstone.
    static func filter(account: UInt8, limit: Int? = nil) -> RowFilter {
        RowFilter(
            conditions: [
                ("acct", [token(account)]), ("svce", [token(5)]), ("agrp", [token(2)]), ("sync", [token(3)]),
                ("tomb", [token(4)]),
            ],
            limit: limit
        )
    }

    static func keychain(_ scratch: Scratch, rows: [ItemRow]) throws -> StorageFile {
        let file = try StorageFileTests.createKeychain(at: scratch.path("k.keychain-db"))
        try file.write { writer in
            for row in rows { try writer.insert(row, into: .genp) }
        }
        return file
    }

    @Test func aFindReturnsTheRowWithEveryColumn() throws {
        let scratch = Scratch()
        let file = try Self.keychain(scratch, rows: [Self.row(1, account: 0x11), Self.row(2, account: 0x12)])
        defer { try? file.close() }
        let rows = try file.read { try $0.select(from: .genp, where: Self.filter(account: 0x12), includeSecret: true) }
        try #require(rows.count == 1)
        var expected = Self.row(2, account: 0x12)
        expected.id = rows[0].id
        #expect(rows[0] == expected)
        #expect(rows[0].tokens["acct"] == Self.token(0x12))
        #expect(rows[0].tokens["gena"] == nil)
        let withoutSecret = try file.read {
            try $0.select(from: .genp, where: Self.filter(account: 0x12), includeSecret: false)
        }
        #expect(withoutSecret.map(\.secret) == [nil])
    }

    @Test func aReadSeesEveryWriteCommittedBeforeIt() throws {
        let scratch = Scratch()
        let file = try Self.keychain(scratch, rows: [])
        defer { try? file.close() }
        for number in UInt8(1)...20 {
            try file.write { writer in
                try writer.insert(Self.row(number, account: number), into: .genp)
                try writer.bumpChangeCounter()
            }
            #expect(try file.read { try $0.changeCounter() } == Int64(number))
            let found = try file.read {
                try $0.select(from: .genp, where: Self.filter(account: number), includeSecret: true)
            }
            #expect(found.map(\.persistref) == [Self.token(number)])
        }
    }

    /// A write through another `StorageFile` (as another process would) is seen by the next read.
    @Test func aReadSeesAnotherConnectionsWrite() throws {
        let scratch = Scratch()
        let file = try Self.keychain(scratch, rows: [Self.row(1, account: 0x11)])
        defer { try? file.close() }
        #expect(try file.read { try $0.count(in: .genp) } == 1)
        let other = try StorageFile.open(path: scratch.path("k.keychain-db"))
        _ = try other.write { try $0.insert(Self.row(2, account: 0x12), into: .genp) }
        try other.close()
        #expect(try file.read { try $0.count(in: .genp) } == 2)
        let found = try file.read { try $0.select(from: .genp, where: Self.filter(account: 0x12), includeSecret: true) }
        #expect(found.count == 1)
    }

    /// A read inside a read finds the dedicated connection busy and uses the pool: same answers.
    @Test func aNestedReadUsesThePoolAndAgrees() throws {
        let scratch = Scratch()
        let rows = (UInt8(1)...8).map { Self.row($0, account: 0x10 + $0 % 3) }
        let file = try Self.keychain(scratch, rows: rows)
        defer { try? file.close() }
        for account in UInt8(0x10)...0x13 {
            let (outer, inner) = try file.read { reader in
                let outer = try reader.select(from: .genp, where: Self.filter(account: account), includeSecret: true)
                let inner = try file.read {
                    try $0.select(from: .genp, where: Self.filter(account: account), includeSecret: true)
                }
                return (outer, inner)
            }
            #expect(outer == inner)
            #expect(outer.count == rows.filter { $0.tokens["acct"] == Self.token(account) }.count)
        }
    }

    @Test(arguments: [1, 2, 5])
    func theLimitIsAppliedInInsertionOrder(limit: Int) throws {
        let scratch = Scratch()
        let file = try Self.keychain(scratch, rows: (UInt8(1)...4).map { Self.row($0, account: 0x20) })
        defer { try? file.close() }
        let found = try file.read {
            try $0.select(from: .genp, where: Self.filter(account: 0x20, limit: limit), includeSecret: false)
        }
        #expect(found.map(\.persistref) == (UInt8(1)...4).prefix(limit).map { Self.token($0) })
    }

    /// Filters whose shape does not fit the packed statement key (more than five terms, many tokens)
    /// and filters on unique keys take the other statement keys; each gives the right rows.
    @Test func everyFilterShapeFindsItsRows() throws {
        let scratch = Scratch()
        let file = try Self.keychain(scratch, rows: (UInt8(1)...6).map { Self.row($0, account: 0x30 + $0) })
        defer { try? file.close() }
        var wide = Self.filter(account: 0x33)
        wide.conditions.append(("kc", [Self.token(1)]))
        wide.conditions.append(("acct", (0..<40).map { Self.token(0x30 + $0) }))
        let manyTerms = try file.read { try $0.select(from: .genp, where: wide, includeSecret: true) }
        #expect(manyTerms.map(\.persistref) == [Self.token(3)])
        let byPersistref = try file.read {
            try $0.select(from: .genp, where: RowFilter(persistref: Self.token(5)), includeSecret: true)
        }
        #expect(byPersistref.map(\.persistref) == [Self.token(5)])
        let byPrimaryKey = try file.read {
            try $0.select(from: .genp, where: RowFilter(primaryKey: Self.token(0x84)), includeSecret: true)
        }
        #expect(byPrimaryKey.map(\.persistref) == [Self.token(4)])
        let none = try file.read {
            try $0.select(from: .genp, where: Self.filter(account: 0x7F), includeSecret: true)
        }
        #expect(none.isEmpty)
    }

    /// A find whose first indexed token (the account) is shared by many rows: the search driven by the
    /// account runs out of its instruction budget and is run again after probing; both shapes of skew
    /// give exactly the matching rows.
    @Test func aSharedAccountOrServiceStillFindsExactlyItsRow() throws {
        let scratch = Scratch()
        var rows: [ItemRow] = []
        for number in 0..<300 {
            var shared = Self.row(UInt8(truncatingIfNeeded: number), account: 0xAA)
            shared.persistref = Data([1, UInt8(number / 256), UInt8(number % 256)] + Array(repeating: 0, count: 13))
            shared.primaryKey = Data([2, UInt8(number / 256), UInt8(number % 256)] + Array(repeating: 0, count: 13))
            shared.tokens["svce"] = Data(
                [3, UInt8(number / 256), UInt8(number % 256)] + Array(repeating: 0, count: 13)
            )
            rows.append(shared)
        }
        let file = try Self.keychain(scratch, rows: rows)
        defer { try? file.close() }
        for number in [0, 150, 299] {
            var filter = Self.filter(account: 0xAA)
            filter.conditions[1] = ("svce", [rows[number].tokens["svce"] ?? Data()])
            let found = try file.read { try $0.select(from: .genp, where: filter, includeSecret: true) }
            #expect(found.map(\.persistref) == [rows[number].persistref])
        }
        var all = Self.filter(account: 0xAA)
        all.conditions[1] = ("svce", rows.compactMap { $0.tokens["svce"] })
        let every = try file.read { try $0.select(from: .genp, where: all, includeSecret: false) }
        #expect(every.count == 300)
        let limited = try file.read {
            var first = all
            first.limit = 1
            return try $0.select(from: .genp, where: first, includeSecret: false)
        }
        #expect(limited.map(\.persistref) == [rows[0].persistref])
        let missing = try file.read {
            var none = all
            none.conditions[1] = ("svce", [Self.token(0x77)])
            return try $0.select(from: .genp, where: none, includeSecret: false)
        }
        #expect(missing.isEmpty)
    }

    /// Many threads reading at once (some on the dedicated connection, the rest on the pool) while a
    /// writer adds rows: every read finds its row, none fails.
    @Test func concurrentReadersAndAWriterAgree() throws {
        let scratch = Scratch()
        let file = try Self.keychain(scratch, rows: (UInt8(1)...16).map { Self.row($0, account: $0) })
        defer { try? file.close() }
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 9) { worker in
            do {
                if worker == 0 {
                    for number in UInt8(17)...40 {
                        _ = try file.write { try $0.insert(Self.row(number, account: number), into: .genp) }
                    }
                    return
                }
                for round in 0..<200 {
                    let account = UInt8(1 + (worker * 7 + round) % 16)
                    let found = try file.read {
                        try $0.select(from: .genp, where: Self.filter(account: account), includeSecret: true)
                    }
                    if found.map(\.persistref) != [Self.token(account)] {
                        failures.withLock { $0.append("worker \(worker) round \(round): \(found.count) rows") }
                    }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try file.read { try $0.count(in: .genp) } == 40)
    }

    /// How many of this process's file descriptors refer to `path` (`/proc/self/fd`).
    static func openDescriptors(to path: String) throws -> Int {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return descriptors.filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) == path
        }.count
    }

    /// `close` closes the dedicated read connection with the pool: no descriptor to the file is left.
    @Test func closeReleasesTheReadConnection() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.keychain(scratch, rows: [Self.row(1, account: 0x11)]).close()
        #expect(try Self.openDescriptors(to: path) == 0)
        let file = try StorageFile.open(path: path)
        #expect(try file.read { try $0.count(in: .genp) } == 1)
        #expect(try Self.openDescriptors(to: path) > 0)
        try file.close()
        #expect(try Self.openDescriptors(to: path) == 0)
    }

    /// A file opened read-only is read through the same path.
    @Test func aReadOnlyFileIsRead() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.keychain(scratch, rows: [Self.row(1, account: 0x11), Self.row(2, account: 0x12)]).close()
        let file = try StorageFile.open(path: path, readOnly: true)
        defer { try? file.close() }
        #expect(file.isReadOnly)
        let found = try file.read { try $0.select(from: .genp, where: Self.filter(account: 0x12), includeSecret: true) }
        #expect(found.map(\.persistref) == [Self.token(2)])
    }
}

/// `RowTokens`: the packed token columns of a row behave as the dictionary they replace.
struct RowTokensTests {
    static let tokens: [String: Data] = [
        "kc": Data(repeating: 1, count: 16), "acct": Data(repeating: 2, count: 16), "empty": Data(),
        "long": Data(repeating: 3, count: 300),
    ]

    @Test func aDictionaryRoundTrips() {
        let row = RowTokens(Self.tokens)
        #expect(row.dictionary == Self.tokens)
        for (column, token) in Self.tokens { #expect(row[column] == token) }
        #expect(row["svce"] == nil)
        #expect(RowTokens([:]).dictionary == [:])
    }

    @Test func settingAColumnChangesOnlyIt() {
        var row = RowTokens(Self.tokens)
        row["acct"] = Data([9])
        row["svce"] = Data([8])
        row["kc"] = nil
        var expected = Self.tokens
        expected["acct"] = Data([9])
        expected["svce"] = Data([8])
        expected["kc"] = nil
        #expect(row.dictionary == expected)
        #expect(row == RowTokens(expected))
        #expect(row != RowTokens(Self.tokens))
    }
}
