import Crypto
import Foundation
import GRDBSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The floor: what the machine and the libraries Latchkey is built on cost for the same work, measured
/// in the same run, in the same temporary directory, on the same SQLite library. Each keychain
/// operation's median is then printed as a ratio to its floor (`ResultReport.floors`).
///
/// - `floor-sqlite-lookup`: a point lookup of a 700-byte blob by integer key in a table holding as many
///   rows as the keychain holds items, through SQLite's C API directly (`FloorLookup`). The finds of the
///   store suite are read against `floor-sqlite-lookup-find-primary-key` / `-find-attributes`: the same
///   lookup, timed just before each find of that measurement.
/// - `floor-aes-gcm-open`: one AES-256-GCM open (swift-crypto) of a 700-byte ciphertext with 48 bytes of
///   associated data.
/// - `floor-fdatasync`: overwrite 4 KiB in place in a preallocated file and `fdatasync` it (`SyncFloor`) —
///   what a commit in SQLite's WAL costs at least once the WAL has reached its working size (appending
///   would also flush the file size through the file system's journal, which SQLite mostly avoids). At
///   most 200 samples, since a slow disk makes each take milliseconds. The durable writes of the store
///   suite are read against `floor-fdatasync-add` / `-update` / `-delete`: the same flush, timed just
///   before each write of that measurement.
enum FloorBenchmarks: BenchmarkSuite {
    static let name = "floor"
    static let blobLength = 700
    static let warmUp = 200
    static let maximumSyncSamples = 200

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        let finds = ["floor-sqlite-lookup", "find-primary-key", "find-attributes"]
        if finds.contains(where: context.options.includes) {
            context.progress("\(name): floor-sqlite-lookup (filling \(keychain.items) rows)")
            let lookup = try FloorLookup(&context, rows: keychain.items)
            context.floorLookup = lookup
            if context.options.includes("floor-sqlite-lookup") {
                context.report.add("floor-sqlite-lookup", items: keychain.items, try measure(lookup, &context))
            }
        }
        if context.options.includes("floor-aes-gcm-open") {
            context.progress("\(name): floor-aes-gcm-open")
            context.report.add("floor-aes-gcm-open", items: keychain.items, try aesOpen(&context))
        }
        if context.options.includes("floor-fdatasync") {
            context.progress("\(name): floor-fdatasync")
            context.report.add("floor-fdatasync", items: keychain.items, try fdatasyncSmallWrite(context))
        }
    }

    /// Point lookups of random keys (after `warmUp` untimed ones), each checked after the clock stopped.
    private static func measure(_ lookup: FloorLookup, _ context: inout BenchmarkContext) throws -> Measurement {
        let samples = context.options.samples
        let picks = (0..<(warmUp + samples)).map { _ in context.index(below: lookup.rows) }
        for run in 0..<warmUp { try lookup.check(lookup.lookup(picks[run]), picks[run]) }
        return try context.measure(samples) { run in
            try lookup.lookup(picks[warmUp + run])
        } check: { run, value in
            try lookup.check(value, picks[warmUp + run])
        }
    }

    /// One AES-256-GCM open of a 700-byte ciphertext, each of a different box.
    private static func aesOpen(_ context: inout BenchmarkContext) throws -> Measurement {
        let key = SymmetricKey(data: context.generator.bytes(32))
        let associated = Data(context.generator.bytes(48))
        let count = 64
        let boxes = try (0..<count).map { _ in
            let plaintext = Data(context.generator.bytes(blobLength - 28))
            guard let combined = try AES.GCM.seal(plaintext, using: key, authenticating: associated).combined else {
                throw BenchmarkFailure("AES-GCM gave no combined form")
            }
            return combined
        }
        let samples = context.options.samples
        for run in 0..<warmUp { _ = try openBox(boxes[run % count], key, associated) }
        return try context.measure(samples) { run in
            try openBox(boxes[run % count], key, associated)
        } check: { _, plaintext in
            guard plaintext.count == blobLength - 28 else { throw BenchmarkFailure("AES-GCM opened to another length") }
        }
    }

    private static func openBox(_ combined: Data, _ key: SymmetricKey, _ associated: Data) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: key, authenticating: associated)
    }

    /// `fdatasync` after overwriting one 4 KiB block of a preallocated file in the benchmark directory.
    private static func fdatasyncSmallWrite(_ context: BenchmarkContext) throws -> Measurement {
        let floor = try SyncFloor(directory: context.directory, name: "fdatasync-floor")
        let count = min(context.options.samples, maximumSyncSamples)
        return try context.measure(count) { _ in try floor.sync() }
    }
}

