/// The lock state of a keychain in this process, emulating iOS data protection.
public enum LockState: String, Sendable, Hashable, Codable {
    /// Not unlocked since this process opened the keychain: only `always` classes are readable.
    case neverUnlocked
    /// Unlocked: every class is readable.
    case unlocked
    /// Locked again after a first unlock: `afterFirstUnlock` and `always` classes stay readable.
    case locked

    /// The state in a user's words ("never unlocked", "unlocked", "locked"), for messages and human output;
    /// the raw value is the machine name (JSON, the wire).
    public var words: String {
        switch self {
        case .neverUnlocked: "never unlocked"
        case .unlocked: "unlocked"
        case .locked: "locked"
        }
    }
}
