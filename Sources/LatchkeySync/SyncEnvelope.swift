import Crypto
import Foundation
import Latchkey

/// Seals one item's record into a server row and opens it again, refusing any row the server moved,
/// flipped, replayed or altered.
///
/// Sealing pads the record (`RecordPadding`) and encrypts it with AES-256-GCM under the envelope key
/// (`SyncKeys`), a random 96-bit nonce, and the row's header as associated data (`SealedRow`). Opening
/// checks, in order: the row belongs to this keychain; its format is one this build reads; its version is
/// not older than the one this machine holds (`knownVersion`); the AEAD opens under the header the server
/// gave (any change to the row UUID, version, epoch, tombstone flag, author, keychain, format or a
/// ciphertext byte fails here); the record decodes, agrees with the tombstone flag, and its class and
/// primary key give the row's UUID (`ItemIdentity`).
///
/// ```swift
/// let envelope = SyncEnvelope(keys: keys, author: machineID)
/// let row = try envelope.seal(record, version: 1)
/// let record = try envelope.open(row, knownVersion: nil)
/// ```
///
/// Pure: no database, no clock.
public struct SyncEnvelope: Sendable {
    /// The keychain's sync keys.
    public let keys: SyncKeys
    /// This machine: the author of the rows it seals.
    public let author: UUID

    /// Makes an envelope for rows `author` seals under `keys`.
    ///
    /// - Parameters:
    ///   - keys: The keychain's sync keys.
    ///   - author: This machine's id.
    public init(keys: SyncKeys, author: UUID) {
        self.keys = keys
        self.author = author
    }

    /// Seals `record` as version `version` of its item's row.
    ///
    /// - Parameters:
    ///   - record: The item's record.
    ///   - version: The row's new version (1 for a new item, the server's version plus one for an edit).
    /// - Returns: The row to push.
    /// - Throws: `KeychainError.Code.param` for an identity or an item too large to encode.
    public func seal(_ record: SyncRecord, version: Int64) throws(KeychainError) -> SealedRow {
        do {
            return try sealRow(record, version: version)
        } catch {
            throw error.keychainError
        }
    }

    /// Opens `row`, as `seal(_:version:)` made it.
    ///
    /// - Parameters:
    ///   - row: The row the server returned.
    ///   - knownVersion: The version of this row this machine already holds, if any: an older row is a
    ///     rollback and is refused.
    /// - Returns: The item's record.
    /// - Throws: `KeychainError.Code.decode` for a row that fails any check above,
    ///   `KeychainError.Code.notAvailable` for a row of a newer record format.
    public func open(_ row: SealedRow, knownVersion: Int64? = nil) throws(KeychainError) -> SyncRecord {
        do {
            return try openRow(row, knownVersion: knownVersion)
        } catch {
            throw error.keychainError
        }
    }

    /// `seal(_:version:)`, throwing the layer's error.
    package func sealRow(_ record: SyncRecord, version: Int64) throws(SyncError) -> SealedRow {
        let identity = try ItemIdentity(of: record.itemClass, attributes: record.attributes, keys: keys)
        var row = SealedRow(
            keychain: keys.keychain,
            rowID: identity.rowID,
            version: version,
            epoch: keys.epoch,
            isTombstone: record.isTombstone,
            author: author,
            format: SyncRecord.format,
            ciphertext: Data()
        )
        var encoded = try record.encoded()
        var plaintext = RecordPadding.pad(Data(encoded))
        defer {
            for index in encoded.indices { encoded[index] = 0 }
            plaintext.resetBytes(in: 0..<plaintext.count)
        }
        do {
            let box = try AES.GCM.seal(plaintext, using: keys.envelopeKey, authenticating: row.associatedData)
            guard let combined = box.combined else { throw SyncError.unsyncableItem("the sealed box has no nonce") }
            row.ciphertext = combined
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError.unsyncableItem("AES-GCM refused to seal it")
        }
        return row
    }

    /// `open(_:knownVersion:)`, throwing the layer's error.
    package func openRow(_ row: SealedRow, knownVersion: Int64? = nil) throws(SyncError) -> SyncRecord {
        guard row.keychain == keys.keychain else { throw SyncError.rowRefused(row: row.rowID) }
        if row.format > SyncRecord.format {
            throw SyncError.unsupportedRowFormat(row: row.rowID, format: row.format)
        }
        guard row.format == SyncRecord.format else { throw SyncError.rowRefused(row: row.rowID) }
        if let knownVersion, row.version < knownVersion {
            throw SyncError.rolledBack(row: row.rowID, offered: row.version, known: knownVersion)
        }
        var plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: row.ciphertext)
            plaintext = try AES.GCM.open(box, using: keys.envelopeKey, authenticating: row.associatedData)
        } catch {
            throw SyncError.rowRefused(row: row.rowID)
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        guard var encoded = RecordPadding.unpad(plaintext), let record = SyncRecord.decode(encoded) else {
            throw SyncError.malformedRecord(row: row.rowID)
        }
        encoded.resetBytes(in: 0..<encoded.count)
        guard record.isTombstone == row.isTombstone else { throw SyncError.rowRefused(row: row.rowID) }
        let identity = try ItemIdentity(of: record.itemClass, attributes: record.attributes, keys: keys)
        guard identity.rowID == row.rowID else { throw SyncError.identityMismatch(row: row.rowID) }
        return record
    }
}
