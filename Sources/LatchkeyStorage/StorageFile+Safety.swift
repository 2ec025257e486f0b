import Foundation
import GRDB
import GRDBSQLite

#if canImport(Glibc)
import Glibc
#endif

/// What `StorageFile.open` and `create` do before and after SQLite touches a file: prove it is a keychain
/// without writing to it, clean up after creations whose process died, sync what creation wrote, and read a
/// keychain on a disk too full for SQLite's WAL index.
extension StorageFile {
    // MARK: Validation before any write

    /// Checks that `path` holds a Latchkey keychain without writing to it, so that opening another program's
    /// database changes nothing in it.
    ///
    /// Opening a database pool writes: it switches a rollback-journal database to WAL (header bytes 18–19
    /// become `02 02`) and, when the `-wal` file is missing or empty, commits an empty transaction. This check
    /// reads the header and the `meta` rows first through a read-only connection; a WAL file without frames
    /// in a `-wal` beside it (everything is in the main file) is read with SQLite's `immutable` flag, which
    /// creates no `-wal` or `-shm` either. A WAL file whose `-wal` holds frames is not read: opening it writes
    /// nothing (closing the pool may checkpoint those frames into the file, which keeps its content).
    ///
    /// - Throws: `StorageError.notADatabase`, `.notAKeychain` or `.unsupportedFormat` when the file is certainly
    ///   not a keychain this build reads. When the check cannot tell (the file is locked, unreadable, on a
    ///   full disk...), it returns and the regular open reports whatever it meets.
    static func checkIsKeychain(path: String, busyTimeout: TimeInterval) throws {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        var header = [UInt8](repeating: 0, count: 100)
        let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        Glibc.close(descriptor)
        guard count == header.count, header.starts(with: Array("SQLite format 3\u{0}".utf8)) else {
            throw StorageError.notADatabase(path: path)
        }
        var journal = stat()
        let isWAL = header[18] == 2 && header[19] == 2
        let walHasFrames = stat(path + "-wal", &journal) == 0 && journal.st_size > 0
        // A WAL database whose `-wal` holds frames (the usual state after any process exited with its
        // connection open) is opened without a write: `journal_mode = WAL` is then a no-op and GRDB commits
        // only into an empty WAL. Skipping the check keeps it off the hot path.
        if isWAL && walHasFrames { return }
        let immutable = isWAL
        var connection: OpaquePointer?
        var flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        if immutable { flags |= SQLITE_OPEN_URI }
        let opened = sqlite3_open_v2(immutable ? immutableURI(path) : path, &connection, flags, nil)
        defer { sqlite3_close_v2(connection) }
        guard opened == SQLITE_OK, let connection else { return }
        sqlite3_busy_timeout(connection, Int32(clamping: Int((busyTimeout * 1000).rounded())))
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(
            connection,
            "SELECT name, value FROM meta WHERE name IN ('magic', 'format')",
            -1,
            &statement,
            nil
        )
        defer { sqlite3_finalize(statement) }
        switch prepared & 0xFF {
        case SQLITE_OK: break
        case SQLITE_NOTADB: throw StorageError.notADatabase(path: path)
        // The schema was read, and has no `meta (name, value)` table.
        case SQLITE_ERROR: throw StorageError.notAKeychain(path: path, reason: "no Latchkey header")
        default: return
        }
        var meta: [String: Data] = [:]
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_DONE { break }
            guard stepped == SQLITE_ROW else {
                if stepped & 0xFF == SQLITE_NOTADB { throw StorageError.notADatabase(path: path) }
                return
            }
            guard let name = sqlite3_column_text(statement, 0) else { continue }
            let bytes = sqlite3_column_blob(statement, 1)
            let length = Int(sqlite3_column_bytes(statement, 1))
            meta[String(cString: name)] = bytes.map { Data(bytes: $0, count: length) } ?? Data()
        }
        guard meta["magic"] == magic else {
            throw StorageError.notAKeychain(path: path, reason: "no Latchkey header")
        }
        guard let text = meta["format"].flatMap({ String(data: $0, encoding: .utf8) }), let format = Int(text) else {
            throw StorageError.notAKeychain(path: path, reason: "unreadable format version")
        }
        guard format <= StorageSchema.formatVersion else {
            throw StorageError.unsupportedFormat(found: format, supported: StorageSchema.formatVersion)
        }
    }

    /// `file:` URI of `path` with `immutable=1`: SQLite reads the file without locks, `-wal` or `-shm`.
    static func immutableURI(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
        // An absolute path gets an empty authority (`file:///…`) so that `//x` is never read as a host.
        return (path.hasPrefix("/") ? "file://" : "file:") + encoded + "?immutable=1"
    }

    // MARK: A full disk

    /// A read-only view of a keychain whose regular open failed for lack of space, or `nil`.
    ///
    /// A WAL database needs a `-shm` index of 32 KiB and (GRDB's set-up) a write to an empty `-wal`; after a
    /// checkpoint removed both, a full disk leaves no room to recreate them, so even a read failed with
    /// -36. When everything is in the main file (no `-wal`, or an empty one) and the file system has
    /// (almost) no free space, the file is opened read-only through SQLite's `immutable` flag: reads see the
    /// last checkpointed state, which is the whole keychain, and writes fail with `StorageError.diskFull`.
    /// Nothing changes for a disk with room: this runs only after the regular open failed.
    static func outOfSpaceSnapshot(after error: any Error, path: String, busyTimeout: TimeInterval) -> DatabasePool? {
        guard let error = error as? DatabaseError,
            [ResultCode.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode)
        else { return nil }
        var journal = stat()
        guard stat(path + "-wal", &journal) != 0 || journal.st_size == 0 else { return nil }
        let directory = (path as NSString).deletingLastPathComponent
        var space = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &space) == 0 else { return nil }
        let freeBlocks = geteuid() == 0 ? space.f_bfree : space.f_bavail
        let freeBytes = UInt64(freeBlocks) &* UInt64(space.f_frsize)
        guard freeBytes < 1 << 20 || space.f_favail == 0 else { return nil }
        // GRDB opens paths without SQLITE_OPEN_URI: the URI is understood only by an SQLite built with
        // SQLITE_USE_URI (Debian's is); elsewhere there is no snapshot and the original error stands.
        guard sqlite3_compileoption_used("USE_URI") == 1 else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.maximumReaderCount = 2
        configuration.label = "latchkey"
        do {
            let pool = try DatabasePool(path: immutableURI(path), configuration: configuration)
            _ = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM meta") }
            return pool
        } catch {
            return nil
        }
    }

    // MARK: Creation

    /// Removes what creations killed before they finished left beside `path`: each `<name>.creating-*`
    /// file (and its `-wal`, `-shm`, `-journal`) that no live creator holds its `flock` on.
    ///
    /// A creator takes the lock right after creating the file and holds it until the file is gone; a file
    /// still empty may be one whose creator has not taken it yet, so it is left alone for a minute (it holds
    /// nothing). When the keychain exists (`keychainExists`, on open), a temporary name that is a second
    /// name of the keychain itself (a creator killed between `link` and `unlink`) goes at once: it must not
    /// keep the keychain's contents after the keychain is deleted. Best effort: what cannot be inspected or
    /// removed stays, and the caller goes on.
    static func removeAbandonedTemporaryFiles(of path: String, keychainExists: Bool = false) {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".creating-"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)
        } catch {
            return  // Nothing to clean up where nothing can be listed.
        }
        for name in names where name.hasPrefix(prefix) {
            guard !["-wal", "-shm", "-journal"].contains(where: { name.hasSuffix($0) }) else { continue }
            let candidate = directory.isEmpty ? name : directory + "/" + name
            let descriptor = Glibc.open(candidate, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard descriptor >= 0 else { continue }
            defer { Glibc.close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & mode_t(S_IFMT) == mode_t(S_IFREG),
                info.st_uid == geteuid()
            else {
                continue
            }
            let age = time(nil) - info.st_mtim.tv_sec
            var keychain = stat()
            let secondName =
                keychainExists && stat(path, &keychain) == 0 && keychain.st_ino == info.st_ino
                && keychain.st_dev == info.st_dev
            guard secondName || info.st_size > 0 || age > 60 else { continue }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // Its creator is alive.
            var current = stat()
            guard lstat(candidate, &current) == 0, current.st_ino == info.st_ino, current.st_dev == info.st_dev else {
                continue
            }
            for suffix in ["-wal", "-shm", "-journal", ""] { unlink(candidate + suffix) }
        }
    }

    /// `fsync` of an open file, or `StorageError.io` naming it.
    static func syncFile(_ descriptor: Int32, _ path: String) throws {
        guard fsync(descriptor) == 0 else {
            throw StorageError.io("cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `fsync` of `path`'s directory, so that a link or rename in it survives a power loss.
    ///
    /// - Throws: `StorageError.io`, unless the file system cannot sync directories (`EINVAL`).
    static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = directory.isEmpty ? "." : directory
        let descriptor = Glibc.open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StorageError.io("cannot open \(name) to sync it: \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 || errno == EINVAL else {
            throw StorageError.io("cannot sync \(name): \(String(cString: strerror(errno)))")
        }
    }
}
