/// What the server did with one pushed row.
public enum PushOutcome: Sendable, Hashable {
    /// The row was stored: inserted at version 1, or the server's previous version replaced.
    case applied
    /// The server already held this exact row (same UUID, version and bytes): a re-sent push, nothing done.
    case alreadyApplied
    /// The compare-and-swap failed: the server holds another version, or other bytes under this version.
    /// `current` is the server's row (`nil` when it holds none and the pushed version was not 1).
    case conflict(current: SealedRow?)
}
