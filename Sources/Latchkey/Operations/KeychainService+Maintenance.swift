import Foundation
import LatchkeyCrypto

/// The keychain-wide requests of the command line (backups, verification, credentials), for a keychain
/// opened in process or the per-user agent's client alike: each is one `KeychainOperation`.
extension KeychainService {
    /// The items of `itemClass` this caller may see whose stored rows fail authentication (see
    /// `KeychainStore.damagedItems(_:includingSecrets:)` and `KeychainOperation.damagedItems`).
    ///
    /// - Throws: `interactionNotAllowed` when a visible row's class is locked; the service's errors.
    public func damagedItems(_ itemClass: ItemClass, includingSecrets: Bool) throws(KeychainError) -> [DamagedItem] {
        try perform(.damagedItems(itemClass, includingSecrets: includingSecrets)).damagedItems()
    }

    /// Checks the file, every item the lock state opens and the row ledger, then, when asked, seals the rows as
    /// they are now (see `KeychainOperation.verifyIntegrity`).
    ///
    /// - Returns: The report made before any sealing.
    /// - Throws: `interactionNotAllowed` when `acceptingCurrentState` and the keychain is locked.
    public func verifyIntegrity(acceptingCurrentState: Bool) throws(KeychainError) -> IntegrityReport {
        try perform(.verifyIntegrity(acceptingCurrentState: acceptingCurrentState)).integrity()
    }

    /// Replaces the passphrase (`new` is a `.passphrase`) or the key-file slot (a `.keyFile`) once `current`
    /// has unlocked the keychain (see `KeychainOperation.changeCredential`).
    ///
    /// - Throws: `authFailed` (-25293) when `current` does not unlock the keychain; the store's errors.
    public func changeCredential(current: UnlockCredential, to new: UnlockCredential) throws(KeychainError) {
        _ = try perform(.changeCredential(current: current, new: new))
    }
}
