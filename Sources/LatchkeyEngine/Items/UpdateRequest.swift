import Foundation
import LatchkeyCrypto

/// An update: which items and what changes.
public struct UpdateRequest: Sendable, Hashable {
    /// Which items.
    public var query: ItemQuery
    /// The new attribute values and secret.
    public var changes: ItemChanges
    /// What the caller has done about items whose secret needs user authentication.
    public var authentication: AuthenticationPolicy
    /// As `FindRequest.authenticationReuse`.
    public var authenticationReuse: TimeInterval?

    /// Makes an update.
    public init(
        _ query: ItemQuery,
        changes: ItemChanges,
        authentication: AuthenticationPolicy = .fail,
        authenticationReuse: TimeInterval? = AuthenticationReuse.duration
    ) {
        self.query = query
        self.changes = changes
        self.authentication = authentication
        self.authenticationReuse = authenticationReuse
    }
}
