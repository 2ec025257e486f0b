import Foundation

/// One row as the server stores it: a cleartext header the server needs (to place, order and compare rows)
/// and the ciphertext of the record (`SyncEnvelope`).
///
/// Every header field is in the ciphertext's associated data, so a server that moves a row to another
/// UUID or keychain, flips its tombstone flag, changes its version, epoch, author or format, or alters a
/// byte is caught when a machine opens the row. What the header shows the server: how many rows a keychain
/// has, their padded sizes, when they change, and which machine wrote each one.
public struct SealedRow: Sendable, Hashable {
    /// The sync keychain the row belongs to.
    public var keychain: UUID
    /// The row's UUID: its item's identity (`ItemIdentity.rowID`).
    public var rowID: UUID
    /// The row's version: 1 when the item is first pushed, one more at every accepted push.
    public var version: Int64
    /// The key epoch whose sync key sealed the row.
    public var epoch: Int32
    /// Whether the row is a deleted item's tombstone.
    public var isTombstone: Bool
    /// The machine that sealed the row.
    public var author: UUID
    /// The record format of the plaintext (`1`).
    public var format: Int16
    /// `nonce (12) ‖ AES-256-GCM ciphertext of the padded record ‖ tag (16)`.
    public var ciphertext: Data

    /// Makes a row from its parts (a row read from the server, or one a test alters).
    ///
    /// - Parameters:
    ///   - keychain: The sync keychain.
    ///   - rowID: The row's UUID.
    ///   - version: The row's version.
    ///   - epoch: The key epoch.
    ///   - isTombstone: Whether it is a tombstone.
    ///   - author: The machine that sealed it.
    ///   - format: The record format.
    ///   - ciphertext: The sealed record.
    public init(
        keychain: UUID,
        rowID: UUID,
        version: Int64,
        epoch: Int32,
        isTombstone: Bool,
        author: UUID,
        format: Int16,
        ciphertext: Data
    ) {
        self.keychain = keychain
        self.rowID = rowID
        self.version = version
        self.epoch = epoch
        self.isTombstone = isTombstone
        self.author = author
        self.format = format
        self.ciphertext = ciphertext
    }

    /// The associated data of the row's ciphertext (exact bytes, docs/sync.md):
    ///
    /// ```
    /// "latchkey-sync-row-v1" ‖ keychain (16) ‖ row UUID (16) ‖ u64 version ‖ u32 epoch ‖ u8 tombstone
    ///                        ‖ author (16) ‖ u16 format
    /// ```
    var associatedData: Data { Data("latchkey-sync-row-v1".utf8) + header }

    /// The header's fields, as the associated data and the kept encoding (`encoded`) hold them:
    /// `keychain (16) ‖ row UUID (16) ‖ u64 version ‖ u32 epoch ‖ u8 tombstone ‖ author (16) ‖ u16 format`.
    var header: Data {
        var out = Data(capacity: 63)
        out.append(keychain.bytes)
        out.append(rowID.bytes)
        out.appendBigEndian(UInt64(bitPattern: version))
        out.appendBigEndian(UInt32(bitPattern: epoch))
        out.append(isTombstone ? 1 : 0)
        out.append(author.bytes)
        out.appendBigEndian(UInt16(bitPattern: format))
        return out
    }
}
