/// The rows one pull returned and where the next pull resumes.
public struct PullBatch: Sendable {
    /// The rows, in `(xid, row UUID)` order: each row's newest committed version at the time of the pull.
    public let rows: [SealedRow]
    /// The cursor after the last row returned (the given cursor when none was).
    public let cursor: SyncCursor
}
