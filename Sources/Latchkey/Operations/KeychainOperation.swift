import Foundation
import LatchkeyCrypto

/// One request to a keychain: the whole vocabulary every face (the Apple `SecItem*` calls, the typed
/// `Keychain`, the CLI, the token manager) speaks to the core.
///
/// A value is `Sendable` and `Hashable`; the same request is executed in process by the engine or carried
/// over a socket to an agent in the one wire form of docs/wire-protocol.md (`KeychainWireCodec`). Every
/// item rule (defaults, uniqueness, matching, identities, access control, corrupt rows) is decided by the
/// executor, never by the face that builds the request.
///
/// Build operations with the static functions (`.find(FindRequest(query))`, `.lockState`). The set of
/// operations grows from release to release without breaking callers: an operation is a struct, not an
/// enum, so there is no exhaustive `switch` to break; code that must tell operations apart reads `kind`,
/// an open set of values, and keeps a `default:` branch.
///
/// ```swift
/// let outcome = try service.perform(.find(FindRequest(ItemQuery(.genericPassword), limit: .all)))
/// switch operation.kind {
/// case .find, .exists: print("a read")
/// default: print("something else")
/// }
/// ```
public struct KeychainOperation: Sendable, Hashable {
    /// The operation and its values; switched over exhaustively inside the package only, so that adding a
    /// case points at every executor and codec, never at a caller's code.
    package enum Storage: Sendable, Hashable {
        case add(NewItem)
        case addAll([NewItem], tolerateExisting: Bool)
        case upsert(NewItem)
        case updateFirstOrAdd(match: ItemQuery, changes: ItemChanges, otherwise: NewItem)
        case restore(NewItem, replacingExisting: Bool)
        case find(FindRequest)
        case exists(ItemQuery)
        case update(UpdateRequest)
        case delete(DeleteRequest)
        indirect case batch([KeychainOperation])
        case lockState
        case unlock(UnlockCredential)
        case lock
        case accessGroups
        case changeCounter
        case damagedItems(ItemClass, includingSecrets: Bool)
        case verifyIntegrity(acceptingCurrentState: Bool)
        case changeCredential(current: UnlockCredential, new: UnlockCredential)
    }

    /// The operation and its values.
    package let storage: Storage

    /// Wraps one case of the package's storage.
    package init(_ storage: Storage) {
        self.storage = storage
    }

    /// Adds one item (Apple's defaults, then uniqueness). Answers `.items([added])`.
    public static func add(_ item: NewItem) -> Self { Self(.add(item)) }

    /// Adds several items all or nothing (a key pair; an identity's certificate and key with
    /// `tolerateExisting`). Answers `.items(added)`.
    public static func addAll(_ items: [NewItem], tolerateExisting: Bool) -> Self {
        Self(.addAll(items, tolerateExisting: tolerateExisting))
    }

    /// Adds the item, or updates the exact live item an add would collide with (its search tags replaced by the
    /// new item's when it has some, else kept). Answers `.items([item])`.
    public static func upsert(_ item: NewItem) -> Self { Self(.upsert(item)) }

    /// Updates the first live item matching `match` with `changes`, or adds `otherwise` when none matches,
    /// in one transaction (the typed API's `set`). Answers `.items([item])`.
    public static func updateFirstOrAdd(match: ItemQuery, changes: ItemChanges, otherwise: NewItem) -> Self {
        Self(.updateFirstOrAdd(match: match, changes: changes, otherwise: otherwise))
    }

    /// Adds an archived item keeping its creation and modification dates; a live item with the same
    /// primary key is replaced only when asked. Answers `.restored`.
    public static func restore(_ item: NewItem, replacingExisting: Bool) -> Self {
        Self(.restore(item, replacingExisting: replacingExisting))
    }

    /// Finds items. Answers `.items` (at least one) or throws `itemNotFound`.
    public static func find(_ request: FindRequest) -> Self { Self(.find(request)) }

    /// Whether an item matches (from the search tokens alone when possible). Answers `.exists`.
    public static func exists(_ query: ItemQuery) -> Self { Self(.exists(query)) }

    /// Updates every match, all or nothing. Answers `.count` (at least one).
    public static func update(_ request: UpdateRequest) -> Self { Self(.update(request)) }

    /// Deletes matches (synchronizable items leave tombstones). Answers `.count` (at least one).
    public static func delete(_ request: DeleteRequest) -> Self { Self(.delete(request)) }

    /// Runs operations in one transaction, all or nothing. A delete inside a batch that matches nothing
    /// answers `.count(0)` instead of failing. Answers `.batch` with one outcome per operation.
    public static func batch(_ operations: [KeychainOperation]) -> Self { Self(.batch(operations)) }

    /// The lock state. Answers `.lockState`.
    public static var lockState: Self { Self(.lockState) }

    /// Unlocks with a credential. Answers `.lockState`.
    public static func unlock(_ credential: UnlockCredential) -> Self { Self(.unlock(credential)) }

    /// Locks (`WhenUnlocked` classes become unavailable). Answers `.lockState`.
    public static var lock: Self { Self(.lock) }

    /// The caller's access groups, in order. Answers `.accessGroups`.
    public static var accessGroups: Self { Self(.accessGroups) }

    /// The change counter every committed item change bumps. Answers `.changeCounter`.
    public static var changeCounter: Self { Self(.changeCounter) }

    /// The caller's items of one class whose stored rows fail authentication (damaged or tampered), named by
    /// class and persistent reference: what a backup or a dump asks before it reads everything. Answers
    /// `.damagedItems`.
    public static func damagedItems(_ itemClass: ItemClass, includingSecrets: Bool) -> Self {
        Self(.damagedItems(itemClass, includingSecrets: includingSecrets))
    }

    /// Checks the file, every item the lock state opens and the row ledger; with `acceptingCurrentState`, then
    /// seals the rows as they are now. Answers `.integrity` with the report made before sealing.
    public static func verifyIntegrity(acceptingCurrentState: Bool) -> Self {
        Self(.verifyIntegrity(acceptingCurrentState: acceptingCurrentState))
    }

    /// Replaces the passphrase (`new` is a `.passphrase`) or the key-file slot (a `.keyFile`) once `current` has
    /// unlocked the keychain, so that a client of an unlocked agent cannot change it without the credential.
    /// Answers `.lockState`.
    public static func changeCredential(current: UnlockCredential, new: UnlockCredential) -> Self {
        Self(.changeCredential(current: current, new: new))
    }
}
