import Foundation
import Latchkey

/// How the Secret Service tells applications apart and asks the user, supplied by the agent that runs it
/// (docs/secret-service.md, "Confinement").
///
/// In `confined` mode an item belongs to the application that created it (its executable, or the script of
/// an interpreter, found from the caller's process id as the bus daemon reports it). Another application
/// sees the item as locked: `Unlock` on it returns a prompt that asks the user (Always allow, Allow once,
/// Deny). In `shared` mode every client of the session bus sees every item unlocked, as with gnome-keyring.
public struct SecretServiceApplications: Sendable {
    /// Whether items are confined to the application that stored them.
    public enum Mode: String, Sendable, CaseIterable {
        /// Each application sees its own items; others' ask the user first (the default).
        case confined
        /// Every client sees every item (gnome-keyring's behaviour).
        case shared
    }

    /// A question for the user: may `identity` use the items that `owner` stored?
    public struct Question: Sendable, Hashable {
        /// The asking application (an executable or a script).
        public var identity: String
        /// Its process id.
        public var process: Int32
        /// The application that stored the items.
        public var owner: String
        /// The access-policy group a remembered "Always allow" is written under (`group(ofOwner:)`).
        public var group: String
        /// What the caller asks to do when it is more than using the owner's items (changing, locking or
        /// deleting a collection or an alias), as the end of "Allow <identity> (pid <n>) to …"; `nil` for using
        /// the items.
        public var action: String?

        /// A question.
        public init(identity: String, process: Int32, owner: String, group: String, action: String? = nil) {
            self.identity = identity
            self.process = process
            self.owner = owner
            self.group = group
            self.action = action
        }

        /// The question as the user reads it: "Allow <identity> (pid <n>) to use the secrets that <owner>
        /// stored in the Secret Service?", or to do `action`.
        public var text: String {
            "Allow \(identity) (pid \(process)) to "
                + (action ?? "use the secrets that \(owner) stored in the Secret Service") + "?"
        }
    }

    /// The mode.
    public var mode: Mode
    /// The application identity of a process (its executable, or an interpreter's script), `nil` when it
    /// cannot be read.
    public var identify: @Sendable (_ process: Int32) -> String?
    /// Whether `identity`, found earlier for process `process`, holds `group` in the agent's access policy (an
    /// "Always allow" remembered earlier, or `latchkey access grant`); a content pin is checked against the
    /// process's running image.
    public var holds: @Sendable (_ identity: String, _ process: Int32, _ group: String) -> Bool
    /// Asks the user; true for Always allow (which the agent remembers under the question's group) and
    /// Allow once, false for Deny, no answer or no prompter. `nil` when the agent has no prompter.
    public var ask: (@Sendable (_ question: Question) -> Bool)?
    /// What a caller did with items, for the agent's access log (`record`).
    public enum Access: String, Sendable, Hashable {
        /// `GetSecret`, `GetSecrets`.
        case read
        /// `CreateItem`, `SetSecret`.
        case write
        /// `Item.Delete`.
        case delete
    }

    /// Records an access in the agent's access log: what, by which caller (its identity, `nil` when it has
    /// none, and its process id), to the items with these labels. `nil` records nothing.
    public var record:
        (@Sendable (_ access: Access, _ identity: String?, _ process: Int32, _ labels: [String]) -> Void)?
    /// Asks the user for the keychain passphrase and unlocks the agent's keychain with it; `nil` when the
    /// agent has no prompter (then `latchkey unlock` is the way).
    public var unlock: (@Sendable () throws(KeychainError) -> Void)?

    /// Applications as the agent identifies and asks them.
    ///
    /// - Parameters:
    ///   - mode: Confined or shared.
    ///   - identify: A process's application identity.
    ///   - holds: Whether an identity holds a policy group.
    ///   - ask: The user's answer to a question, or `nil` without a prompter.
    ///   - unlock: Unlocks the keychain after asking for its passphrase, or `nil` without a prompter.
    ///   - record: Records reads, writes and deletes in the agent's access log, or `nil`.
    public init(
        mode: Mode,
        identify: @escaping @Sendable (_ process: Int32) -> String?,
        holds: @escaping @Sendable (_ identity: String, _ process: Int32, _ group: String) -> Bool,
        ask: (@Sendable (_ question: Question) -> Bool)?,
        unlock: (@Sendable () throws(KeychainError) -> Void)?,
        record: (@Sendable (_ access: Access, _ identity: String?, _ process: Int32, _ labels: [String]) -> Void)? = nil
    ) {
        self.record = record
        self.mode = mode
        self.identify = identify
        self.holds = holds
        self.ask = ask
        self.unlock = unlock
    }

    /// The access-policy group that lets an application use the Secret Service items `owner` stored:
    /// `org.freedesktop.secrets:` and the owner's path (listed by `latchkey access list`, revoked with
    /// `latchkey access revoke`).
    public static func group(ofOwner owner: String) -> String {
        SecretItemStore.accessGroup + ":" + owner
    }
}
