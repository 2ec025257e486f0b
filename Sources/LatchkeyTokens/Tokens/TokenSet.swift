import Foundation

/// The tokens of one signed-in account: access token, refresh token, type, absolute expiry, scope and
/// ID token, stored together as **one** keychain item so that they always change together.
///
/// The expiry is absolute (`expiresAt`), computed when the token response arrived, so a set read back
/// after a restart expires when it really does (persisting `expires_in` would restart the clock).
///
/// The tokens never print: `description`, `debugDescription` and `dump` show only the shape, and `==`
/// compares the tokens in constant time.
///
/// ```swift
/// let tokens = try await manager.validTokens()
/// print(tokens)   // TokenSet(Bearer, refresh token: yes, expires in 3594 s, scope: "read", redacted)
/// ```
public struct TokenSet: Sendable, Equatable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The access token, sent as `Authorization: Bearer <accessToken>`.
    public var accessToken: String
    /// The refresh token, if the server issued one (client-credentials sessions have none).
    public var refreshToken: String?
    /// The token type, normalised to `"Bearer"` (the only type this module sends).
    public var tokenType: String
    /// When the access token expires, or `nil` when the server gave no `expires_in` (then only a 401
    /// tells that it expired).
    public var expiresAt: Date?
    /// When the token response was received.
    public var issuedAt: Date
    /// The granted scope (space-separated), or `nil` when neither the server nor the request named one.
    public var scope: String?
    /// The OpenID Connect ID token, if the server sent one.
    public var idToken: String?
    /// The grant that started this session (refreshes keep it).
    public var grant: GrantType

    /// Makes a token set.
    ///
    /// - Parameters:
    ///   - accessToken: The access token.
    ///   - refreshToken: The refresh token, if any.
    ///   - tokenType: The token type (default `"Bearer"`).
    ///   - expiresAt: The absolute expiry, or `nil` if unknown.
    ///   - issuedAt: When the tokens were received (default now).
    ///   - scope: The granted scope.
    ///   - idToken: The OpenID Connect ID token.
    ///   - grant: The grant that started the session (default `.password`).
    public init(
        accessToken: String,
        refreshToken: String? = nil,
        tokenType: String = "Bearer",
        expiresAt: Date? = nil,
        issuedAt: Date = Date(),
        scope: String? = nil,
        idToken: String? = nil,
        grant: GrantType = .password
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.scope = scope
        self.idToken = idToken
        self.grant = grant
    }

    /// The access token's lifetime as issued (`expiresAt - issuedAt`), or `nil` if unknown.
    public var lifetime: TimeInterval? {
        expiresAt.map { $0.timeIntervalSince(issuedAt) }
    }

    /// The leeway actually used for this set: `leeway`, but at most half the token's lifetime, so that a
    /// 5-second token is not refreshed on every call by a 60-second leeway.
    ///
    /// - Parameter leeway: The configured leeway in seconds.
    /// - Returns: `min(leeway, lifetime / 2)` (or `leeway` when the lifetime is unknown), never negative.
    public func effectiveLeeway(_ leeway: TimeInterval) -> TimeInterval {
        guard let lifetime else { return max(0, leeway) }
        return max(0, min(leeway, lifetime / 2))
    }

    /// Whether the access token should be refreshed at `now`: it expires within the (clamped) leeway.
    ///
    /// A set without an expiry never needs a proactive refresh; a 401 `invalid_token` refreshes it.
    ///
    /// - Parameters:
    ///   - now: The current time.
    ///   - leeway: The configured leeway in seconds (clamped by `effectiveLeeway(_:)`).
    public func needsRefresh(at now: Date, leeway: TimeInterval) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt.addingTimeInterval(-effectiveLeeway(leeway))
    }

    /// Whether the access token has expired at `now` (no leeway).
    public func isExpired(at now: Date) -> Bool {
        guard let expiresAt else { return false }
        return now >= expiresAt
    }

    /// The value of the `Authorization` header: exactly `"Bearer <accessToken>"`.
    public var authorizationHeader: String { "Bearer " + accessToken }

    /// Dates equal to the microsecond: the stored form keeps seconds since 1970 as a `Double`, whose
    /// conversion to and from `Date`'s reference date can move the last bits.
    private static func sameInstant(_ lhs: Date?, _ rhs: Date?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let lhs?, let rhs?): abs(lhs.timeIntervalSince(rhs)) < 0.000_001
        default: false
        }
    }

    /// Compares every field (dates to the microsecond); the tokens in constant time.
    public static func == (lhs: TokenSet, rhs: TokenSet) -> Bool {
        var same = constantTimeEquals(lhs.accessToken, rhs.accessToken)
        same = constantTimeEquals(lhs.refreshToken ?? "", rhs.refreshToken ?? "") && same
        same = constantTimeEquals(lhs.idToken ?? "", rhs.idToken ?? "") && same
        return same && (lhs.refreshToken == nil) == (rhs.refreshToken == nil)
            && (lhs.idToken == nil) == (rhs.idToken == nil)
            && lhs.tokenType == rhs.tokenType && sameInstant(lhs.expiresAt, rhs.expiresAt)
            && sameInstant(lhs.issuedAt, rhs.issuedAt) && lhs.scope == rhs.scope && lhs.grant == rhs.grant
    }

    /// The shape only: type, whether a refresh token exists, the expiry and the scope; never a token.
    public var description: String {
        var parts = [tokenType, "refresh token: \(refreshToken == nil ? "no" : "yes")"]
        if let expiresAt {
            parts.append("expires \(expiresAt.formatted(.iso8601))")
        } else {
            parts.append("expiry unknown")
        }
        if let scope { parts.append("scope: \(scope.debugDescription)") }
        if idToken != nil { parts.append("ID token: yes") }
        return "TokenSet(\(parts.joined(separator: ", ")), redacted)"
    }

    /// Same as `description`.
    public var debugDescription: String { description }

    /// Hides the tokens from `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["redacted": description], displayStyle: .struct)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case version = "v"
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case issuedAt = "issued_at"
        case scope
        case idToken = "id_token"
        case grant
    }

    /// The stored format's version.
    static let formatVersion = 1

    /// Decodes the stored form: snake-case keys, dates as seconds since 1970, whatever the decoder's
    /// date strategy.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decodeIfPresent(Int.self, forKey: .version) ?? Self.formatVersion
        guard version == Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version,
                in: container,
                debugDescription: "Unsupported token set format \(version)."
            )
        }
        accessToken = try container.decode(String.self, forKey: .accessToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        tokenType = try container.decode(String.self, forKey: .tokenType)
        expiresAt = try container.decodeIfPresent(Double.self, forKey: .expiresAt).map(
            Date.init(timeIntervalSince1970:)
        )
        issuedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .issuedAt))
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        grant = try container.decodeIfPresent(GrantType.self, forKey: .grant) ?? .password
    }

    /// Encodes the stored form (see `init(from:)`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .version)
        try container.encode(accessToken, forKey: .accessToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encodeIfPresent(expiresAt?.timeIntervalSince1970, forKey: .expiresAt)
        try container.encode(issuedAt.timeIntervalSince1970, forKey: .issuedAt)
        try container.encodeIfPresent(scope, forKey: .scope)
        try container.encodeIfPresent(idToken, forKey: .idToken)
        try container.encode(grant, forKey: .grant)
    }
}

/// Compares two strings' UTF-8 bytes in time that depends only on their lengths.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
    if left.count != right.count { difference |= 1 }
    let count = max(left.count, right.count)
    for index in 0..<count {
        let a = index < left.count ? left[index] : 0
        let b = index < right.count ? right[index] : 0
        difference |= a ^ b
    }
    return difference == 0
}
