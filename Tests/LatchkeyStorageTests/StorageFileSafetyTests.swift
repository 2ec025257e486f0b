import Foundation
import GRDB
import LatchkeyStorage
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What opening and creating do to files: a file that is not a keychain is left byte for byte as it was,
/// and creations killed before they finished leave nothing behind once another creation runs.
struct StorageFileSafetyTests {
    typealias Scratch = StorageFileTests.Scratch

    /// Another program's database, closed (no `-wal` or `-shm` beside it).
    static func foreignDatabase(at path: String, journalMode: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = \(journalMode)")
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO notes (body) VALUES ('hello')")
        }
        try queue.close()
        try #require(chmod(path, 0o600) == 0)
    }

    static func siblings(of path: String) throws -> [String] {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix(name) && $0 != name
        }
        .sorted()
    }

    @Test(arguments: ["DELETE", "WAL", "TRUNCATE"])
    func anotherProgramsDatabaseIsRefusedAndLeftUnchanged(journalMode: String) throws {
        let scratch = Scratch()
        let path = scratch.path("other.sqlite")
        try Self.foreignDatabase(at: path, journalMode: journalMode)
        let before = try #require(FileManager.default.contents(atPath: path))
        let neighbours = try Self.siblings(of: path)
        let expectedVersions: [UInt8] = journalMode == "WAL" ? [2, 2] : [1, 1]
        try #require(Array(before[18...19]) == expectedVersions)

        #expect(throws: StorageError.notAKeychain(path: path, reason: "no Latchkey header")) {
            try StorageFile.open(path: path)
        }
        let after = try #require(FileManager.default.contents(atPath: path))
        #expect(Array(after[18...19]) == expectedVersions, "header bytes 18–19")
        #expect(after == before, "\(journalMode): the file is byte for byte unchanged")
        #expect(try Self.siblings(of: path) == neighbours, "nothing created beside it")
    }

    @Test func aForeignDatabaseNamedAsTheTargetOfACreationIsNotTakenForAKeychain() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.foreignDatabase(at: path, journalMode: "DELETE")
        let before = try #require(FileManager.default.contents(atPath: path))
        #expect(throws: StorageError.notAKeychain(path: path, reason: "no Latchkey header")) {
            _ = try StorageFile.create(path: path) { _ in }
        }
        #expect(FileManager.default.contents(atPath: path) == before)
    }

    @Test func aKeychainSwitchedToARollbackJournalStillOpens() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try StorageFileTests.createKeychain(at: path).close()
        let queue = try DatabaseQueue(path: path)
        _ = try queue.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
        let file = try StorageFile.open(path: path)
        #expect(try file.read { try $0.meta("test.value") } == Data("hello".utf8))
        try file.close()
    }

    @Test func aKeychainWithItsWALStillOpensAndReadsItsLatestWrite() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        let writer = try StorageFileTests.createKeychain(at: path)
        try writer.write { try $0.setMeta("test.value", Data("latest".utf8)) }
        let reader = try StorageFile.open(path: path)
        #expect(try reader.read { try $0.meta("test.value") } == Data("latest".utf8))
        try reader.close()
        try writer.close()
    }

    @Test func aFileWithOnlyTheSQLiteMagicIsNotADatabaseAndIsNotWritten() throws {
        let scratch = Scratch()
        let contents = Data("SQLite format 3\u{0}".utf8)
        let path = scratch.file("short.keychain-db", contents: contents)
        #expect(throws: StorageError.notADatabase(path: path)) { try StorageFile.open(path: path) }
        #expect(FileManager.default.contents(atPath: path) == contents)
        #expect(try Self.siblings(of: path) == [])
    }

    // MARK: Abandoned creations

    /// Leaves `name` and its journal files as a creation killed while building would.
    static func abandonedCreation(_ scratch: Scratch, _ name: String) -> String {
        let path = scratch.file(name, contents: Data(repeating: 7, count: 4096))
        _ = scratch.file(name + "-wal", contents: Data(repeating: 8, count: 100))
        _ = scratch.file(name + "-shm", contents: Data(repeating: 9, count: 100))
        return path
    }

    @Test func creationRemovesTheTemporaryFilesOfDeadCreatorsAndKeepsLiveOnes() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        _ = Self.abandonedCreation(scratch, "k.keychain-db.creating-123-456")
        _ = Self.abandonedCreation(scratch, "k.keychain-db.creating-789-12")
        let live = Self.abandonedCreation(scratch, "k.keychain-db.creating-1-2")
        let liveDescriptor = open(live, O_RDONLY | O_CLOEXEC)
        try #require(liveDescriptor >= 0 && flock(liveDescriptor, LOCK_EX) == 0)
        defer { close(liveDescriptor) }
        let fresh = scratch.file("k.keychain-db.creating-3-4", contents: Data())
        let unrelated = Self.abandonedCreation(scratch, "other.keychain-db.creating-5-6")

        try StorageFileTests.createKeychain(at: path).close()

        let left = try Self.siblings(of: path).filter { $0.contains(".creating-") }
        #expect(
            left == [
                "k.keychain-db.creating-1-2", "k.keychain-db.creating-1-2-shm", "k.keychain-db.creating-1-2-wal",
                "k.keychain-db.creating-3-4",
            ],
            "a live creator's files and a just-created empty one stay"
        )
        #expect(FileManager.default.fileExists(atPath: fresh))
        #expect(FileManager.default.fileExists(atPath: unrelated), "another keychain's files are not touched")
    }

    @Test func anEmptyAbandonedFileIsRemovedOnceItIsAMinuteOld() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        let empty = scratch.file("k.keychain-db.creating-3-4", contents: Data())
        var times = [
            timespec(tv_sec: time(nil) - 120, tv_nsec: 0), timespec(tv_sec: time(nil) - 120, tv_nsec: 0),
        ]
        try #require(utimensat(AT_FDCWD, empty, &times, 0) == 0)
        try StorageFileTests.createKeychain(at: path).close()
        #expect(!FileManager.default.fileExists(atPath: empty))
    }
}
