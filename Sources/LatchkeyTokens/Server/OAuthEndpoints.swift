import Foundation

/// Where an authorization server's endpoints are: the token endpoint, and the optional revocation,
/// device-authorization and authorization endpoints.
///
/// Give them directly, or discover them from the issuer (RFC 8414) with
/// `AuthorizationServerMetadata.discover(issuer:transport:)`:
///
/// ```swift
/// let endpoints = OAuthEndpoints(tokenEndpoint: URL(string: "https://id.example.com/oauth/token")!,
///                                revocationEndpoint: URL(string: "https://id.example.com/oauth/revoke")!)
/// let discovered = try await AuthorizationServerMetadata.discover(issuer: issuer).endpoints
/// ```
public struct OAuthEndpoints: Sendable, Hashable {
    /// The issuer identifier, when known (it names the keychain service by default).
    public var issuer: URL?
    /// The token endpoint (RFC 6749 §3.2).
    public var tokenEndpoint: URL
    /// The revocation endpoint (RFC 7009), used by `TokenManager.logout()`.
    public var revocationEndpoint: URL?
    /// The device authorization endpoint (RFC 8628 §3.1).
    public var deviceAuthorizationEndpoint: URL?
    /// The authorization endpoint (RFC 6749 §3.1), for the authorization-code flow.
    public var authorizationEndpoint: URL?

    /// Makes a set of endpoints.
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier, if known.
    ///   - tokenEndpoint: The token endpoint.
    ///   - revocationEndpoint: The revocation endpoint, if the server has one.
    ///   - deviceAuthorizationEndpoint: The device authorization endpoint, if used.
    ///   - authorizationEndpoint: The authorization endpoint, if used.
    public init(
        issuer: URL? = nil,
        tokenEndpoint: URL,
        revocationEndpoint: URL? = nil,
        deviceAuthorizationEndpoint: URL? = nil,
        authorizationEndpoint: URL? = nil
    ) {
        self.issuer = issuer
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.authorizationEndpoint = authorizationEndpoint
    }

    /// The default keychain service for these endpoints: the issuer, else the token endpoint's origin
    /// (`scheme://host[:port]`).
    public var defaultService: String {
        if let issuer { return issuer.absoluteString }
        guard let components = URLComponents(url: tokenEndpoint, resolvingAgainstBaseURL: false),
            let scheme = components.scheme, let host = components.host
        else { return tokenEndpoint.absoluteString }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
