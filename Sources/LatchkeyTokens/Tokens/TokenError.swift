import Latchkey

/// The one error type of `LatchkeyTokens`: a code that says what the app should do, plus details.
///
/// The code sorts failures into the classes a token manager must keep apart:
///
/// | code | tokens | what to do |
/// | --- | --- | --- |
/// | `sessionExpired` | cleared | ask the user to sign in again |
/// | `network`, `serverUnavailable` | kept | retry later (`isRetryable`) |
/// | `keychainLocked` | kept, unread | wait for the keychain (`Keychain.waitUntilAvailable()`), never "signed out" |
/// | `notSignedIn` | none stored | sign in |
///
/// ```swift
/// do {
///     let header = try await manager.authorizationHeader()
/// } catch TokenError.Code.sessionExpired {
///     showLogin()
/// } catch TokenError.Code.keychainLocked {
///     try await keychain.waitUntilAvailable()
/// } catch where error.isRetryable {
///     scheduleRetry(after: error.retryAfter)
/// }
/// ```
///
/// No `description`, `debugDescription` or message ever contains a token, a secret or a password;
/// texts the server sent (`error_description`) are kept in `serverMessage` and never printed.
public struct TokenError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, as a stable, open set of codes.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name, for example `"sessionExpired"`.
        public let rawValue: String

        /// Wraps a code name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No tokens are stored for the account: sign in first.
        public static let notSignedIn = Code(rawValue: "notSignedIn")
        /// The server refused the refresh token or the client (`invalid_grant`, `invalid_client`,
        /// `unauthorized_client`, or a bare 400/403 without an OAuth error body), or an expired
        /// access token has no refresh token: the session is over and its tokens were cleared.
        public static let sessionExpired = Code(rawValue: "sessionExpired")
        /// The keychain is locked for the tokens' accessibility class (OSStatus -25308). Nothing was read,
        /// written or cleared; this never means "signed out".
        public static let keychainLocked = Code(rawValue: "keychainLocked")
        /// Another keychain failure (see `keychainError`); tokens are not cleared.
        public static let keychain = Code(rawValue: "keychain")
        /// The server could not be reached, or the connection broke before an answer: retryable, tokens kept.
        public static let network = Code(rawValue: "network")
        /// The server answered 429 or 5xx: retryable (see `retryAfter`), tokens kept.
        public static let serverUnavailable = Code(rawValue: "serverUnavailable")
        /// The server refused a sign-in grant (wrong password, unknown client, bad scope, ...): see
        /// `oauthError`, which is `nil` when the server answered a bare 400 or 403 without an OAuth
        /// error body (then `httpStatus` says which). Nothing stored changed.
        public static let rejected = Code(rawValue: "rejected")
        /// The user denied a device or browser authorization (`access_denied`).
        public static let accessDenied = Code(rawValue: "accessDenied")
        /// The device code expired before the user approved it (`expired_token`).
        public static let deviceCodeExpired = Code(rawValue: "deviceCodeExpired")
        /// The server's answer does not follow the specification (not JSON, no `access_token`, a token type
        /// other than Bearer, a wrong `issuer` ...).
        public static let invalidResponse = Code(rawValue: "invalidResponse")
        /// More refreshes than `RefreshWindow` allows happened in its interval: a refresh loop was stopped.
        public static let excessiveRefresh = Code(rawValue: "excessiveRefresh")
        /// The configuration lacks what the call needs (for example a revocation or device endpoint).
        public static let configuration = Code(rawValue: "configuration")
        /// The calling task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")

        /// The code's name.
        public var description: String { rawValue }

        /// Lets `catch TokenError.Code.sessionExpired` match a thrown `TokenError`.
        public static func ~= (pattern: Code, error: any Error) -> Bool {
            (error as? TokenError)?.code == pattern
        }
    }

    /// What went wrong.
    public let code: Code
    /// A fixed text saying what failed and what to do; never contains tokens or secrets.
    public let message: String
    /// The OAuth `error` code the server sent (`invalid_grant`, `slow_down` ...), if any.
    public let oauthError: String?
    /// The HTTP status of the answer that caused the error, if there was one.
    public let httpStatus: Int?
    /// How long the server asked to wait (`Retry-After`), if it said.
    public let retryAfter: Duration?
    /// The keychain error behind `keychainLocked` and `keychain`.
    public let keychainError: KeychainError?
    /// The server's `error_description`, kept for diagnostics but never printed by this type.
    public let serverMessage: String?
    /// A lower-level cause (a transport error's type and text), shown by `debugDescription` only.
    public let underlying: String?

    /// Makes an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A fixed text; must not contain tokens or secrets.
    ///   - oauthError: The server's OAuth `error` code.
    ///   - httpStatus: The HTTP status involved.
    ///   - retryAfter: The server's `Retry-After`.
    ///   - keychainError: The keychain error behind it.
    ///   - serverMessage: The server's `error_description` (never printed).
    ///   - underlying: A lower-level cause for `debugDescription`.
    public init(
        _ code: Code,
        _ message: String,
        oauthError: String? = nil,
        httpStatus: Int? = nil,
        retryAfter: Duration? = nil,
        keychainError: KeychainError? = nil,
        serverMessage: String? = nil,
        underlying: String? = nil
    ) {
        self.code = code
        self.message = message
        self.oauthError = oauthError
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
        self.keychainError = keychainError
        self.serverMessage = serverMessage
        self.underlying = underlying
    }

    /// Whether trying again later can succeed with the same tokens: `network` and `serverUnavailable`.
    public var isRetryable: Bool { code == .network || code == .serverUnavailable }

    /// `"<message> [<code>, OAuth error <e>, HTTP <n>]"`, without tokens or server texts.
    public var description: String {
        var details = [code.rawValue]
        if let oauthError { details.append("OAuth error \(Self.printable(oauthError))") }
        if let httpStatus { details.append("HTTP \(httpStatus)") }
        if let keychainError { details.append("OSStatus \(keychainError.code.rawValue)") }
        return "\(message) [\(details.joined(separator: ", "))]"
    }

    /// The description plus the lower-level cause.
    public var debugDescription: String {
        underlying.map { "\(description) [cause: \($0)]" } ?? description
    }

    /// Compares code, message, OAuth error and HTTP status.
    public static func == (lhs: TokenError, rhs: TokenError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.oauthError == rhs.oauthError
            && lhs.httpStatus == rhs.httpStatus
    }

    /// An OAuth error code as RFC 6749 allows it (printable ASCII without quotes and backslashes), at most
    /// 64 characters; anything else becomes "(unprintable)" so a hostile server cannot inject text.
    static func printable(_ code: String) -> String {
        let allowed = code.unicodeScalars.allSatisfy {
            $0.value >= 0x20 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\"
        }
        return allowed && code.count <= 64 ? code : "(unprintable)"
    }
}

extension TokenError {
    /// Maps a keychain error: -25308 becomes `keychainLocked`, anything else `keychain`.
    static func keychain(_ error: KeychainError, while action: String) -> TokenError {
        if error.code == .interactionNotAllowed {
            return TokenError(
                .keychainLocked,
                "The keychain is locked, so the tokens could not be \(action); nothing was cleared. "
                    + "Retry once it is unlocked (Keychain.waitUntilAvailable()).",
                keychainError: error
            )
        }
        return TokenError(.keychain, "The tokens could not be \(action) in the keychain.", keychainError: error)
    }

    /// Any error thrown inside the token manager as a `TokenError` (cancellation included).
    static func wrap(_ error: any Error) -> TokenError {
        switch error {
        case let error as TokenError: error
        case let error as KeychainError: .keychain(error, while: "accessed")
        case is CancellationError: TokenError(.cancelled, "The task was cancelled.")
        default:
            TokenError(
                .network,
                "The request failed before the server answered; the tokens were kept.",
                underlying: String(String(describing: error).prefix(300))
            )
        }
    }
}
