import Crypto
import Foundation
import Latchkey

/// The keys one sync key gives: the key that seals rows and the key that names items.
///
/// Both are derived from the keychain's 256-bit sync key with HKDF-SHA256 under labels of their own, so a
/// key never serves two purposes:
///
/// ```
/// envelope key = HKDF-SHA256(sync key, salt: keychain id (16 bytes), info: "latchkey sync envelope v1")
/// identity key = HKDF-SHA256(sync key, salt: keychain id (16 bytes), info: "latchkey sync identity v1")
/// ```
///
/// Every machine of a keychain holding the same sync key derives the same two keys. How the sync key
/// reaches a machine (wrapped per machine in the server's key epochs) is not built yet (docs/sync.md).
///
/// `Sendable`: immutable.
public struct SyncKeys: Sendable {
    /// The sync keychain these keys belong to.
    public let keychain: UUID
    /// The key epoch of the sync key (bound into every row's associated data).
    public let epoch: Int32
    /// Seals and opens rows (AES-256-GCM).
    let envelopeKey: SymmetricKey
    /// Keys the HMAC that names items (`ItemIdentity`).
    let identityKey: SymmetricKey

    /// Derives the envelope and identity keys of `syncKey`.
    ///
    /// - Parameters:
    ///   - syncKey: The keychain's sync key, 32 bytes.
    ///   - keychain: The sync keychain's id (the HKDF salt, and part of every row's associated data).
    ///   - epoch: The key epoch `syncKey` belongs to.
    /// - Throws: `KeychainError.Code.param` when `syncKey` is not 32 bytes.
    public init(syncKey: SymmetricKey, keychain: UUID, epoch: Int32) throws(KeychainError) {
        guard syncKey.bitCount == 256 else {
            throw KeychainError(
                .param,
                "The sync key is \(syncKey.bitCount / 8) bytes; a sync key is 32 bytes. Use the key the keychain's "
                    + "sync set-up gave."
            )
        }
        self.keychain = keychain
        self.epoch = epoch
        let salt = keychain.bytes
        envelopeKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: syncKey,
            salt: salt,
            info: Data("latchkey sync envelope v1".utf8),
            outputByteCount: 32
        )
        identityKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: syncKey,
            salt: salt,
            info: Data("latchkey sync identity v1".utf8),
            outputByteCount: 32
        )
    }
}
