import Foundation

extension TokenManager {
    /// Signs in with the resource owner's username and password (RFC 6749 §4.3), the classic login form,
    /// and stores the tokens, replacing the account's previous ones.
    ///
    /// RFC 9700 deprecates this grant; prefer the authorization-code flow or the device grant where the
    /// server offers them. The password is sent once and never stored.
    ///
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    ///   - scope: The requested scope, if any.
    /// - Returns: The stored token set.
    /// - Throws: `rejected` (`oauthError` `invalid_grant`: wrong credentials; `invalid_client` ...; no
    ///   `oauthError` when the server refused with a bare 400 or 403, as Glewlwyd answers a wrong
    ///   password with 403), with the stored tokens unchanged; `network`, `serverUnavailable`,
    ///   `invalidResponse`, `keychainLocked`, `keychain`.
    @discardableResult
    public func signIn(username: String, password: String, scope: String? = nil) async throws(TokenError) -> TokenSet {
        var fields = [("username", username), ("password", password)]
        if let scope { fields.append(("scope", scope)) }
        let tokens = try await endpoint.requestTokens(
            grant: .password,
            fields: fields,
            requestedScope: scope,
            session: .password
        )
        try await storeUnderLock(tokens)
        logger.debug("signed in with the password grant")
        return tokens
    }

    /// Gets tokens for the client itself (RFC 6749 §4.4) and stores them.
    ///
    /// There is no refresh token (§4.4.3); when the access token expires the manager runs this grant
    /// again with the same scope.
    ///
    /// - Parameter scope: The requested scope, if any.
    /// - Returns: The stored token set.
    /// - Throws: As `signIn(username:password:scope:)`.
    @discardableResult
    public func signInWithClientCredentials(scope: String? = nil) async throws(TokenError) -> TokenSet {
        let tokens = try await endpoint.requestTokens(
            grant: .clientCredentials,
            fields: scope.map { [("scope", $0)] } ?? [],
            requestedScope: scope,
            session: .clientCredentials
        )
        try await storeUnderLock(tokens)
        logger.debug("signed in with the client-credentials grant")
        return tokens
    }

    // MARK: Authorization code + PKCE

    /// Builds an authorization-code request with PKCE (S256) and a random state, for the app to open in
    /// a browser; this module opens none.
    ///
    /// - Parameters:
    ///   - redirectURI: The redirect URI registered for the client.
    ///   - scope: The requested scope, if any.
    ///   - additionalParameters: Extra query parameters.
    /// - Returns: The request; keep it until the callback arrives.
    /// - Throws: `configuration` without an authorization endpoint.
    public nonisolated func authorizationRequest(
        redirectURI: URL,
        scope: String? = nil,
        additionalParameters: [(String, String)] = []
    ) throws(TokenError) -> AuthorizationRequest {
        guard let authorizationEndpoint = configuration.endpoints.authorizationEndpoint else {
            throw TokenError(.configuration, "No authorization endpoint is configured.")
        }
        return try AuthorizationRequest(
            authorizationEndpoint: authorizationEndpoint,
            clientID: configuration.client.id,
            redirectURI: redirectURI,
            scope: scope,
            additionalParameters: additionalParameters
        )
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3) with the request's PKCE verifier and stores
    /// the tokens.
    ///
    /// - Parameters:
    ///   - authorizationCode: The code from `AuthorizationRequest.authorizationCode(from:)`.
    ///   - request: The request that started the flow.
    /// - Returns: The stored token set.
    /// - Throws: As `signIn(username:password:scope:)`.
    @discardableResult
    public func signIn(authorizationCode: String, request: AuthorizationRequest) async throws(TokenError) -> TokenSet {
        let tokens = try await endpoint.requestTokens(
            grant: .authorizationCode,
            fields: [
                ("code", authorizationCode),
                ("redirect_uri", request.redirectURI.absoluteString),
                ("code_verifier", request.pkce.verifier),
            ],
            requestedScope: request.scope,
            session: .authorizationCode
        )
        try await storeUnderLock(tokens)
        logger.debug("signed in with an authorization code")
        return tokens
    }

