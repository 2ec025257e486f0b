import Foundation

/// One pending `org.freedesktop.Secret.Prompt`: what `Unlock` could not do without asking the user.
///
/// Made by `Unlock` for one connection; `Prompt` asks (the keychain passphrase when the keychain is
/// locked, then one question per owner whose items the caller does not yet hold) on another thread, and
/// the `Completed` signal carries the objects that are unlocked for the caller afterwards.
struct SecretPrompt {
    /// The connection that may run it.
    var caller: String
    /// The objects `Unlock` was asked for.
    var objects: [String]
    /// The owners of items in `objects` that the caller must be allowed to use.
    var owners: [String]
    /// Keychain items in `objects` whose owners could not be read (the keychain was locked): read after the
    /// passphrase, and asked about in the same prompt.
    var unreadOwners: [String] = []
    /// Whether the keychain itself must be unlocked first.
    var unlocksKeychain: Bool
    /// Whether `Prompt` was called (a second call is ignored).
    var started = false
}
