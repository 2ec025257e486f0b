import Foundation

/// An authorization server's metadata document (RFC 8414; OpenID Connect Discovery has the same fields).
///
/// ```swift
/// let metadata = try await AuthorizationServerMetadata.discover(issuer: URL(string: "https://id.example.com")!)
/// var endpoints = metadata.endpoints
/// endpoints.deviceAuthorizationEndpoint ??= fallback   // some servers omit it
/// ```
public struct AuthorizationServerMetadata: Sendable, Hashable, Decodable {
    /// The issuer identifier; `discover` checks that it is the one asked for (RFC 8414 §3.3).
    public var issuer: URL
    /// The token endpoint.
    public var tokenEndpoint: URL?
    /// The authorization endpoint.
    public var authorizationEndpoint: URL?
    /// The revocation endpoint (RFC 7009).
    public var revocationEndpoint: URL?
    /// The introspection endpoint (RFC 7662).
    public var introspectionEndpoint: URL?
    /// The device authorization endpoint (RFC 8628 §4).
    public var deviceAuthorizationEndpoint: URL?
    /// The grant types the server supports, if it says.
    public var grantTypesSupported: [String]?
    /// The PKCE methods the server supports, if it says.
    public var codeChallengeMethodsSupported: [String]?
    /// The scopes the server supports, if it says.
    public var scopesSupported: [String]?

    private enum CodingKeys: String, CodingKey {
        case issuer
        case tokenEndpoint = "token_endpoint"
        case authorizationEndpoint = "authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case scopesSupported = "scopes_supported"
    }

    /// The endpoints for a `TokenManager.Configuration`.
    ///
    /// - Throws: `TokenError.Code.configuration` when the document has no token endpoint.
    public func endpoints() throws(TokenError) -> OAuthEndpoints {
        guard let tokenEndpoint else {
            throw TokenError(.configuration, "The server's metadata names no token endpoint.")
        }
        return OAuthEndpoints(
            issuer: issuer,
            tokenEndpoint: tokenEndpoint,
            revocationEndpoint: revocationEndpoint,
            deviceAuthorizationEndpoint: deviceAuthorizationEndpoint,
            authorizationEndpoint: authorizationEndpoint
        )
    }

    /// The places a metadata document for `issuer` may be, in the order they are tried: RFC 8414's
    /// (`/.well-known/oauth-authorization-server` inserted before the issuer's path), the same suffix
    /// appended to the issuer (servers mounted under a prefix), then OpenID Connect Discovery's
    /// (`<issuer>/.well-known/openid-configuration`).
    public static func candidateURLs(for issuer: URL) -> [URL] {
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return [] }
        components.query = nil
        components.fragment = nil
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        var urls: [URL] = []
        var inserted = components
        inserted.path = "/.well-known/oauth-authorization-server" + path
        if let url = inserted.url { urls.append(url) }
        if !path.isEmpty {
            var appended = components
            appended.path = path + "/.well-known/oauth-authorization-server"
            if let url = appended.url { urls.append(url) }
        }
        var openID = components
        openID.path = path + "/.well-known/openid-configuration"
        if let url = openID.url { urls.append(url) }
        return urls
    }

    /// Fetches and checks the metadata of `issuer` (RFC 8414 §3), trying `candidateURLs(for:)` in order
    /// until one answers 200.
    ///
    /// Metadata responses are not cached by this call; keep the result (or the `OAuthEndpoints`) for the
    /// app's lifetime.
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier, for example `https://id.example.com` or `https://host/tenant`.
    ///   - transport: How to send the requests (default AsyncHTTPClient).
    /// - Returns: The document, whose `issuer` equals `issuer` (a trailing slash aside).
    /// - Throws: `invalidResponse` when no candidate answers with a document, or its `issuer` differs (a
    ///   mix-up or impersonation attempt); `network` or `serverUnavailable` when the server cannot answer.
    public static func discover(
        issuer: URL,
        transport: any TokenTransport = AsyncHTTPClientTransport()
    ) async throws(TokenError) -> AuthorizationServerMetadata {
        for url in candidateURLs(for: issuer) {
            var request = TransportRequest(url: url)
            request.setHeader("Accept", "application/json")
            let response: TransportResponse
            do {
                response = try await transport.send(request)
            } catch {
                throw TokenError.wrap(error)
            }
            if response.status == 404 || response.status == 405 { continue }
            if response.status == 429 || response.status >= 500 {
                throw TokenError(
                    .serverUnavailable,
                    "The authorization server could not serve its metadata now; try again later.",
                    httpStatus: response.status,
                    retryAfter: RetryAfter.parse(response.header("Retry-After"))
                )
            }
            guard response.status == 200 else { continue }
            let metadata: AuthorizationServerMetadata
            do {
                metadata = try JSONDecoder().decode(AuthorizationServerMetadata.self, from: response.body)
            } catch {
                throw TokenError(
                    .invalidResponse,
                    "The server's metadata document is not valid JSON metadata.",
                    httpStatus: 200
                )
            }
            guard Self.sameIssuer(metadata.issuer, issuer) else {
                throw TokenError(
                    .invalidResponse,
                    "The metadata document names another issuer than the one asked for (RFC 8414 §3.3); it was rejected."
                )
            }
            return metadata
        }
        throw TokenError(.invalidResponse, "The server publishes no authorization server metadata for this issuer.")
    }

    /// Issuer identifiers compare as strings, ignoring one trailing slash.
    static func sameIssuer(_ lhs: URL, _ rhs: URL) -> Bool {
        func trimmed(_ url: URL) -> String {
            var text = url.absoluteString
            if text.hasSuffix("/") { text.removeLast() }
            return text
        }
        return trimmed(lhs) == trimmed(rhs)
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay seconds or an HTTP date.
enum RetryAfter {
    /// The delay, or `nil` when absent or unparseable; negative delays become zero.
    static func parse(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSince(now).rounded(.up))))
    }
}
