import Foundation
import LatchkeyCrypto

/// A search: which items, how many, with or without their secrets.
public struct FindRequest: Sendable, Hashable {
    /// Which items.
    public var query: ItemQuery
    /// How many (default one).
    public var limit: MatchLimit
    /// Whether to decrypt and return secrets.
    public var withData: Bool
    /// What to do with items whose secret needs user authentication (only when `withData`).
    public var authentication: AuthenticationPolicy
    /// What to do with corrupt rows.
    public var corruptRows: CorruptRowPolicy
    /// How many seconds an earlier confirmation of the user's presence may be reused for this request
    /// (`LAContext.touchIDAuthenticationAllowableReuseDuration`, at most 300), or `nil` for none. Only the
    /// agent, which confirms presence itself, reads it; it defaults to `AuthenticationReuse.duration`.
    public var authenticationReuse: TimeInterval?
    /// Whether to read each match's search tags back from its encrypted record (`FoundItem.searchTags`):
    /// what a backup or a migration asks, so that copies keep their tags. Off by default; a search without it
    /// never decodes the tags' text.
    public var withSearchTags: Bool
    /// Whether to answer from the search index alone: each match's persistent reference and class, no
    /// attributes, no secret, no record opened. It needs only the index key, so it works while the keychain is
    /// locked when the device secret opens that key (a locked Secret Service lists its items this way). Every
    /// filter must have a token column, or be a search tag; as no record is opened, a tag is taken from the
    /// index without the check against the record's sealed copy, so a row added to the file can add a
    /// candidate: open each one (once unlocked) and check it before trusting it. Not with `withData`,
    /// `withSearchTags`, identities or `hostOrSubdomain` (`param`, -50).
    public var referencesOnly: Bool

    /// Makes a search.
    ///
    /// - Parameters:
    ///   - query: Which items.
    ///   - limit: How many (default one).
    ///   - withData: Whether to decrypt and return secrets.
    ///   - authentication: What to do with items whose secret needs user authentication.
    ///   - corruptRows: What to do with corrupt rows.
    ///   - authenticationReuse: How long an earlier presence confirmation may be reused.
    ///   - withSearchTags: Whether to return each match's search tags (`FoundItem.searchTags`).
    ///   - referencesOnly: Whether to answer with persistent references from the index alone.
    public init(
        _ query: ItemQuery,
        limit: MatchLimit = .one,
        withData: Bool = false,
        authentication: AuthenticationPolicy = .fail,
        corruptRows: CorruptRowPolicy = .report,
        authenticationReuse: TimeInterval? = AuthenticationReuse.duration,
        withSearchTags: Bool = false,
        referencesOnly: Bool = false
    ) {
        self.query = query
        self.limit = limit
        self.withData = withData
        self.authentication = authentication
        self.corruptRows = corruptRows
        self.authenticationReuse = authenticationReuse
        self.withSearchTags = withSearchTags
        self.referencesOnly = referencesOnly
    }
}
