import Foundation

/// One pending `org.freedesktop.Secret.Prompt`: what a call could not do without asking the user.
///
/// Made by `Unlock` (the keychain's passphrase, other applications' items and collections), or by
/// `Collection.Delete` and `Lock` when the caller needs other owners' consent (docs/secret-service.md,
/// "Confinement"), for one connection; `Prompt` asks (the keychain passphrase when the keychain is locked,
/// then one question per owner the caller does not yet hold) on another thread, and the `Completed` signal
/// carries the result afterwards.
struct SecretPrompt {
    /// What the prompt does once answered.
    enum Action: Equatable {
        /// Unlocks `objects`: `Completed` lists those the caller may use afterwards.
        case unlock
        /// Deletes (or, for `session`, empties) the collection, when every owner was allowed.
        case deleteCollection(String)
        /// Locks the keychain, when every owner was allowed.
        case lock
    }

    /// The connection that may run it.
    var caller: String
    /// The objects `Unlock` or `Lock` was asked for.
    var objects: [String]
    /// The owners of items or collections in `objects` that the caller must be allowed to use.
    var owners: [String]
    /// Keychain items in `objects` whose owners could not be read (the keychain was locked): read after the
    /// passphrase, and asked about in the same prompt.
    var unreadOwners: [String] = []
    /// Whether the keychain itself must be unlocked first.
    var unlocksKeychain: Bool
    /// What it does.
    var action: Action = .unlock
    /// The question's `action` per owner, where it is more than using the owner's items
    /// (`SecretServiceApplications.Question.action`).
    var actions: [String: String] = [:]
    /// Whether `Prompt` was called (a second call is ignored).
    var started = false
}
