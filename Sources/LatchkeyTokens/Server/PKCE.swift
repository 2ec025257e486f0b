import Crypto
import Foundation

/// A Proof Key for Code Exchange pair (RFC 7636) with the `S256` method: a random verifier kept in
/// memory and the challenge sent in the authorization URL.
///
/// ```swift
/// let pkce = PKCE()
/// pkce.challenge        // BASE64URL(SHA256(verifier)), 43 characters
/// pkce.method           // "S256"
/// ```
///
/// The verifier is 32 bytes from the system's CSPRNG, base64url-encoded (43 characters of
/// `[A-Za-z0-9-_]`). `plain` is not offered (RFC 9700 §2.1.1). The verifier never prints.
public struct PKCE: Sendable, CustomStringConvertible {
    /// The code verifier, sent with the code exchange.
    public let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    public let challenge: String
    /// Always `"S256"`.
    public var method: String { "S256" }

    /// Makes a fresh pair from 32 random bytes.
    public init() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        self.init(verifier: Self.base64URL(bytes))
    }

    /// Makes the pair for a given verifier (for known-answer tests).
    ///
    /// - Parameter verifier: 43 to 128 characters of `[A-Za-z0-9-._~]` (RFC 7636 §4.1); not checked here.
    public init(verifier: String) {
        self.verifier = verifier
        self.challenge = Self.base64URL(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// Base64url without padding (RFC 7636 Appendix A).
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The method and challenge; never the verifier.
    public var description: String { "PKCE(method: S256, challenge: \(challenge))" }
}

/// An authorization-code request (RFC 6749 §4.1.1 with PKCE): the URL to open in a browser, plus the
/// state and PKCE verifier needed to finish it. This module opens no browser.
///
/// ```swift
/// let request = try manager.authorizationRequest(redirectURI: URL(string: "com.example.app:/callback")!,
///                                                scope: "read")
/// openInBrowser(request.url)
/// // ... the browser comes back to the redirect URI:
/// let code = try request.authorizationCode(from: callbackURL)
/// let tokens = try await manager.signIn(authorizationCode: code, request: request)
/// ```
public struct AuthorizationRequest: Sendable, CustomStringConvertible {
    /// The URL to open: the authorization endpoint with `response_type=code`, `client_id`,
    /// `redirect_uri`, `scope`, `state`, `code_challenge` and `code_challenge_method=S256`.
    public let url: URL
    /// The redirect URI, sent again with the code exchange.
    public let redirectURI: URL
    /// The random `state` the callback must carry back (CSRF protection).
    public let state: String
    /// The PKCE pair; its verifier goes with the code exchange.
    public let pkce: PKCE
    /// The requested scope.
    public let scope: String?

    /// Builds the request.
    ///
    /// - Parameters:
    ///   - authorizationEndpoint: The server's authorization endpoint.
    ///   - clientID: The client id.
    ///   - redirectURI: The registered redirect URI.
    ///   - scope: The requested scope, if any.
    ///   - state: The state value (default: 16 random bytes, base64url).
    ///   - pkce: The PKCE pair (default: a fresh one).
    ///   - additionalParameters: Extra query parameters (for example `prompt`).
    /// - Throws: `TokenError.Code.configuration` when the endpoint URL cannot take a query.
    public init(
        authorizationEndpoint: URL,
        clientID: String,
        redirectURI: URL,
        scope: String? = nil,
        state: String? = nil,
        pkce: PKCE = PKCE(),
        additionalParameters: [(String, String)] = []
    ) throws(TokenError) {
        let state = state ?? Self.randomState()
        guard var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false) else {
            throw TokenError(.configuration, "The authorization endpoint is not a valid URL.")
        }
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "response_type", value: "code"))
        items.append(URLQueryItem(name: "client_id", value: clientID))
        items.append(URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString))
        if let scope { items.append(URLQueryItem(name: "scope", value: scope)) }
        items.append(URLQueryItem(name: "state", value: state))
        items.append(URLQueryItem(name: "code_challenge", value: pkce.challenge))
        items.append(URLQueryItem(name: "code_challenge_method", value: pkce.method))
        items += additionalParameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = items.map { item in
            FormEncoding.encode(item.name) + "=" + FormEncoding.encode(item.value ?? "")
        }.joined(separator: "&")
        guard let url = components.url else {
            throw TokenError(.configuration, "The authorization URL could not be built.")
        }
        self.url = url
        self.redirectURI = redirectURI
        self.state = state
        self.pkce = pkce
        self.scope = scope
    }

    /// The authorization code carried by the redirect back to the app, after checking its `state`.
    ///
    /// - Parameter callbackURL: The URL the browser was redirected to.
    /// - Returns: The `code` parameter.
    /// - Throws: `accessDenied` when the server reports `access_denied`; `rejected` for another `error`;
    ///   `invalidResponse` when `state` is missing or differs (a forged callback) or there is no code.
    public func authorizationCode(from callbackURL: URL) throws(TokenError) -> String {
        let components = URLComponents(url: callbackURL, resolvingAgainstBaseURL: false)
        var parameters: [String: String] = [:]
        for (name, value) in FormEncoding.decode(components?.percentEncodedQuery ?? "") where parameters[name] == nil {
            parameters[name] = value
        }
        guard let returnedState = parameters["state"], constantTimeEquals(returnedState, state) else {
            throw TokenError(
                .invalidResponse,
                "The authorization callback's state does not match the request; it was rejected."
            )
        }
        if let error = parameters["error"] {
            let code: TokenError.Code = error == "access_denied" ? .accessDenied : .rejected
            throw TokenError(code, "The authorization server refused the authorization request.", oauthError: error)
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw TokenError(.invalidResponse, "The authorization callback carries no code.")
        }
        return code
    }

    /// 16 random bytes, base64url.
    static func randomState() -> String {
        var generator = SystemRandomNumberGenerator()
        return PKCE.base64URL((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The endpoint and scope; never the state or the verifier.
    public var description: String {
        "AuthorizationRequest(\(URLs.withoutQuery(url)), scope: \(scope ?? "none"))"
    }
}
