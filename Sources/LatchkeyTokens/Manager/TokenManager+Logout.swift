extension TokenManager {
    /// What `logout()` did: the local tokens are always gone; revocation is reported on its own.
    public struct LogoutReport: Sendable, CustomStringConvertible {
        /// How the server-side revocation went.
        public enum Revocation: Sendable, CustomStringConvertible {
            /// The server confirmed the revocation (RFC 7009 §2.2: also for an already invalid token).
            case revoked
            /// Nothing was revoked: no tokens were stored, or no revocation endpoint is configured.
            case skipped
            /// The revocation failed (see the error: `network`, `serverUnavailable`, `rejected` ...); the
            /// refresh token may stay valid at the server until it expires.
            case failed(TokenError)

            /// `revoked`, `skipped` or `failed(<code>)`.
            public var description: String {
                switch self {
                case .revoked: "revoked"
                case .skipped: "skipped"
                case .failed(let error): "failed(\(error.code))"
                }
            }
        }

        /// Whether tokens were stored (and have now been removed).
        public let removedTokens: Bool
        /// The revocation's outcome.
        public let revocation: Revocation

        /// `LogoutReport(removed tokens: <bool>, revocation: <outcome>)`.
        public var description: String {
            "LogoutReport(removed tokens: \(removedTokens), revocation: \(revocation))"
        }
    }

    /// Whether `error` says the stored item exists but is not a token set this version can decode.
    static func isUnreadableItem(_ error: TokenError) -> Bool {
        guard error.code == .keychain, let keychainError = error.keychainError else { return false }
        return keychainError.code == .decode
    }

    /// Signs out: revokes the refresh token at the server (RFC 7009; the access token when there is no
    /// refresh token), then removes the local tokens whatever the revocation's result.
    ///
    /// Runs under the cross-process lock, so no refresh in another process can write the tokens back.
    ///
    /// - Returns: Whether tokens were removed and how the revocation went; a failed revocation is
    ///   reported there, not thrown.
    /// - Throws: `keychainLocked` when the keychain is locked (then nothing was revoked or removed: the
    ///   tokens cannot be read, and removing unread tokens would leave them valid at the server; retry
    ///   after unlocking), `keychain` for other keychain failures.
    @discardableResult
    public func logout() async throws(TokenError) -> LogoutReport {
        let lock = try await acquireLock()
        defer { lock.release() }
        defer { invalidateCache() }
        let stored: TokenSet?
        do {
            stored = try await readTokens(useCache: false)
        } catch {
            // An item this version cannot read: nothing to revoke, but signing out must still remove it.
            guard Self.isUnreadableItem(error) else { throw error }
            logger.info("removing an unreadable token item at logout")
            return LogoutReport(removedTokens: try await store.remove(account: account), revocation: .skipped)
        }
        guard let stored else {
            return LogoutReport(removedTokens: false, revocation: .skipped)
        }
        let revocation: LogoutReport.Revocation
        if configuration.endpoints.revocationEndpoint == nil {
            revocation = .skipped
        } else {
            do {
                if let refreshToken = stored.refreshToken {
                    try await endpoint.revoke(refreshToken, hint: "refresh_token")
                } else {
                    try await endpoint.revoke(stored.accessToken, hint: "access_token")
                }
                revocation = .revoked
            } catch {
                logger.info(
                    "token revocation failed; removing the local tokens anyway",
                    metadata: ["code": "\(error.code)"]
                )
                revocation = .failed(error)
            }
        }
        try await store.remove(account: account)
        logger.debug("signed out")
        return LogoutReport(removedTokens: true, revocation: revocation)
    }
}
