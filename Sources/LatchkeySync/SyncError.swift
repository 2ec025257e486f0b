import Foundation
import Latchkey

/// What went wrong in sync, before it becomes a `KeychainError` (`keychainError`).
///
/// The layer's one error type: the envelope, the schema and the server client throw it, and a face maps it
/// once. No case carries an attribute value or secret bytes, only counts, versions and identifiers the
/// server sees anyway.
package enum SyncError: Error, Sendable, Equatable {
    /// A sealed row did not open: its header (row UUID, version, key epoch, tombstone flag, author, keychain
    /// or format) differs from what it was sealed with, or its ciphertext was altered.
    case rowRefused(row: UUID)
    /// A row opened, but its contents name another item than its row UUID (a row written under the wrong
    /// identity).
    case identityMismatch(row: UUID)
    /// The server offered an older version of a row than this machine already holds (a rollback or replay).
    case rolledBack(row: UUID, offered: Int64, known: Int64)
    /// A row was sealed in a record format newer than this build reads.
    case unsupportedRowFormat(row: UUID, format: Int16)
    /// A row's plaintext did not decode (a record this build cannot parse).
    case malformedRecord(row: UUID)
    /// An item cannot be synchronized (too large, or of a class without a table).
    case unsyncableItem(String)
    /// The sync database was migrated by a newer Latchkey than this one.
    case schemaTooNew(found: Int, known: Int)
    /// A push was refused by the server's compare-and-swap: the row is at another version.
    case conflict(row: UUID, serverVersion: Int64?)
    /// The sync server could not be reached or refused a statement (PostgreSQL's SQLSTATE and message,
    /// never a bound value).
    case server(String)
    /// The server refused what this machine asked (an unknown or used-up secret, a removed machine).
    case refused(String)

    /// The error a user sees: what happened in their terms, the next step, and the `OSStatus` code.
    package var keychainError: KeychainError {
        switch self {
        case .rowRefused(let row):
            KeychainError(
                .decode,
                "A synchronized item from the sync server failed its integrity check (row \(row)): the server "
                    + "moved, flipped, replayed or altered it. The item was not applied; check who can write "
                    + "to the sync database."
            )
        case .identityMismatch(let row):
            KeychainError(
                .decode,
                "A synchronized item from the sync server is stored under another item's identity (row \(row)). "
                    + "The item was not applied; check which machines can write to the sync database."
            )
        case .rolledBack(let row, let offered, let known):
            KeychainError(
                .decode,
                "The sync server offered version \(offered) of a synchronized item this machine already holds "
                    + "at version \(known) (row \(row)): a rollback or replay. The item was not applied; check "
                    + "whether the sync database was restored from an old backup."
            )
        case .unsupportedRowFormat(let row, let format):
            KeychainError(
                .notAvailable,
                "A synchronized item was written in record format \(format), which this Latchkey does not read "
                    + "(row \(row)). Update Latchkey on this machine."
            )
        case .malformedRecord(let row):
            KeychainError(
                .decode,
                "A synchronized item opened but its contents do not decode (row \(row)). The item was not "
                    + "applied; update Latchkey on this machine or report the machine that wrote it."
            )
        case .unsyncableItem(let reason):
            KeychainError(.param, "This item cannot be synchronized: \(reason).")
        case .schemaTooNew(let found, let known):
            KeychainError(
                .notAvailable,
                "The sync database has schema version \(found), newer than the version \(known) this Latchkey "
                    + "knows. Update Latchkey on this machine before syncing with it."
            )
        case .conflict(let row, let serverVersion):
            KeychainError(
                .duplicateItem,
                "A synchronized item changed on another machine first (row \(row), server version "
                    + "\(serverVersion.map(String.init) ?? "none")). Pull the newer version and merge before "
                    + "pushing again."
            )
        case .refused(let reason):
            KeychainError(.authFailed, "The sync server refused: \(reason).")
        case .server(let detail):
            KeychainError(
                .notAvailable,
                "The sync server could not complete the request: \(detail). Check that the PostgreSQL server "
                    + "is running and reachable, then sync again."
            )
        }
    }
}
