import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One keychain file: an SQLite database in WAL mode, shared safely by threads and processes.
///
/// Writes run in `BEGIN IMMEDIATE` transactions with `synchronous = FULL`, so an acknowledged write
/// survives a crash or power loss; several processes wait for each other through SQLite's busy
/// timeout instead of failing with SQLITE_BUSY.
package final class StorageFile: Sendable {
    /// The magic value stored under `meta.magic` that marks a Latchkey keychain.
    static let magic = Data("latchkey-keychain".utf8)

    /// The database file's path.
    package let path: String
    /// Whether the file was opened read-only.
    package let isReadOnly: Bool
    private let pool: DatabasePool
    /// The dedicated connection that serves reads when no other thread is using it (see `read`).
    private let directReads: DirectReads
    /// Whether the file has migration v4's composite indexes, as found when it was opened (a file another
    /// process migrates later is searched as before, which its new indexes also serve).
    private let compositeIndexes = Atomic<Bool>(false)

    private init(path: String, pool: DatabasePool, readOnly: Bool) {
        self.path = path
        self.pool = pool
        self.isReadOnly = readOnly
        self.directReads = DirectReads(path: path, busyTimeout: Self.busyTimeout(of: pool))
    }

    /// The busy timeout `pool` was configured with (30 s when it waits without one).
    private static func busyTimeout(of pool: DatabasePool) -> TimeInterval {
        if case .timeout(let seconds) = pool.configuration.busyMode { return seconds }
        return 30
    }

    private static func configuration(readOnly: Bool, busyTimeout: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(busyTimeout)
        configuration.journalMode = .wal
        configuration.maximumReaderCount = 4
        configuration.label = "latchkey"
        configuration.prepareDatabase { db in
            // Readers; the writer is set again after GRDB's WAL set-up (see `makeDurable`).
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    /// Opens an existing keychain file.
    ///
    /// - Parameters:
    ///   - path: The database file.
    ///   - readOnly: Open without write access (writes then fail with `StorageError.readOnly`).
    ///   - busyTimeout: How long to wait for another process's lock.
    /// - Throws: `StorageError.emptyFile`, `.notADatabase`, `.notAKeychain`, `.unsupportedFormat`, `.io`.
    package static func open(
        path: String,
        readOnly: Bool = false,
        busyTimeout: TimeInterval = 30
    ) throws
        -> StorageFile
    {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StorageError.io("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_size > 0 else { throw StorageError.emptyFile(path: path) }
        // A file this process may not write is opened read-only, so that reads still work (writes then
        // fail with `readOnly`) instead of failing while SQLite tries to set up the WAL.
        let writable = access(path, W_OK) == 0
        let effectiveReadOnly = readOnly || !writable
        if writable {
            repairJournalModes(path: path, owner: info.st_uid)
            removeAbandonedTemporaryFiles(of: path, keychainExists: true)
        }
        // Opening for writing switches the file to WAL and may commit: first make sure it is a keychain.
        if !effectiveReadOnly { try checkIsKeychain(path: path, busyTimeout: busyTimeout) }
        let file: StorageFile
        do {
            let pool = try DatabasePool(
                path: path,
                configuration: configuration(readOnly: effectiveReadOnly, busyTimeout: busyTimeout)
            )
            if !effectiveReadOnly { try makeDurable(pool) }
            file = StorageFile(path: path, pool: pool, readOnly: effectiveReadOnly)
        } catch {
            let directory = (path as NSString).deletingLastPathComponent
            if let error = error as? DatabaseError,
                error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY,
                access(directory.isEmpty ? "." : directory, W_OK) != 0
            {
                // WAL needs a writable `-shm`/`-wal` beside the file: the directory is the obstacle.
                throw StorageError.readOnly(path: path)
            }
            guard let snapshot = outOfSpaceSnapshot(after: error, path: path, busyTimeout: busyTimeout) else {
                throw StorageError.map(error, path: path)
            }
            file = StorageFile(path: path, pool: snapshot, readOnly: true)
        }
        try file.validate()
        return file
    }

    /// Creates a new keychain file atomically: the database is built under a temporary name, then
    /// linked into place, so no process ever sees a half-initialised keychain. If another process
    /// created the file first, that file is opened instead and `initialize` is not applied.
    ///
    /// - Parameters:
    ///   - path: The final database path (its directory must exist).
    ///   - initialize: Writes the key material (slots, class keys, meta) inside the creating transaction.
    /// - Returns: The opened file and whether this call created it.
    package static func create(
        path: String,
        busyTimeout: TimeInterval = 30,
        initialize: (StorageWriter) throws -> Void
    ) throws -> (file: StorageFile, created: Bool) {
        removeAbandonedTemporaryFiles(of: path)
        let temporary = path + ".creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = Glibc.open(temporary, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if errno == EROFS || errno == EACCES { throw StorageError.readOnly(path: path) }
            throw StorageError.io("cannot create \(temporary): \(reason)")
        }
        // Held until the temporary files are gone: a later creation removes them only once this process is
        // dead (`removeAbandonedTemporaryFiles`). Where `flock` is unsupported nobody can take it: nothing
        // is removed.
        _ = flock(descriptor, LOCK_EX | LOCK_NB)
        defer {
            // The journal files first, so that whatever a kill leaves still has its locked main file.
            for suffix in ["-wal", "-shm", ""] { unlink(temporary + suffix) }
            Glibc.close(descriptor)
        }
        do {
            let pool = try DatabasePool(
                path: temporary,
                configuration: configuration(readOnly: false, busyTimeout: busyTimeout)
            )
            try makeDurable(pool)
            try StorageSchema.migrator.migrate(pool)
            try pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let writer = StorageWriter(db: db)
                    try writer.setMeta("magic", magic)
                    try writer.setMeta("format", Data("\(StorageSchema.formatVersion)".utf8))
                    try initialize(writer)
                    return .commit
                }
                try db.checkpoint(.truncate)
            }
            try pool.close()
        } catch {
            throw StorageError.map(error, path: path)
        }
        // Make the file's contents durable before it becomes visible under its final name.
        try syncFile(descriptor, temporary)
        var created = true
        if link(temporary, path) != 0 {
            // ENOENT with the keychain in place: an opener removed this temporary file before it was locked
            // (`removeAbandonedTemporaryFiles`), which it does only once the keychain exists.
            let lost = errno == ENOENT && access(path, F_OK) == 0
            guard errno == EEXIST || lost else {
                throw StorageError.io("cannot create \(path): \(String(cString: strerror(errno)))")
            }
            created = false
        }
        try syncDirectory(of: path)
        return (try open(path: path, busyTimeout: busyTimeout), created)
    }

    /// GRDB's WAL set-up lowers the writer connection to `synchronous = NORMAL`; an acknowledged keychain
    /// write must survive power loss, so the writer goes back to FULL (fsync on every commit).
    private static func makeDurable(_ pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// SQLite gives `-wal` and `-shm` the database file's mode when it creates them; a read while the
    /// keychain was 0400 leaves them read-only, which would keep the keychain read-only after its owner
    /// restores 0600. Journal files owned by the keychain's owner are set back to 0600.
    private static func repairJournalModes(path: String, owner: uid_t) {
        for suffix in ["-wal", "-shm"] {
            var info = stat()
            let journal = path + suffix
            guard stat(journal, &info) == 0, info.st_uid == owner, info.st_uid == geteuid(),
                access(journal, W_OK) != 0
            else { continue }
            chmod(journal, 0o600)
        }
    }

    private func validate() throws {
        let needsMigration: Bool
        do {
            needsMigration = try pool.read { db in
                guard try db.tableExists("meta") else {
                    throw StorageError.notAKeychain(path: path, reason: "no Latchkey header")
                }
                let reader = StorageReader(db: db)
                guard try reader.meta("magic") == Self.magic else {
                    throw StorageError.notAKeychain(path: path, reason: "no Latchkey header")
                }
                guard let formatText = try reader.meta("format").flatMap({ String(data: $0, encoding: .utf8) }),
                    let format = Int(formatText)
                else {
                    throw StorageError.notAKeychain(path: path, reason: "unreadable format version")
                }
                guard format <= StorageSchema.formatVersion else {
                    throw StorageError.unsupportedFormat(found: format, supported: StorageSchema.formatVersion)
                }
                return try !StorageSchema.migrator.hasCompletedMigrations(db)
            }
        } catch {
            throw StorageError.map(error, path: path)
        }
        do {
            if needsMigration && !isReadOnly { try StorageSchema.migrator.migrate(pool) }
            compositeIndexes.store(try pool.read(StorageSchema.hasCompositeIndexes), ordering: .relaxed)
        } catch {
            throw StorageError.map(error, path: path)
        }
    }

    /// Runs `body` in a read transaction (a consistent snapshot, concurrent with writers).
    ///
    /// The read runs on the file's dedicated read connection with prepared `BEGIN`/`COMMIT` when no other
    /// thread is using it, else on a reader of GRDB's pool; both see the same committed state.
    package func read<T>(_ body: (StorageReader) throws -> T) throws -> T {
        let composite = compositeIndexes.load(ordering: .relaxed)
        do {
            if let result = try directReads.read(compositeIndexes: composite, body) { return result }
            return try pool.read { db in try body(StorageReader(db: db, compositeIndexes: composite)) }
        } catch {
            throw StorageError.map(error, path: path)
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction; any thrown error rolls everything back.
    package func write<T>(_ body: (StorageWriter) throws -> T) throws -> T {
        if isReadOnly {
            // A pool under another name than the file is the snapshot `open` falls back to on a full disk.
            throw pool.path == path ? StorageError.readOnly(path: path) : StorageError.diskFull
        }
        do {
            return try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(
                        StorageWriter(db: db, compositeIndexes: compositeIndexes.load(ordering: .relaxed))
                    )
                    return .commit
                }
                guard let result else { preconditionFailure("transaction committed without a result") }
                return result
            }
        } catch {
            throw StorageError.map(error, path: path)
        }
    }

    /// The writer connection's `PRAGMA synchronous` level (2 = FULL: every commit is fsynced).
    package func writerSynchronousLevel() throws -> Int {
        do {
            return try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
        } catch {
            throw StorageError.map(error, path: path)
        }
    }

    /// Moves every WAL frame into the main file and truncates the WAL.
    package func checkpoint() throws {
        do {
            try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw StorageError.map(error, path: path)
        }
    }

    /// Closes every connection; the file must not be used afterwards.
    package func close() throws {
        directReads.close()
        do {
            try pool.close()
        } catch {
            throw StorageError.map(error, path: path)
        }
    }
}