    // MARK: Device authorization grant

    /// Starts the device authorization grant (RFC 8628 §3.1): returns the code to show the user.
    ///
    /// - Parameter scope: The requested scope, if any.
    /// - Returns: What to show, and what `completeDeviceAuthorization(_:)` polls with.
    /// - Throws: `configuration` without a device authorization endpoint; `rejected`, `network`,
    ///   `serverUnavailable`, `invalidResponse`.
    public func startDeviceAuthorization(scope: String? = nil) async throws(TokenError) -> DeviceAuthorization {
        try await endpoint.startDeviceAuthorization(scope: scope)
    }

    /// Polls the token endpoint until the user approves or denies the device authorization (RFC 8628
    /// §3.4–3.5), then stores the tokens.
    ///
    /// Waits `interval` before each poll; `authorization_pending` polls again, `slow_down` adds 5 s to
    /// the interval for this and every later poll, a failed connection doubles the next wait (at most
    /// 60 s). Stops at `expiresAt`.
    ///
    /// - Parameter authorization: The started authorization.
    /// - Returns: The stored token set.
    /// - Throws: `accessDenied` (`access_denied`); `deviceCodeExpired` (`expired_token`, or the code's
    ///   lifetime passed); `rejected` for other OAuth errors; `cancelled` when the task is cancelled.
    @discardableResult
    public func completeDeviceAuthorization(_ authorization: DeviceAuthorization) async throws(TokenError) -> TokenSet {
        var interval = authorization.interval
        var wait = interval
        while true {
            do {
                try await configuration.sleep(wait)
            } catch {
                throw TokenError(.cancelled, "The task was cancelled while waiting for the device authorization.")
            }
            guard configuration.clock.now() < authorization.expiresAt else {
                throw TokenError(.deviceCodeExpired, "The device code expired before the user approved it.")
            }
            wait = interval
            do {
                let tokens = try await endpoint.requestTokens(
                    grant: .deviceCode,
                    fields: [("device_code", authorization.deviceCode)],
                    session: .deviceCode
                )
                try await storeUnderLock(tokens)
                logger.debug("signed in with the device authorization grant")
                return tokens
            } catch  where error.code == .rejected {
                switch error.oauthError {
                case "authorization_pending":
                    continue
                case "slow_down":
                    interval += .seconds(5)
                    wait = interval
                case "access_denied":
                    throw TokenError(
                        .accessDenied,
                        "The user denied the device authorization.",
                        oauthError: "access_denied"
                    )
                case "expired_token":
                    throw TokenError(
                        .deviceCodeExpired,
                        "The device code expired before the user approved it.",
                        oauthError: "expired_token"
                    )
                default:
                    throw error
                }
            } catch  where error.isRetryable {
                wait = min(max(interval, .seconds(1)) * 2, .seconds(60))
                logger.debug("device authorization poll failed transiently; backing off")
            }
        }
    }

    /// Runs the whole device authorization grant: starts it, hands the codes to `present` (show them to
    /// the user), then polls until the user decides.
    ///
    /// ```swift
    /// try await manager.signInWithDevice(scope: "read") { authorization in
    ///     print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - scope: The requested scope, if any.
    ///   - present: Shows the user code and verification URI.
    /// - Returns: The stored token set.
    /// - Throws: See `startDeviceAuthorization(scope:)` and `completeDeviceAuthorization(_:)`.
    @discardableResult
    public func signInWithDevice(
        scope: String? = nil,
        present: @Sendable (DeviceAuthorization) async -> Void
    ) async throws(TokenError) -> TokenSet {
        let authorization = try await startDeviceAuthorization(scope: scope)
        await present(authorization)
        return try await completeDeviceAuthorization(authorization)
    }
}
