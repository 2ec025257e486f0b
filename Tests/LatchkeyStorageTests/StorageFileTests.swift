import Foundation
import GRDB
import LatchkeyStorage
import Testing

struct StorageFileTests {
    /// A private temporary directory removed when the value is released.
    final class Scratch: @unchecked Sendable {
        // SAFETY: the only stored property is an immutable String; the class exists for `deinit` cleanup.
        let directory: String

        init() {
            let template = FileManager.default.temporaryDirectory.path + "/latchkey-storage-test-XXXXXX"
            var bytes = Array(template.utf8CString)
            let created = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
            precondition(created != nil, "mkdtemp failed")
            directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        deinit {
            try? FileManager.default.removeItem(atPath: directory)
        }

        func path(_ name: String) -> String { directory + "/" + name }

        /// Writes `contents` to a new 0600 file.
        func file(_ name: String, contents: Data) -> String {
            let path = path(name)
            _ = FileManager.default.createFile(atPath: path, contents: contents, attributes: [.posixPermissions: 0o600])
            return path
        }
    }

    static func createKeychain(at path: String) throws -> StorageFile {
        let (file, created) = try StorageFile.create(path: path) { writer in
            try writer.setMeta("test.value", Data("hello".utf8))
        }
        #expect(created)
        return file
    }

    @Test func createdFileOpensAgainWithItsMeta() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        let created = try Self.createKeychain(at: path)
        #expect(try created.read { try $0.meta("test.value") } == Data("hello".utf8))
        try created.close()

        let reopened = try StorageFile.open(path: path)
        #expect(reopened.path == path)
        #expect(!reopened.isReadOnly)
        #expect(try reopened.read { try $0.meta("test.value") } == Data("hello".utf8))
        #expect(try reopened.read { try $0.integrityCheck() } == ["ok"])
        for table in ItemTable.allCases {
            #expect(try reopened.read { try $0.count(in: table) } == 0)
        }
        try reopened.close()
    }

