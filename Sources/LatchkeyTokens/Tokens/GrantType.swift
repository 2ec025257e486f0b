/// An OAuth 2.0 grant type (`grant_type`), as sent to the token endpoint.
///
/// A `TokenSet` remembers the grant that started its session: a client-credentials session has no
/// refresh token (RFC 6749 §4.4.3), so "refreshing" it runs the client-credentials grant again.
public struct GrantType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The `grant_type` value.
    public let rawValue: String

    /// Wraps a `grant_type` value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The resource-owner password grant (RFC 6749 §4.3): the classic login form.
    public static let password = GrantType(rawValue: "password")
    /// The client-credentials grant (RFC 6749 §4.4): a service acting for itself.
    public static let clientCredentials = GrantType(rawValue: "client_credentials")
    /// The refresh-token grant (RFC 6749 §6).
    public static let refreshToken = GrantType(rawValue: "refresh_token")
    /// The authorization-code grant (RFC 6749 §4.1), with PKCE (RFC 7636).
    public static let authorizationCode = GrantType(rawValue: "authorization_code")
    /// The device authorization grant (RFC 8628).
    public static let deviceCode = GrantType(rawValue: "urn:ietf:params:oauth:grant-type:device_code")

    /// The `grant_type` value.
    public var description: String { rawValue }

    /// Decodes the bare string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the bare string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
