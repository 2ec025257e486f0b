import Foundation
import LatchkeyCrypto

/// One request to a keychain: the whole vocabulary every face (the Apple `SecItem*` calls, the typed
/// `Keychain`, the CLI, the token manager) speaks to the core.
///
/// A value of this type is `Sendable`, `Hashable` and `Codable`, so the same request is executed in
/// process by `KeychainStore` or carried over a socket to an agent (`KeychainWireCodec`). Every item rule
/// (defaults, uniqueness, matching, identities, access control, corrupt rows) is decided by the executor,
/// never by the face that builds the request.
public enum KeychainOperation: Sendable, Hashable, Codable {
    /// Adds one item (Apple's defaults, then uniqueness). Answers `.items([added])`.
    case add(NewItem)
    /// Adds several items all or nothing (a key pair; an identity's certificate and key with
    /// `tolerateExisting`). Answers `.items(added)`.
    case addAll([NewItem], tolerateExisting: Bool)
    /// Adds the item, or updates the exact live item an add would collide with (its search tags replaced by the
    /// new item's when it has some, else kept). Answers `.items([item])`.
    case upsert(NewItem)
    /// Updates the first live item matching `match` with `changes`, or adds `otherwise` when none matches,
    /// in one transaction (the typed API's `set`). Answers `.items([item])`.
    case updateFirstOrAdd(match: ItemQuery, changes: ItemChanges, otherwise: NewItem)
    /// Adds an archived item keeping its creation and modification dates; a live item with the same
    /// primary key is replaced only when asked. Answers `.restored`.
    case restore(NewItem, replacingExisting: Bool)
    /// Finds items. Answers `.items` (at least one) or throws `itemNotFound`.
    case find(FindRequest)
    /// Whether an item matches (from the search tokens alone when possible). Answers `.exists`.
    case exists(ItemQuery)
    /// Updates every match, all or nothing. Answers `.count` (at least one).
    case update(UpdateRequest)
    /// Deletes matches (synchronizable items leave tombstones). Answers `.count` (at least one).
    case delete(DeleteRequest)
    /// Runs operations in one transaction, all or nothing. A delete inside a batch that matches nothing
    /// answers `.count(0)` instead of failing. Answers `.batch` with one outcome per operation.
    indirect case batch([KeychainOperation])
    /// The lock state. Answers `.lockState`.
    case lockState
    /// Unlocks with a credential. Answers `.lockState`.
    case unlock(UnlockCredential)
    /// Locks (`WhenUnlocked` classes become unavailable). Answers `.lockState`.
    case lock
    /// The caller's access groups, in order. Answers `.accessGroups`.
    case accessGroups
    /// The change counter every committed item change bumps. Answers `.changeCounter`.
    case changeCounter
    /// The caller's items of one class whose stored rows fail authentication (damaged or tampered), named by
    /// class and persistent reference (`KeychainStore.damagedItems(_:includingSecrets:)`): what a backup or a
    /// dump asks before it reads everything. Answers `.damagedItems`.
    case damagedItems(ItemClass, includingSecrets: Bool)
    /// Checks the file, every item the lock state opens and the row ledger (`KeychainStore.verifyIntegrity()`);
    /// with `acceptingCurrentState`, then seals the rows as they are now (`KeychainStore.acceptCurrentRows()`).
    /// Answers `.integrity` with the report made before sealing.
    case verifyIntegrity(acceptingCurrentState: Bool)
    /// Replaces the passphrase (`new` is a `.passphrase`) or the key-file slot (a `.keyFile`) once `current` has
    /// unlocked the keychain, so that a client of an unlocked agent cannot change it without the credential.
    /// Answers `.lockState`.
    case changeCredential(current: UnlockCredential, new: UnlockCredential)
}
