import Foundation
import Latchkey
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// A keychain whose database (with or without its `-wal`) or whose `-wal` was truncated: it is refused with
/// errSecDecode, or its damaged items fail with errSecDecode and are named by the integrity check; no item
/// ever reads back another's secret, and whatever still reads is exact.
struct TruncatedKeychainTests {
    static let accounts = (0..<24).map { "acct-\($0)" }

    /// A secret long enough that the items span several pages.
    static func secret(_ account: String) -> String {
        "secret-\(account)-" + String(repeating: "x", count: 300)
    }

    /// Where a truncation cuts, relative to the file's size and SQLite page size.
    enum Cut: Sendable, CustomStringConvertible {
        /// Keep the first `n` bytes.
        case keep(Int)
        /// Keep the first `n` pages.
        case keepPages(Int)
        /// Keep half the file, rounded down to a page, plus `n` bytes.
        case half(plus: Int)
        /// Drop the last `n` bytes.
        case drop(Int)
        /// Drop the last `n` pages.
        case dropPages(Int)

        func length(size: Int, pageSize: Int) -> Int {
            switch self {
            case .keep(let bytes): min(bytes, size)
            case .keepPages(let pages): min(pages * pageSize, size)
            case .half(let plus): size / 2 / pageSize * pageSize + plus
            case .drop(let bytes): max(size - bytes, 0)
            case .dropPages(let pages): max(size - pages * pageSize, 0)
            }
        }

        var description: String {
            switch self {
            case .keep(let bytes): "first \(bytes) bytes"
            case .keepPages(let pages): "first \(pages) pages"
            case .half(let plus): plus == 0 ? "first half" : "first half + \(plus) bytes"
            case .drop(let bytes): "all but the last \(bytes) bytes"
            case .dropPages(let pages): "all but the last \(pages) pages"
            }
        }
    }

    /// What is truncated.
    enum Target: String, Sendable {
        /// The database after a checkpoint, no `-wal` beside it.
        case databaseAlone = "database (no -wal)"
        /// The database, with the `-wal` that holds the items beside it.
        case databaseWithWAL = "database (with its -wal)"
        /// The `-wal` that holds the items.
        case wal = "-wal"
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var target: Target
        var cut: Cut
        var testDescription: String { "\(target.rawValue): \(cut)" }
    }

    static let cases: [Case] =
        [
            Cut.keep(0), .keep(16), .keep(100), .keepPages(1), .keepPages(2), .half(plus: 0), .half(plus: 123),
            .dropPages(1), .drop(1),
        ].map { Case(target: .databaseAlone, cut: $0) }
        + [Cut.keep(0), .keep(100), .keepPages(1), .half(plus: 0), .drop(1)].map {
            Case(target: .databaseWithWAL, cut: $0)
        }
        + [Cut.keep(0), .keep(32), .half(plus: 0), .drop(1)].map { Case(target: .wal, cut: $0) }

    /// The SQLite page size from a database header (bytes 16–17, big-endian; 1 means 65536).
    static func pageSize(of database: Data) -> Int {
        let raw = Int(database[database.startIndex + 16]) << 8 | Int(database[database.startIndex + 17])
        return raw == 1 ? 65_536 : raw
    }

    /// A closed keychain holding the items, with its database and `-wal` as they were while the items lived
    /// only in the `-wal`, and its database after a checkpoint.
    static func keychainWithItems() throws -> (keychain: TemporaryKeychain, live: (Data, Data), checkpointed: Data) {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for account in accounts {
            try store.add(
                .genericPassword,
                attributes: [.service: .string("truncated"), .account: .string(account)],
                data: SecretData(string: secret(account))
            )
        }
        let liveDatabase = try #require(FileManager.default.contents(atPath: keychain.path))
        let liveWAL = try #require(FileManager.default.contents(atPath: keychain.path + "-wal"))
        try #require(liveWAL.count > 32, "the items are in the -wal")
        try store.checkpoint()
        try store.close()
        let checkpointed = try #require(FileManager.default.contents(atPath: keychain.path))
        return (keychain, (liveDatabase, liveWAL), checkpointed)
    }

