import Foundation
import Latchkey
import Logging

/// Keeps one account's OAuth 2.0 tokens in the keychain and hands out valid access tokens.
///
/// ```swift
/// let configuration = try await TokenManager.Configuration.discover(
///     issuer: URL(string: "https://id.example.com")!, client: OAuthClient(id: "ios-app"))
/// let manager = TokenManager(configuration: configuration, account: "alice", keychain: Keychain(service: "app"))
///
/// try await manager.signIn(username: "alice", password: password)         // once, after the login form
/// let header = try await manager.authorizationHeader()                     // "Bearer <token>", refreshed as needed
/// let response = try await manager.send(TransportRequest(url: api.appending(path: "me")))
/// let report = try await manager.logout()                                  // revoke, then forget
/// ```
///
/// **Storage.** The token set is one keychain item (service = issuer or API base URL, account = the
/// `account` given here), so access token, refresh token and expiry always change together. Several
/// managers with different accounts live side by side.
///
/// **Refresh.** `validAccessToken()` refreshes when the token expires within the leeway (60 s, at most
/// half the token's lifetime). Refreshes are single-flight: concurrent callers in this process share one
/// refresh, and across processes using the same keychain file an `flock` on `<keychain>.tokens.lock`
/// lets one process refresh while the others wait and then re-read its result. Whoever gets the lock
/// re-reads the stored tokens first and refreshes only if they still need it. A new refresh token
/// replaces the old one in the same write; an answer without one keeps the old one.
///
/// **Errors.** `invalid_grant`, `invalid_client` or `unauthorized_client` on refresh end the session:
/// the tokens are cleared and `TokenError.Code.sessionExpired` is thrown. So does a bare 400 or 403
/// (no RFC 6749 error body) to the refresh grant, the way terse servers refuse a revoked or unknown
/// refresh token; the same answer to a sign-in grant is `rejected`. Network errors, 429 and 5xx keep
/// the tokens (`isRetryable`). A locked keychain is `keychainLocked` and never clears anything.
///
/// **Speed.** The last read token set is cached in memory and served while the keychain file's change
/// counter (bumped by every write from any process) is unchanged and the keychain is readable, so
/// `authorizationHeader()` for a fresh token costs one counter read, not a decryption.
///
/// `TokenManager` is an actor; every blocking keychain and lock call runs off the caller's executor,
/// except the change-counter read of the cached path, a single indexed SQLite read.
public actor TokenManager {
    /// The configuration.
    public nonisolated let configuration: Configuration
    /// The account (user or client id) whose tokens this manager keeps.
    public nonisolated let account: String
    /// Where the tokens are stored.
    public nonisolated let store: TokenStore
    /// How requests are sent.
    public nonisolated let transport: any TokenTransport

    nonisolated let endpoint: TokenEndpoint
    nonisolated var logger: Logger { configuration.logger }

    /// The last token set read or written, with the keychain change counter it was read at.
    private var cache: (counter: Int64, tokens: TokenSet?)?
    /// The refresh in progress in this manager, shared by every caller that needs one.
    private var inFlight: Task<Result<TokenSet, TokenError>, Never>?
    /// The token keychain bound to its opened file (see `boundKeychain()`).
    private var bound: Keychain?
    /// The bound keychain file's path (set with `bound`).
    private var boundPath = ""
    /// When this manager's recent refreshes happened (for `RefreshWindow`).
    private var recentRefreshes: [Date] = []

    /// Makes a manager for one account.
    ///
    /// - Parameters:
    ///   - configuration: The server, client and refresh settings.
    ///   - account: The user or client id the tokens belong to (the item's account).
    ///   - keychain: Where to keep the tokens: its store, access group and accessibility are used; the
    ///     service is `configuration.service`. Prefer an accessibility that background work can read,
    ///     such as `.afterFirstUnlockThisDeviceOnly` (the `Keychain` default is `.afterFirstUnlock`).
    ///   - transport: How to send requests (default AsyncHTTPClient).
    public init(
        configuration: Configuration,
        account: String,
        keychain: Keychain,
        transport: any TokenTransport = AsyncHTTPClientTransport()
    ) {
        self.configuration = configuration
        self.account = account
        self.store = TokenStore(keychain: keychain, service: configuration.service)
        self.transport = transport
        self.endpoint = TokenEndpoint(
            endpoints: configuration.endpoints,
            client: configuration.client,
            transport: transport,
            clock: configuration.clock
        )
    }

    // MARK: Reading

    /// The stored tokens, as they are (no refresh), or `nil` when not signed in.
    ///
    /// - Throws: `keychainLocked` when the keychain cannot be read now (never reported as `nil`);
    ///   `keychain` for other keychain failures.
    public func storedTokens() async throws(TokenError) -> TokenSet? {
        try await readTokens(useCache: true)
    }

    /// Whether tokens are stored for the account (they may be expired).
    ///
    /// - Throws: As `storedTokens()`.
    public func isSignedIn() async throws(TokenError) -> Bool {
        try await storedTokens() != nil
    }

    /// A token set whose access token does not expire within the leeway, refreshing first if needed.
    ///
    /// - Throws: `notSignedIn`; `sessionExpired` (tokens cleared) when the server refused the refresh;
    ///   `network` / `serverUnavailable` when the refresh failed transiently and the access token has
    ///   already expired (if it is only within the leeway, it is returned and the refresh retried on a
    ///   later call); `keychainLocked`; `excessiveRefresh`.
    public func validTokens() async throws(TokenError) -> TokenSet {
        guard let tokens = try await readTokens(useCache: true) else {
            throw TokenError(.notSignedIn, "No tokens are stored for this account; sign in first.")
        }
        guard tokens.needsRefresh(at: configuration.clock.now(), leeway: configuration.leewaySeconds) else {
            return tokens
        }
        return try await refreshed(.expiring)
    }

    /// A valid access token (see `validTokens()`).
    public func validAccessToken() async throws(TokenError) -> String {
        try await validTokens().accessToken
    }

    /// The `Authorization` header value for a valid access token: exactly `"Bearer <token>"`.
    ///
    /// - Throws: See `validTokens()`.
    public func authorizationHeader() async throws(TokenError) -> String {
        try await validTokens().authorizationHeader
    }

    /// Refreshes now, whatever the expiry (single-flight, like every refresh).
    ///
    /// - Returns: The new token set.
    /// - Throws: See `validTokens()`; transient failures are always thrown here.
    @discardableResult
    public func refresh() async throws(TokenError) -> TokenSet {
        try await refreshed(.forced)
    }

    /// Stores a token set obtained elsewhere (for example migrated from another store), replacing the
    /// account's tokens.
    ///
    /// - Throws: `keychainLocked` or `keychain` when it cannot be stored.
    public func save(_ tokens: TokenSet) async throws(TokenError) {
        try await storeUnderLock(tokens)
    }

    // MARK: Cache

    /// The stored tokens, from the cache when the keychain has not changed since they were read.
    func readTokens(useCache: Bool) async throws(TokenError) -> TokenSet? {
        let counter = currentChangeCounter(in: try await boundKeychain())
        if useCache, let counter, let cache, cache.counter == counter {
            return cache.tokens
        }
        let tokens = try await store.tokens(for: account)
        if let counter { cache = (counter, tokens) }
        return tokens
    }

    /// The keychain file's change counter while the tokens' class is readable; `nil` (no caching) when
    /// the keychain is locked for it or the counter cannot be read. Through the per-user agent, the
    /// agent's counter (a `.changeCounter` request).
    private func currentChangeCounter(in keychain: Keychain) -> Int64? {
        do {
            guard try keychain.isAvailable() else { return nil }
            let service = try keychain.resolvedService()
            guard case .changeCounter(let counter) = try service.perform(.changeCounter).storage else { return nil }
            return counter
        } catch {
            return nil
        }
    }

    /// The keychain bound to its service (the opened file, or the per-user agent's client when the process
    /// context is the agent), so that the cached path never opens the process-wide default keychain (which
    /// may run a KDF) on this actor's executor; resolved off it the first time.
    private func boundKeychain() async throws(TokenError) -> Keychain {
        if let bound { return bound }
        let service: any KeychainService
        do {
            service = try await store.keychain.resolvedService()
        } catch {
            throw TokenError.keychain(error, while: "opened")
        }
        let keychain = store.keychain.keychainService(service)
        bound = keychain
        boundPath = service.keychainPath ?? KeychainLocation.defaultKeychainPath()
        return keychain
    }

    /// Forgets the cache: the next read goes to the keychain. Called after every write, because the
    /// counter read after a write could already include another process's later write; re-reading
    /// once costs one item read per refresh.
    func invalidateCache() {
        cache = nil
    }

    // MARK: Refresh

    /// Why a refresh was asked for.
    enum RefreshReason: Sendable {
        /// The access token expires within the leeway.
        case expiring
        /// The server rejected this access token (401 `invalid_token`).
        case rejected(accessToken: String)
        /// The app asked for a refresh.
        case forced
    }

    /// The single-flight entry: joins the refresh in progress or starts one.
    func refreshed(_ reason: RefreshReason) async throws(TokenError) -> TokenSet {
        if let inFlight {
            return try await inFlight.value.get()
        }
        let task = Task { () -> Result<TokenSet, TokenError> in
            let result: Result<TokenSet, TokenError>
            do throws(TokenError) {
                result = .success(try await self.refreshUnderLock(reason))
            } catch {
                result = .failure(error)
            }
            self.inFlight = nil
            return result
        }
        inFlight = task
        return try await task.value.get()
    }

    /// Takes the cross-process lock, re-reads the store, and refreshes only if still needed.
    private func refreshUnderLock(_ reason: RefreshReason) async throws(TokenError) -> TokenSet {
        let lock = try await acquireLock()
        defer { lock.release() }
        guard let stored = try await readTokens(useCache: false) else {
            throw TokenError(.notSignedIn, "No tokens are stored for this account; sign in first.")
        }
        let now = configuration.clock.now()
        switch reason {
        case .expiring:
            if !stored.needsRefresh(at: now, leeway: configuration.leewaySeconds) {
                logger.debug("token refresh skipped: another caller or process already refreshed")
                return stored
            }
        case .rejected(let rejected):
            if !constantTimeEquals(stored.accessToken, rejected) {
                logger.debug("token refresh skipped: the rejected access token was already replaced")
                return stored
            }
        case .forced:
            break
        }
        return try await refresh(stored, reason: reason, at: now)
    }

    /// Runs the refresh grant for `stored` (lock held) and stores the result.
    private func refresh(_ stored: TokenSet, reason: RefreshReason, at now: Date) async throws(TokenError) -> TokenSet {
        guard let refreshToken = stored.refreshToken else {
            if stored.grant == .clientCredentials {
                try checkRefreshWindow(now)
                let tokens = try await withRetries { () async throws(TokenError) -> TokenSet in
                    try await self.endpoint.requestTokens(
                        grant: .clientCredentials,
                        fields: stored.scope.map { [("scope", $0)] } ?? [],
                        requestedScope: stored.scope,
                        session: .clientCredentials
                    )
                }
                try await persist(tokens)
                return tokens
            }
            if case .expiring = reason, !stored.isExpired(at: now) { return stored }
            try await endSession(because: nil)
        }
        try checkRefreshWindow(now)
        logger.debug("token refresh started")
        do {
            let tokens = try await withRetries { () async throws(TokenError) -> TokenSet in
                try await self.endpoint.requestTokens(
                    grant: .refreshToken,
                    fields: [("refresh_token", refreshToken)],
                    previous: stored,
                    session: stored.grant
                )
            }
            try await persist(tokens)
            logger.debug("token refresh stored new tokens")
            return tokens
        } catch  where Self.endsSession(error) {
            // Recover from a writer that does not use the lock: if the stored refresh token changed, the
            // session lives on with the other writer's tokens.
            if let again = try await readTokens(useCache: false), let newer = again.refreshToken,
                !constantTimeEquals(newer, refreshToken)
            {
                return again
            }
            try await endSession(because: error)
        } catch  where error.isRetryable {
            logger.info("token refresh failed transiently; tokens kept", metadata: ["code": "\(error.code)"])
            if case .expiring = reason, !stored.isExpired(at: now) { return stored }
            throw error
        }
    }

    /// Whether a refresh error means the refresh token or the client is no longer accepted: the server
    /// refused the refresh grant with `invalid_grant`, `invalid_client` or `unauthorized_client`, or
    /// with a bare 400 or 403 that carries no OAuth error code at all (terse servers such as Glewlwyd
    /// answer a revoked or unknown refresh token that way). Other OAuth codes (`invalid_request`,
    /// `invalid_scope` ...) say the request was malformed, not that the session is over; 429, 5xx and
    /// network failures are transient; neither ends it.
    static func endsSession(_ error: TokenError) -> Bool {
        guard error.code == .rejected else { return false }
        guard let oauthError = error.oauthError else {
            return error.httpStatus.map(TokenEndpoint.isBareRefusal(status:)) ?? false
        }
        return ["invalid_grant", "invalid_client", "unauthorized_client"].contains(oauthError)
    }

    /// Clears the tokens (lock held) and throws `sessionExpired`.
    private func endSession(because cause: TokenError?) async throws(TokenError) -> Never {
        do {
            try await store.remove(account: account)
            invalidateCache()
        } catch {
            invalidateCache()
            logger.error("the expired session's tokens could not be cleared", metadata: ["code": "\(error.code)"])
        }
        logger.info("session expired; tokens cleared")
        throw TokenError(
            .sessionExpired,
            cause == nil
                ? "The access token expired and there is no refresh token; the tokens were cleared. Sign in again."
                : "The server no longer accepts the refresh token; the tokens were cleared. Sign in again.",
            oauthError: cause?.oauthError,
            httpStatus: cause?.httpStatus,
            serverMessage: cause?.serverMessage
        )
    }

    /// Counts a refresh against `RefreshWindow`, or throws `excessiveRefresh`.
    private func checkRefreshWindow(_ now: Date) throws(TokenError) {
        let window = configuration.refreshWindow
        let start = now.addingTimeInterval(-window.interval.seconds)
        recentRefreshes.removeAll { $0 <= start }
        guard recentRefreshes.count < window.maximumRefreshes else {
            throw TokenError(
                .excessiveRefresh,
                "More than \(window.maximumRefreshes) refreshes were needed within \(window.interval); stopped to avoid a loop."
            )
        }
        recentRefreshes.append(now)
    }

    /// Runs `body`, retrying transient failures as `configuration.retryPolicy` says.
    private func withRetries(
        _ body: @Sendable () async throws(TokenError) -> TokenSet
    ) async throws(TokenError) -> TokenSet {
        var retry = 0
        while true {
            do {
                return try await body()
            } catch  where error.isRetryable {
                guard let delay = configuration.retryPolicy.delay(beforeRetry: retry, retryAfter: error.retryAfter)
                else {
                    throw error
                }
                retry += 1
                logger.debug("retrying a transiently failed token request", metadata: ["retry": "\(retry)"])
                do {
                    try await configuration.sleep(delay)
                } catch {
                    throw TokenError(.cancelled, "The task was cancelled while waiting to retry.")
                }
            }
        }
    }

    // MARK: Locking and writing

    /// Takes the cross-process lock of the keychain file.
    func acquireLock() async throws(TokenError) -> RefreshLock {
        _ = try await boundKeychain()
        return try await RefreshLock.acquire(path: RefreshLock.path(forKeychain: boundPath))
    }

    /// Stores `tokens` (lock held) and caches them.
    ///
    /// A failure here after a rotation loses the session (the server has already replaced the refresh
    /// token), so it is logged as an error and thrown as is.
    func persist(_ tokens: TokenSet) async throws(TokenError) {
        defer { invalidateCache() }
        do {
            try await store.save(tokens, for: account)
        } catch {
            logger.error("new tokens could not be stored", metadata: ["code": "\(error.code)"])
            throw error
        }
    }

    /// Takes the lock and stores `tokens` (sign-in and `save`).
    func storeUnderLock(_ tokens: TokenSet) async throws(TokenError) {
        let lock = try await acquireLock()
        defer { lock.release() }
        try await persist(tokens)
    }
}
