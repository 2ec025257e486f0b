import Foundation
import Latchkey
import Logging

extension TokenManager {
    /// What a `TokenManager` talks to and how it refreshes.
    ///
    /// ```swift
    /// var configuration = TokenManager.Configuration(
    ///     endpoints: OAuthEndpoints(tokenEndpoint: URL(string: "https://id.example.com/oauth/token")!),
    ///     client: OAuthClient(id: "ios-app"))
    /// configuration.refreshLeeway = .seconds(120)
    /// configuration.retryPolicy = .exponential(retries: 3)
    /// ```
    public struct Configuration: Sendable {
        /// The server's endpoints.
        public var endpoints: OAuthEndpoints
        /// The client the app is registered as.
        public var client: OAuthClient
        /// The keychain service of the token items: by default the issuer, else the token endpoint's
        /// origin (`OAuthEndpoints.defaultService`).
        public var service: String
        /// How long before expiry an access token is refreshed (default 60 s). For short-lived tokens it
        /// is clamped to half the token's lifetime (`TokenSet.effectiveLeeway(_:)`).
        public var refreshLeeway: Duration
        /// The cap on refreshes per time window (default 5 per 30 s).
        public var refreshWindow: RefreshWindow
        /// Retries of transiently failed refreshes (default none).
        public var retryPolicy: RetryPolicy
        /// Where diagnostics go (default: nowhere). Log lines never contain tokens, secrets, passwords,
        /// accounts or URLs' queries.
        public var logger: Logger
        /// Where the manager reads the time: token expiry, refresh windows and device-grant deadlines
        /// (default `SystemClock`). Tests give a `LatchkeyTesting.ManualClock` and move it into the refresh
        /// window instead of waiting.
        public var clock: any KeychainClock
        /// Waits (device-grant polling and retry backoff; injectable for tests).
        public var sleep: @Sendable (Duration) async throws -> Void

        /// Makes a configuration.
        ///
        /// - Parameters:
        ///   - endpoints: The server's endpoints.
        ///   - client: The client the app is registered as.
        ///   - service: The keychain service; `nil` for `endpoints.defaultService`.
        public init(endpoints: OAuthEndpoints, client: OAuthClient, service: String? = nil) {
            self.endpoints = endpoints
            self.client = client
            self.service = service ?? endpoints.defaultService
            self.refreshLeeway = .seconds(60)
            self.refreshWindow = .default
            self.retryPolicy = .none
            self.logger = Logger(label: "latchkey.tokens", factory: { _ in SwiftLogNoOpLogHandler() })
            self.clock = SystemClock()
            self.sleep = { duration in try await Task.sleep(for: duration) }
        }

        /// A configuration whose endpoints come from the issuer's metadata (RFC 8414).
        ///
        /// - Parameters:
        ///   - issuer: The issuer identifier.
        ///   - client: The client the app is registered as.
        ///   - transport: How to fetch the metadata (default AsyncHTTPClient).
        /// - Throws: See `AuthorizationServerMetadata.discover(issuer:transport:)`.
        public static func discover(
            issuer: URL,
            client: OAuthClient,
            transport: any TokenTransport = AsyncHTTPClientTransport()
        ) async throws(TokenError) -> Configuration {
            let metadata = try await AuthorizationServerMetadata.discover(issuer: issuer, transport: transport)
            return Configuration(endpoints: try metadata.endpoints(), client: client)
        }

        /// `refreshLeeway` in seconds.
        var leewaySeconds: TimeInterval { refreshLeeway.seconds }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
