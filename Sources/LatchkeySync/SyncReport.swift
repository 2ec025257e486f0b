/// What one `KeychainSync.syncNow()` did.
public struct SyncReport: Sendable, Hashable, Codable {
    /// Rows this machine's changes were sent as (accepted by the server).
    public var sent = 0
    /// Rows from other machines applied to this keychain.
    public var applied = 0
    /// Concurrent edits decided (one side kept in the history).
    public var conflicts = 0
    /// Rows refused: they failed their integrity check, or may not be stored here.
    public var refused = 0
    /// Why the last refused row was refused.
    public var lastRefusal: String?

    /// An empty report.
    public init() {}
}
