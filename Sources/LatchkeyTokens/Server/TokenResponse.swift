import Foundation

/// A successful token endpoint answer (RFC 6749 §5.1), parsed leniently where servers differ in practice.
struct TokenResponse: Sendable {
    var accessToken: String
    var tokenType: String
    /// `expires_in` in seconds (a JSON number or a numeric string); `nil` when absent.
    var expiresIn: Double?
    var refreshToken: String?
    var scope: String?
    var idToken: String?

    /// Parses a 200 body.
    ///
    /// - Throws: `invalidResponse` when the body is not a JSON object with a non-empty `access_token`, or
    ///   the token type is not Bearer (the only type this module can send).
    init(body: Data, status: Int) throws(TokenError) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            throw TokenError(.invalidResponse, "The token endpoint's answer is not a JSON object.", httpStatus: status)
        }
        guard let accessToken = object["access_token"] as? String, !accessToken.isEmpty else {
            throw TokenError(.invalidResponse, "The token endpoint's answer has no access token.", httpStatus: status)
        }
        let type = (object["token_type"] as? String) ?? "Bearer"
        guard type.caseInsensitiveCompare("bearer") == .orderedSame else {
            throw TokenError(
                .invalidResponse,
                "The token endpoint issued a token type other than Bearer, which this client cannot send.",
                httpStatus: status
            )
        }
        self.accessToken = accessToken
        self.tokenType = "Bearer"
        self.expiresIn = Self.seconds(object["expires_in"])
        self.refreshToken = (object["refresh_token"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        self.scope = object["scope"] as? String
        self.idToken = object["id_token"] as? String
    }

    /// A JSON number, or a string holding one (some servers send `"3600"`); negative values become 0.
    static func seconds(_ value: Any?) -> Double? {
        if let text = value as? String {
            return Double(text.trimmingCharacters(in: .whitespaces)).map { max(0, $0) }
        }
        if let number = value as? NSNumber {
            return max(0, number.doubleValue)
        }
        return nil
    }

    /// The token set this answer makes, received at `receivedAt`.
    ///
    /// Rotation (RFC 6749 §6): a new refresh token replaces `previous`'s; an answer without one keeps
    /// it. The scope, when omitted, is the previous (or requested) one; the ID token likewise.
    func tokenSet(receivedAt: Date, previous: TokenSet?, requestedScope: String?, grant: GrantType) -> TokenSet {
        TokenSet(
            accessToken: accessToken,
            refreshToken: refreshToken ?? previous?.refreshToken,
            tokenType: tokenType,
            expiresAt: expiresIn.map { receivedAt.addingTimeInterval($0) },
            issuedAt: receivedAt,
            scope: scope ?? previous?.scope ?? requestedScope,
            idToken: idToken ?? previous?.idToken,
            grant: grant
        )
    }
}

/// An OAuth error answer (RFC 6749 §5.2, RFC 8628 §3.5, RFC 7009 §2.2.1).
struct OAuthErrorResponse: Sendable {
    var error: String
    var description: String?

    /// Parses a body with an `error` member, or returns `nil`.
    init?(body: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let error = object["error"] as? String, !error.isEmpty
        else { return nil }
        self.error = error
        self.description = object["error_description"] as? String
    }
}
