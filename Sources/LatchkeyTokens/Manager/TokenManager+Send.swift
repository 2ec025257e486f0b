extension TokenManager {
    /// Sends an API request with `Authorization: Bearer <token>`; on a 401 whose `WWW-Authenticate`
    /// says `Bearer error="invalid_token"`, refreshes once and retries once.
    ///
    /// The refresh after a 401 is single-flight and skipped when the rejected token was already
    /// replaced (by another caller or process), in which case the retry uses the stored one. Other
    /// statuses, including a second 401, a 401 without `invalid_token` and a 403 `insufficient_scope`,
    /// are returned as they are: refreshing would not help and could loop.
    ///
    /// ```swift
    /// let response = try await manager.send(TransportRequest(url: URL(string: "https://api.example.com/me")!))
    /// ```
    ///
    /// - Parameter request: The request; an `Authorization` header in it is replaced.
    /// - Returns: The server's response.
    /// - Throws: See `validTokens()`; `network` when the request got no answer.
    public func send(_ request: TransportRequest) async throws(TokenError) -> TransportResponse {
        let tokens = try await validTokens()
        let first = try await transmit(request, with: tokens)
        guard BearerChallenge.isInvalidToken(first) else { return first }
        logger.debug("API answered 401 invalid_token; refreshing once and retrying once")
        let refreshed = try await refreshed(.rejected(accessToken: tokens.accessToken))
        return try await transmit(request, with: refreshed)
    }

    /// Sends `request` with the tokens' `Authorization` header.
    private nonisolated func transmit(
        _ request: TransportRequest,
        with tokens: TokenSet
    ) async throws(TokenError)
        -> TransportResponse
    {
        var authorized = request
        authorized.setHeader("Authorization", tokens.authorizationHeader)
        do {
            return try await transport.send(authorized)
        } catch {
            throw TokenError.wrap(error)
        }
    }
}
