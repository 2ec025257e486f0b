import Foundation
import LatchkeyCrypto

/// A delete: which items, and how many of them.
public struct DeleteRequest: Sendable, Hashable {
    /// Which items.
    public var query: ItemQuery
    /// `.all` (Apple's `SecItemDelete`) or `.one` (the first match, `security delete-*-password`).
    public var limit: MatchLimit

    /// Makes a delete.
    public init(_ query: ItemQuery, limit: MatchLimit = .all) {
        self.query = query
        self.limit = limit
    }
}