/// One `fdatasync` of a small write: a 4 KiB block overwritten in place in a preallocated 1 MiB file (an
/// overwrite, not an append, so only the data is flushed, as in a WAL that has reached its working size).
///
/// The store suite also times one of these before each durable write, so that every write is read
/// against the disk's flush latency at that same moment (a shared disk's latency moves by 10x within
/// minutes).
final class SyncFloor {
    static let blockSize = 4096
    static let blocks = 256

    private let descriptor: Int32
    private let path: String
    private let block = [UInt8](repeating: 0xA5, count: SyncFloor.blockSize)
    private var next = 0

    /// Creates and preallocates the file (written and flushed once, untimed).
    init(directory: BenchmarkDirectory, name: String) throws {
        path = directory.path + "/" + name
        descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw BenchmarkFailure("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        for index in 0..<Self.blocks { try write(index) }
        guard flush(descriptor) == 0 else {
            throw BenchmarkFailure("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Overwrites the next block and flushes it to the disk.
    func sync() throws {
        try write(next)
        next = (next + 1) % Self.blocks
        guard flush(descriptor) == 0 else {
            throw BenchmarkFailure("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    private func write(_ index: Int) throws {
        let written = block.withUnsafeBytes {
            pwrite(descriptor, $0.baseAddress, $0.count, off_t(index * Self.blockSize))
        }
        guard written == block.count else {
            throw BenchmarkFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// `fdatasync` where it exists (what SQLite uses on Linux), else `fsync`.
private func flush(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    fdatasync(descriptor)
    #else
    fsync(descriptor)
    #endif
}

/// The floor lookup: a table of `rows` 700-byte blobs keyed by integer in a WAL database at
/// `synchronous = FULL`, read through SQLite's C API with one statement prepared once (bind, step, copy
/// the blob, reset per lookup; each lookup its own autocommit read transaction, as a keychain read is).
///
/// It stays open for the whole run: the store suite times one random lookup before each find, so that
/// a find is read against the floor at that same moment.
final class FloorLookup {
    let rows: Int
    private let database: FloorDatabase
    private let select: OpaquePointer

    /// Creates and fills the table in one transaction, then checkpoints it.
    init(_ context: inout BenchmarkContext, rows: Int) throws {
        self.rows = rows
        database = try FloorDatabase(path: context.directory.path + "/floor.sqlite")
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = FULL")
        try database.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value BLOB NOT NULL)")
        let insert = try database.prepare("INSERT INTO items (id, value) VALUES (?, ?)")
        defer { sqlite3_finalize(insert) }
        try database.execute("BEGIN")
        var blob = context.generator.bytes(FloorBenchmarks.blobLength)
        for id in 0..<rows {
            // A different blob per row (the first 8 bytes carry the key), so pages hold real data.
            withUnsafeBytes(of: UInt64(id).littleEndian) { key in
                for index in 0..<8 { blob[index] = key[index] }
            }
            sqlite3_bind_int64(insert, 1, Int64(id))
            let bound = blob.withUnsafeBytes {
                sqlite3_bind_blob(insert, 2, $0.baseAddress, Int32($0.count), FloorDatabase.transient)
            }
            guard bound == SQLITE_OK, sqlite3_step(insert) == SQLITE_DONE else {
                throw database.failure("insert")
            }
            sqlite3_reset(insert)
        }
        try database.execute("COMMIT")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        select = try database.prepare("SELECT value FROM items WHERE id = ?")
    }

    deinit {
        sqlite3_finalize(select)
    }

    /// The blob of row `id`.
    func lookup(_ id: Int) throws -> Data {
        sqlite3_bind_int64(select, 1, Int64(id))
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW, let bytes = sqlite3_column_blob(select, 0) else {
            throw database.failure("lookup")
        }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(select, 0)))
    }

    /// Fails unless `value` is row `id`'s blob.
    func check(_ value: Data, _ id: Int) throws {
        let key = value.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).littleEndian }
        guard value.count == FloorBenchmarks.blobLength, key == UInt64(id) else {
            throw BenchmarkFailure("the floor lookup returned another row")
        }
    }
}

/// A plain SQLite connection for the floor measurement, closed when released.
private final class FloorDatabase {
    /// `SQLITE_TRANSIENT`: SQLite copies bound bytes before the bind call returns.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    let handle: OpaquePointer
    let path: String

    init(path: String) throws {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &connection, flags, nil) == SQLITE_OK, let connection else {
            sqlite3_close(connection)
            throw BenchmarkFailure("cannot open the floor database \(path)")
        }
        handle = connection
        self.path = path
    }

    deinit {
        sqlite3_close(handle)
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(sql) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure(sql)
        }
        return statement
    }

    func failure(_ step: String) -> BenchmarkFailure {
        BenchmarkFailure("floor database: \(step): \(String(cString: sqlite3_errmsg(handle)))")
    }
}
