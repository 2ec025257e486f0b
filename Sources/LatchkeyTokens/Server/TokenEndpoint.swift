import Foundation
import Latchkey

/// The calls to the authorization server (token, revocation and device authorization endpoints), with
/// their answers sorted into `TokenError` classes. Stateless; `TokenManager` decides what an error means
/// for the stored tokens.
struct TokenEndpoint: Sendable {
    let endpoints: OAuthEndpoints
    let client: OAuthClient
    let transport: any TokenTransport
    /// Where the time an answer was received is read.
    let clock: any KeychainClock

    /// Requests tokens with `grant` and `fields` (client authentication is added).
    ///
    /// - Parameters:
    ///   - grant: The `grant_type`.
    ///   - fields: The grant's own form fields.
    ///   - previous: The set being refreshed, whose refresh token, scope and ID token carry over when
    ///     the answer omits them.
    ///   - requestedScope: The scope asked for, kept when the answer names none.
    ///   - session: The grant that started the session (stored in the new set).
    /// - Throws: `rejected` with `oauthError` for an OAuth error answer (400/401/403), and without one
    ///   for a bare 400 or 403 (the grant was refused; see `failure(_:endpoint:grant:)`);
    ///   `serverUnavailable` for 429 and 5xx; `network` when no answer came; `invalidResponse` for
    ///   anything else.
    func requestTokens(
        grant: GrantType,
        fields: [(String, String)],
        previous: TokenSet? = nil,
        requestedScope: String? = nil,
        session: GrantType
    ) async throws(TokenError) -> TokenSet {
        var form = [("grant_type", grant.rawValue)] + fields
        var headers: [(name: String, value: String)] = []
        client.authenticate(fields: &form, headers: &headers)
        let response = try await send(TransportRequest.form(endpoints.tokenEndpoint, form, headers: headers))
        let receivedAt = clock.now()
        switch response.status {
        case 200:
            let parsed = try TokenResponse(body: response.body, status: response.status)
            return parsed.tokenSet(
                receivedAt: receivedAt,
                previous: previous,
                requestedScope: requestedScope,
                grant: session
            )
        default:
            throw Self.failure(response, endpoint: "token endpoint", grant: grant)
        }
    }

    /// Revokes `token` (RFC 7009 §2.1).
    ///
    /// - Parameters:
    ///   - token: The token to revoke.
    ///   - hint: `"refresh_token"` or `"access_token"`.
    /// - Throws: `configuration` without a revocation endpoint; `serverUnavailable` (503 means the token is
    ///   still valid, RFC 7009 §2.2.1), `network`, `rejected` or `invalidResponse` otherwise.
    func revoke(_ token: String, hint: String) async throws(TokenError) {
        guard let endpoint = endpoints.revocationEndpoint else {
            throw TokenError(.configuration, "No revocation endpoint is configured, so the token was not revoked.")
        }
        var form = [("token", token), ("token_type_hint", hint)]
        var headers: [(name: String, value: String)] = []
        client.authenticate(fields: &form, headers: &headers)
        let response = try await send(TransportRequest.form(endpoint, form, headers: headers))
        guard response.status == 200 else {
            throw Self.failure(response, endpoint: "revocation endpoint")
        }
    }

    /// Starts a device authorization (RFC 8628 §3.1).
    ///
    /// - Throws: `configuration` without a device authorization endpoint; otherwise as `requestTokens`.
    func startDeviceAuthorization(scope: String?) async throws(TokenError) -> DeviceAuthorization {
        guard let endpoint = endpoints.deviceAuthorizationEndpoint else {
            throw TokenError(.configuration, "No device authorization endpoint is configured.")
        }
        var form: [(String, String)] = []
        if let scope { form.append(("scope", scope)) }
        var headers: [(name: String, value: String)] = []
        client.authenticate(fields: &form, headers: &headers)
        let response = try await send(TransportRequest.form(endpoint, form, headers: headers))
        guard response.status == 200 else {
            throw Self.failure(response, endpoint: "device authorization endpoint")
        }
        return try DeviceAuthorization(body: response.body, receivedAt: clock.now())
    }

    /// Sends through the transport; a throw (no answer) becomes `network`.
    private func send(_ request: TransportRequest) async throws(TokenError) -> TransportResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw TokenError.wrap(error)
        }
    }

    /// The error for a non-200 answer.
    ///
    /// In order:
    /// 1. 429, 5xx or `temporarily_unavailable`: `serverUnavailable` (transient, tokens kept).
    /// 2. An RFC 6749 §5.2 error body (a JSON object with `error`) on 400, 401 or 403: `rejected` with
    ///    that `oauthError`.
    /// 3. A 401 without one: `rejected` as `invalid_client` (RFC 6749 §5.2: the client was not
    ///    authenticated).
    /// 4. On the token endpoint (`grant` given), a 400 or 403 without one (an empty, non-JSON or
    ///    foreign body, as Glewlwyd sends): `rejected` with no `oauthError` and the status. Terse
    ///    servers answer a refused grant this way; `TokenManager` reads it on a refresh as a dead
    ///    session, on a sign-in grant as a refusal.
    /// 5. Anything else (404, 405, 3xx, ...): `invalidResponse`; the endpoint is not where it should be,
    ///    which says nothing about the grant.
    ///
    /// - Parameters:
    ///   - response: The answer.
    ///   - endpoint: The endpoint's name for the message.
    ///   - grant: The grant sent to the token endpoint; `nil` for the other endpoints.
    /// - Returns: The classified error.
    static func failure(_ response: TransportResponse, endpoint: String, grant: GrantType? = nil) -> TokenError {
        let status = response.status
        let oauth = OAuthErrorResponse(body: response.body)
        if status == 429 || status >= 500 || oauth?.error == "temporarily_unavailable" {
            return TokenError(
                .serverUnavailable,
                "The \(endpoint) is unavailable now (HTTP \(status)); the tokens were kept, try again later.",
                oauthError: oauth?.error,
                httpStatus: status,
                retryAfter: RetryAfter.parse(response.header("Retry-After")),
                serverMessage: oauth?.description
            )
        }
        if let oauth, status == 400 || status == 401 || status == 403 {
            return TokenError(
                .rejected,
                "The \(endpoint) refused the request.",
                oauthError: oauth.error,
                httpStatus: status,
                serverMessage: oauth.description
            )
        }
        if status == 401 {
            // A 401 without a JSON body still means the client was not authenticated (RFC 6749 §5.2).
            return TokenError(
                .rejected,
                "The \(endpoint) refused the client's credentials.",
                oauthError: "invalid_client",
                httpStatus: status
            )
        }
        if let grant, isBareRefusal(status: status) {
            return TokenError(
                .rejected,
                "The \(endpoint) refused the \(TokenError.printable(grant.rawValue)) grant without an OAuth error code.",
                httpStatus: status
            )
        }
        return TokenError(
            .invalidResponse,
            "The \(endpoint) gave an unexpected answer (HTTP \(status)).",
            httpStatus: status
        )
    }

    /// Whether `status` is how a token endpoint refuses a grant when it sends no RFC 6749 error body:
    /// 400 (Bad Request, RFC 6749 §5.2's status) or 403 (Forbidden). Used only after 401, 429 and 5xx
    /// were sorted out and only when no OAuth error code came.
    static func isBareRefusal(status: Int) -> Bool {
        status == 400 || status == 403
    }
}
