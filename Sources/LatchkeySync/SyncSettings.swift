import Crypto
import Foundation
import Latchkey

/// What one machine needs to sync a keychain file: where the database is, which sync keychain, which machine
/// it is, and the sync key.
///
/// Stored in the keychain file itself, sealed under its `afterFirstUnlockThisDeviceOnly` class key
/// (`ItemTransaction.setSyncSettings`): the sync key and the database password never sit in a file of their
/// own, and never leave the machine with a synchronizable item. `description` redacts both.
struct SyncSettings: Codable, Sendable, CustomStringConvertible {
    /// The PostgreSQL URL, with its password if it has one.
    var databaseURL: String
    /// The sync keychain's id (shared by every machine that syncs it).
    var keychain: UUID
    /// This machine's id.
    var machine: UUID
    /// The key epoch of `syncKey`.
    var epoch: Int32
    /// The 32-byte sync key.
    var syncKey: Data
    /// This machine's X25519 private key (its public half is in `latchkey_machines`).
    var machineKey: Data

    /// The envelope for this machine's rows.
    func envelope() throws(KeychainError) -> SyncEnvelope {
        SyncEnvelope(
            keys: try SyncKeys(syncKey: SymmetricKey(data: syncKey), keychain: keychain, epoch: epoch),
            author: machine
        )
    }

    /// The settings as stored (JSON).
    func encoded() throws(KeychainError) -> Data {
        do {
            return try JSONEncoder().encode(self)
        } catch {
            throw KeychainError(.internalComponent, "The sync settings could not be encoded.")
        }
    }

    /// Decodes stored settings.
    static func decode(_ data: Data) throws(KeychainError) -> SyncSettings {
        do {
            return try JSONDecoder().decode(SyncSettings.self, from: data)
        } catch {
            throw KeychainError(
                .decode,
                "The keychain's sync settings do not decode; run `latchkey sync leave` and join again."
            )
        }
    }

    /// The keychain, machine and database without its password.
    var description: String {
        "SyncSettings(keychain \(keychain), machine \(machine), epoch \(epoch), \(SyncDatabaseURL.redacted(databaseURL)))"
    }
}