    @Test(arguments: cases)
    func truncatedKeychainIsRefusedOrNamesItsDamageAndNeverReadsAnotherItem(_ truncation: Case) throws {
        let (keychain, live, checkpointed) = try Self.keychainWithItems()
        for suffix in ["-wal", "-shm"] { unlink(keychain.path + suffix) }
        let truncated: String
        let original: Data
        switch truncation.target {
        case .databaseAlone:
            try checkpointed.write(to: URL(fileURLWithPath: keychain.path))
            (truncated, original) = (keychain.path, checkpointed)
        case .databaseWithWAL, .wal:
            try live.0.write(to: URL(fileURLWithPath: keychain.path))
            try live.1.write(to: URL(fileURLWithPath: keychain.path + "-wal"))
            (truncated, original) =
                truncation.target == .wal ? (keychain.path + "-wal", live.1) : (keychain.path, live.0)
        }
        let length = truncation.cut.length(size: original.count, pageSize: Self.pageSize(of: checkpointed))
        try #require(length < original.count)
        try #require(truncate(truncated, off_t(length)) == 0)
        let context = "\(truncation.target.rawValue) cut to \(length) of \(original.count) bytes"

        let store: KeychainStore
        do {
            store = try keychain.open()
        } catch let error as KeychainError {
            #expect(error.code == .decode, "\(context): \(error.debugDescription)")
            let message = error.message.lowercased()
            #expect(
                ["empty", "not an sqlite database", "corrupt"].contains { message.contains($0) },
                "\(context): \(error.message)"
            )
            if length == 0 && truncation.target != .wal { #expect(message.contains("empty"), "\(error.message)") }
            Self.report("\(context): refused at open (\(error.code.rawValue): \(error.message))")
            return
        }
        defer { try? store.close() }

        // Every item reads back exactly, or fails with errSecDecode, or is gone; never another item's secret.
        var readable: [String] = []
        var damaged: [String] = []
        var missing: [String] = []
        for account in Self.accounts {
            let query = ItemQuery(.genericPassword, attributes: [.account: .string(account)])
            switch Result(catching: { () throws(KeychainError) in try store.findOne(query, withData: true) }) {
            case .success(let item):
                #expect(item.attributes[.account] == .string(account), "\(context): \(account)")
                #expect(item.data == SecretData(string: Self.secret(account)), "\(context): \(account)'s secret")
                readable.append(account)
            case .failure(let error) where error.code == .itemNotFound: missing.append(account)
            case .failure(let error):
                Self.expectDecode(error, "\(context): \(account)")
                damaged.append(account)
            }
        }
        let search = Result { () throws(KeychainError) in
            try store.find(ItemQuery(.genericPassword), limit: .all, withData: true)
        }
        if case .success(let found) = search {
            for item in found {
                let account = item.attributes[.account]?.stringValue ?? ""
                #expect(
                    item.data == SecretData(string: Self.secret(account)),
                    "\(context): a search returned \(account)"
                )
            }
        }
        let integrity = Result { () throws(KeychainError) in try store.verifyIntegrity() }
        var reported: String?
        switch integrity {
        case .success(let report) where !report.isSound:
            reported =
                "integrity check: \(report.sqlite.count) SQLite findings, \(report.undecryptable.count) items named"
        case .success: reported = nil
        case .failure(let error):
            Self.expectDecode(error, context)
            reported = "integrity check fails (\(error.code.rawValue): \(error.message))"
        }
        if case .failure(let error) = search, error.code != .itemNotFound || !readable.isEmpty {
            Self.expectDecode(error, context)
            reported = reported ?? "a search fails (\(error.code.rawValue))"
        }

        // Whatever is lost is reported, except a cut -wal: SQLite then sees the file as it was at an earlier
        // commit, which cannot be told from a rollback of the whole file (docs/threat-model.md).
        if readable.count < Self.accounts.count {
            if truncation.target == .wal && reported == nil {
                #expect(damaged.isEmpty, "\(context): damaged \(damaged)")
                #expect(
                    readable == Array(Self.accounts.prefix(readable.count)),
                    "\(context): an earlier commit keeps a prefix of the items, not \(readable)"
                )
            } else {
                #expect(
                    reported != nil,
                    "\(context): \(damaged.count) damaged and \(missing.count) missing, unreported"
                )
            }
        }
        if truncation.target == .databaseAlone, length <= original.count - Self.pageSize(of: checkpointed) {
            #expect(reported != nil, "\(context): a database missing whole pages is reported")
        }
        Self.report(
            "\(context): opens; \(readable.count) items read exactly, \(damaged.count) fail with -26275, "
                + "\(missing.count) absent; \(reported ?? "nothing reported")"
        )
    }

    /// Expects `error` to be errSecDecode (a storage error met while the row ledger reads the file is mapped
    /// by the storage layer with the file's path, not reported as errSecInternal).
    static func expectDecode(
        _ error: KeychainError,
        _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error.code == .decode, "\(context): \(error.debugDescription)", sourceLocation: sourceLocation)
    }

    static func report(_ line: String) {
        FileHandle.standardError.write(Data("TruncatedKeychainTests: \(line)\n".utf8))
    }
}
