import Foundation
import GRDB

/// Why the SQLite layer failed; mapped once to `KeychainError` at the `Latchkey` boundary.
///
/// Messages name files and SQLite result codes, never row contents.
package enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not an SQLite database (random bytes, another format, a truncated header).
    case notADatabase(path: String)
    /// The file is an SQLite database, but not a Latchkey keychain (another application's database).
    case notAKeychain(path: String, reason: String)
    /// The file exists but holds zero bytes (truncated by a crash or a full disk).
    case emptyFile(path: String)
    /// The keychain was written by a newer Latchkey whose format this build cannot read.
    case unsupportedFormat(found: Int, supported: Int)
    /// The database or its directory cannot be written.
    case readOnly(path: String)
    /// The disk is full; the transaction was rolled back.
    case diskFull
    /// A UNIQUE constraint rejected the write (the primary key already exists).
    case uniqueViolation
    /// SQLite reported corruption.
    case corrupt(String)
    /// Another process held the lock for longer than the busy timeout.
    case busy
    /// Opening or reading failed at the operating-system level.
    case io(String)
    /// Any other SQLite failure, with its primary result code.
    case sqlite(code: Int32, message: String)

    package var description: String {
        switch self {
        case .notADatabase(let path): "\(path) is not a Latchkey keychain (not an SQLite database)"
        case .notAKeychain(let path, let reason): "\(path) is not a Latchkey keychain (\(reason))"
        case .emptyFile(let path): "\(path) is empty (0 bytes): not a Latchkey keychain"
        case .unsupportedFormat(let found, let supported):
            "keychain format \(found) is newer than this Latchkey supports (\(supported)); upgrade Latchkey"
        case .readOnly(let path): "\(path) is read-only: the keychain cannot be modified"
        case .diskFull: "the disk is full; nothing was written"
        case .uniqueViolation: "an item with the same primary key already exists"
        case .corrupt(let why): "the keychain database is corrupt: \(why)"
        case .busy: "the keychain stayed locked by another process past the busy timeout"
        case .io(let why): "I/O error: \(why)"
        case .sqlite(let code, let message): "SQLite error \(code): \(message)"
        }
    }

    /// Maps any error thrown by GRDB to a storage error; other errors are returned unchanged.
    static func map(_ error: any Error, path: String) -> any Error {
        if let error = error as? StorageError { return error }
        guard let error = error as? DatabaseError else { return error }
        switch error.resultCode {
        case .SQLITE_NOTADB: return StorageError.notADatabase(path: path)
        case .SQLITE_READONLY: return StorageError.readOnly(path: path)
        case .SQLITE_FULL: return StorageError.diskFull
        case .SQLITE_CONSTRAINT: return StorageError.uniqueViolation
        case .SQLITE_CORRUPT: return StorageError.corrupt(error.message ?? "corrupt")
        case .SQLITE_BUSY, .SQLITE_LOCKED: return StorageError.busy
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM:
            return StorageError.io("\(error.message ?? "I/O failure") (\(path))")
        default:
            return StorageError.sqlite(code: error.resultCode.primaryResultCode.rawValue, message: error.message ?? "")
        }
    }
}