    /// GRDB's WAL set-up lowers the writer to NORMAL; an acknowledged write must survive power loss.
    @Test func writerCommitsDurablyAfterCreateAndOpen() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        let created = try Self.createKeychain(at: path)
        #expect(try created.writerSynchronousLevel() == 2)
        try created.close()
        let reopened = try StorageFile.open(path: path)
        #expect(try reopened.writerSynchronousLevel() == 2)
        try reopened.close()
    }

    @Test func createLeavesNoTemporaryFilesBehind() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.createKeychain(at: path).close()
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.directory)
        #expect(!names.contains { $0.contains(".creating-") }, "left behind: \(names)")
    }

    @Test func createdFileIsPrivateToItsOwner() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.createKeychain(at: path).close()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
    }

    @Test func createOverAnExistingKeychainOpensItAndDiscardsTheNewContents() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.createKeychain(at: path).close()
        // The loser of the creation race builds its database under a temporary name, which is discarded.
        let (file, created) = try StorageFile.create(path: path) { writer in
            try writer.setMeta("test.value", Data("overwritten".utf8))
        }
        #expect(!created)
        #expect(try file.read { try $0.meta("test.value") } == Data("hello".utf8))
        try file.close()
    }

    @Test func writesCommitAndBumpTheChangeCounter() throws {
        let scratch = Scratch()
        let file = try Self.createKeychain(at: scratch.path("k.keychain-db"))
        let before = try file.read { try $0.changeCounter() }
        try file.write { writer in
            try writer.setMeta("other", Data([1]))
            try writer.bumpChangeCounter()
        }
        #expect(try file.read { try $0.changeCounter() } == before + 1)
        #expect(try file.read { try $0.meta("other") } == Data([1]))
        try file.close()
    }

    @Test func aThrowingWriteRollsEverythingBack() throws {
        struct Abort: Error {}
        let scratch = Scratch()
        let file = try Self.createKeychain(at: scratch.path("k.keychain-db"))
        #expect(throws: Abort.self) {
            try file.write { writer in
                try writer.setMeta("test.value", Data("changed".utf8))
                throw Abort()
            }
        }
        #expect(try file.read { try $0.meta("test.value") } == Data("hello".utf8))
        try file.close()
    }

    @Test func readOnlyFileRefusesWrites() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.createKeychain(at: path).close()
        let file = try StorageFile.open(path: path, readOnly: true)
        #expect(file.isReadOnly)
        #expect(throws: StorageError.readOnly(path: path)) {
            try file.write { try $0.setMeta("x", Data()) }
        }
        try file.close()
    }

    @Test func missingFileIsAnIOError() throws {
        let scratch = Scratch()
        let error = #expect(throws: StorageError.self) {
            try StorageFile.open(path: scratch.path("missing.keychain-db"))
        }
        guard case .io(let why)? = error else {
            Issue.record("expected an I/O error, got \(String(describing: error))")
            return
        }
        #expect(why.contains("missing.keychain-db"))
    }

    @Test func emptyFileIsReportedAsEmpty() throws {
        let scratch = Scratch()
        let path = scratch.file("empty.keychain-db", contents: Data())
        #expect(throws: StorageError.emptyFile(path: path)) { try StorageFile.open(path: path) }
        #expect(StorageError.emptyFile(path: path).description.contains("empty (0 bytes)"))
    }

    /// Files that are not SQLite at all: never a crash, always a storage error that names the file.
    @Test(
        arguments: [
            ("random bytes", Data((0..<8192).map { _ in UInt8.random(in: 0...255) })),
            ("one byte", Data([0x53])),
            ("text", Data("this is not a database\n".utf8)),
            ("truncated SQLite header", Data("SQLite format 3\u{0}".utf8)),
            ("zero page", Data(repeating: 0, count: 4096)),
        ]
    )
    func nonDatabaseBytesAreNotADatabase(_ name: String, contents: Data) throws {
        let scratch = Scratch()
        let path = scratch.file("garbage.keychain-db", contents: contents)
        let error = #expect(throws: StorageError.self, "\(name)") { try StorageFile.open(path: path) }
        switch error {
        case .notADatabase(let reported)?, .notAKeychain(let reported, _)?:
            #expect(reported == path, "\(name)")
        case .corrupt?:
            break
        default:
            Issue.record("\(name): unexpected \(String(describing: error))")
        }
    }

    @Test func randomBytesAreNotADatabase() throws {
        let scratch = Scratch()
        var bytes = Data((0..<4096).map { _ in UInt8.random(in: 0...255) })
        bytes[0] = 0x00  // never the SQLite magic
        let path = scratch.file("random.keychain-db", contents: bytes)
        #expect(throws: StorageError.notADatabase(path: path)) { try StorageFile.open(path: path) }
        #expect(StorageError.notADatabase(path: path).description.contains("not an SQLite database"))
    }

    @Test func anotherApplicationsSQLiteDatabaseIsNotAKeychain() throws {
        let scratch = Scratch()
        let path = scratch.path("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO notes (body) VALUES ('hello')")
        }
        try queue.close()
        #expect(throws: StorageError.notAKeychain(path: path, reason: "no Latchkey header")) {
            try StorageFile.open(path: path)
        }
    }

    @Test func aDatabaseWithAForeignMetaTableIsNotAKeychain() throws {
        let scratch = Scratch()
        let path = scratch.path("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
            try db.execute(sql: "INSERT INTO meta (name, value) VALUES ('magic', x'00')")
        }
        try queue.close()
        #expect(throws: StorageError.notAKeychain(path: path, reason: "no Latchkey header")) {
            try StorageFile.open(path: path)
        }
    }

    @Test func aNewerFormatIsRefusedWithUpgradeAdvice() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.createKeychain(at: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE meta SET value = ? WHERE name = 'format'", arguments: [Data("99".utf8)])
        }
        try queue.close()
        let error = #expect(throws: StorageError.self) { try StorageFile.open(path: path) }
        guard case .unsupportedFormat(let found, _)? = error else {
            Issue.record("expected unsupportedFormat, got \(String(describing: error))")
            return
        }
        #expect(found == 99)
        #expect(error?.description.contains("upgrade Latchkey") == true)
    }

    @Test func anUnreadableFormatVersionIsNotAKeychain() throws {
        let scratch = Scratch()
        let path = scratch.path("k.keychain-db")
        try Self.createKeychain(at: path).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE meta SET value = x'FF' WHERE name = 'format'")
        }
        try queue.close()
        #expect(throws: StorageError.notAKeychain(path: path, reason: "unreadable format version")) {
            try StorageFile.open(path: path)
        }
    }

    @Test func errorDescriptionsNameTheFile() {
        let path = "/tmp/x.keychain-db"
        let errors: [StorageError] = [
            .notADatabase(path: path), .notAKeychain(path: path, reason: "r"), .emptyFile(path: path),
            .readOnly(path: path),
        ]
        for error in errors {
            #expect(error.description.contains(path))
        }
    }
}
