import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeyTokens

/// The manager's own logic against a real (temporary) keychain and a scripted transport: storage,
/// error classes, single flight in one process, the lock, the cache, logs.
struct TokenManagerTests {
    static let endpoints = OAuthEndpoints(
        tokenEndpoint: URL(string: "https://id.example.com/oauth/token")!,
        revocationEndpoint: URL(string: "https://id.example.com/oauth/revoke")!
    )

    static func configuration(logger: LogCapture? = nil) -> TokenManager.Configuration {
        var configuration = TokenManager.Configuration(
            endpoints: endpoints,
            client: OAuthClient(id: "app", secret: "client-secret-1")
        )
        if let logger { configuration.logger = logger.logger }
        configuration.sleep = { _ in }
        return configuration
    }

    static func tokens(expiresIn: TimeInterval, access: String = "AT-old-secret", refresh: String? = "RT-old-secret")
        -> TokenSet
    {
        TokenSet(
            accessToken: access,
            refreshToken: refresh,
            expiresAt: Date().addingTimeInterval(expiresIn),
            issuedAt: Date().addingTimeInterval(expiresIn - 3600),
            scope: "read"
        )
    }

    static let refreshAnswer = ScriptedTransport.json(
        200,
        #"{"access_token":"AT-new-secret","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-new-secret"}"#
    )

    @Test func nothingStoredIsNotSignedIn() async throws {
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: ScriptedTransport()
        )
        #expect(try await manager.storedTokens() == nil)
        #expect(try await !manager.isSignedIn())
        await #expect(throws: TokenError(.notSignedIn, "No tokens are stored for this account; sign in first.")) {
            try await manager.validAccessToken()
        }
    }

    @Test func tokensAreOneItemPerAccountUnderTheIssuerService() async throws {
        let test = try TestKeychain()
        let keychain = test.keychain(service: "ignored")
        let alice = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: keychain,
            transport: ScriptedTransport()
        )
        let bob = TokenManager(
            configuration: Self.configuration(),
            account: "bob",
            keychain: keychain,
            transport: ScriptedTransport()
        )
        try await alice.save(Self.tokens(expiresIn: 3600, access: "AT-alice"))
        try await bob.save(Self.tokens(expiresIn: 3600, access: "AT-bob"))
        let service = keychain.service("https://id.example.com")
        #expect(Set(try await service.allKeys()) == ["alice", "bob"])
        #expect(
            try await TokenStore(keychain: keychain, service: "https://id.example.com").accounts().sorted() == [
                "alice", "bob",
            ]
        )
        let raw = try #require(try await service.data(forKey: "alice"))
        let object = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
        #expect(
            Set(object.keys).isSuperset(of: ["access_token", "refresh_token", "expires_at", "issued_at", "token_type"])
        )
        #expect(try await alice.validAccessToken() == "AT-alice")
        #expect(try await bob.authorizationHeader() == "Bearer AT-bob")

        let report = try await bob.logout()
        #expect(report.removedTokens)
        #expect(try await service.allKeys() == ["alice"])
        #expect(try await alice.validAccessToken() == "AT-alice")
    }

    @Test func lockedKeychainIsItsOwnErrorAndClearsNothing() async throws {
        let test = try TestKeychain()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        let transport = ScriptedTransport([Self.refreshAnswer])
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: keychain,
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: -10))
        _ = try await manager.storedTokens()  // cached while unlocked
        test.lock()
        for attempt in 0..<3 {
            do {
                switch attempt {
                case 0: _ = try await manager.validAccessToken()
                case 1: _ = try await manager.logout()
                default: _ = try await manager.storedTokens()
                }
                Issue.record("a locked keychain was read as if unlocked (attempt \(attempt))")
            } catch {
                #expect(error.code == .keychainLocked)
                #expect(error.keychainError?.code == .interactionNotAllowed)
            }
        }
        #expect(transport.requests.isEmpty)
        try test.unlock()
        #expect(try await manager.storedTokens()?.accessToken == "AT-old-secret")
    }

    @Test func unreachableServerKeepsTheTokensAndIsRetryable() async throws {
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: ScriptedTransport([.fail])
        )
        try await manager.save(Self.tokens(expiresIn: -1))
        do {
            _ = try await manager.validAccessToken()
            Issue.record("an expired token was returned although the refresh failed")
        } catch {
            #expect(error.code == .network)
            #expect(error.isRetryable)
        }
        #expect(try await manager.storedTokens()?.refreshToken == "RT-old-secret")
    }

    @Test func aTokenOnlyWithinTheLeewayIsStillServedWhenTheRefreshFailsTransiently() async throws {
        let test = try TestKeychain()
        // A fixed clock: on a loaded machine more than 30 s can pass between save and read, and the token
        // would then really have expired.
        let tokens = Self.tokens(expiresIn: 30)
        let now = try #require(tokens.expiresAt).addingTimeInterval(-30)
        var configuration = Self.configuration()
        configuration.clock = ManualClock(now)
        let manager = TokenManager(
            configuration: configuration,
            account: "alice",
            keychain: test.keychain(),
            transport: ScriptedTransport([ScriptedTransport.json(503, "")])
        )
        try await manager.save(tokens)
        #expect(try await manager.validAccessToken() == "AT-old-secret")
        await #expect(throws: TokenError.self) { try await manager.refresh() }
    }

    @Test func invalidGrantEndsTheSessionAndClearsTheTokens() async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport([ScriptedTransport.json(400, #"{"error":"invalid_grant"}"#)])
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: -1))
        do {
            _ = try await manager.validAccessToken()
            Issue.record("a refused refresh did not end the session")
        } catch {
            #expect(error.code == .sessionExpired)
            #expect(error.oauthError == "invalid_grant")
            #expect(!error.isRetryable)
        }
        #expect(try await manager.storedTokens() == nil)
    }

    @Test(arguments: ["invalid_client", "unauthorized_client"])
    func refusedClientsEndTheSessionToo(code: String) async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport([ScriptedTransport.json(401, #"{"error":"\#(code)"}"#)])
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: -1))
        await #expect(throws: TokenError.self) { try await manager.validAccessToken() }
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func anExpiredTokenWithoutRefreshTokenEndsTheSession() async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport()
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: -1, refresh: nil))
        do {
            _ = try await manager.validAccessToken()
            Issue.record("an expired token without refresh token was returned")
        } catch {
            #expect(error.code == .sessionExpired)
        }
        #expect(transport.requests.isEmpty)
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func concurrentCallersInOneProcessShareOneRefresh() async throws {
        let test = try TestKeychain()
        // The refresh is answered only once all 20 callers have started, so they overlap with it.
        let started = Countdown(20)
        let transport = ScriptedTransport([Self.refreshAnswer], gate: { await started.wait() })
        let keychain = test.keychain()
        let first = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: keychain,
            transport: transport
        )
        let second = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: keychain,
            transport: transport
        )
        try await first.save(Self.tokens(expiresIn: -1))
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 {
                group.addTask {
                    await started.arrive()
                    return try await (index.isMultiple(of: 2) ? first : second).validAccessToken()
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 20)
        #expect(Set(tokens) == ["AT-new-secret"])
        #expect(transport.requests.count == 1)
        #expect(try await second.storedTokens()?.refreshToken == "RT-new-secret")
    }

    @Test func theCacheFollowsWritesFromAnotherStoreOnTheSameFile() async throws {
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: ScriptedTransport()
        )
        try await manager.save(Self.tokens(expiresIn: 3600, access: "AT-first"))
        #expect(try await manager.validAccessToken() == "AT-first")
        let other = TokenStore(
            keychain: Keychain(service: "x", store: try test.openAnotherStore()),
            service: "https://id.example.com"
        )
        try await other.save(Self.tokens(expiresIn: 3600, access: "AT-second"), for: "alice")
        #expect(try await manager.validAccessToken() == "AT-second")
        try await other.remove(account: "alice")
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func refreshesBeyondTheWindowAreStopped() async throws {
        let test = try TestKeychain()
        var configuration = Self.configuration()
        configuration.refreshWindow = RefreshWindow(maximumRefreshes: 2, interval: .seconds(60))
        // A manual clock: on a loaded machine the three refreshes could otherwise span the 60 s window.
        configuration.clock = ManualClock()
        let manager = TokenManager(
            configuration: configuration,
            account: "alice",
            keychain: test.keychain(),
            transport: ScriptedTransport([Self.refreshAnswer])
        )
        try await manager.save(Self.tokens(expiresIn: 3600))
        try await manager.refresh()
        try await manager.refresh()
        do {
            try await manager.refresh()
            Issue.record("a third refresh within the window went through")
        } catch {
            #expect(error.code == .excessiveRefresh)
        }
        #expect(try await manager.storedTokens() != nil)
    }

    @Test func transientFailuresAreRetriedWithBackoffWhenAsked() async throws {
        let test = try TestKeychain()
        let sleeps = SleepRecorder()
        var configuration = Self.configuration()
        configuration.retryPolicy = .exponential(
            retries: 3,
            initialDelay: .milliseconds(100),
            maximumDelay: .seconds(2)
        )
        configuration.sleep = { await sleeps.record($0) }
        let transport = ScriptedTransport([
            ScriptedTransport.json(503, "", headers: [("Retry-After", "1")]), .fail, Self.refreshAnswer,
        ])
        let manager = TokenManager(
            configuration: configuration,
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: -1))
        #expect(try await manager.validAccessToken() == "AT-new-secret")
        #expect(await sleeps.durations == [.seconds(1), .milliseconds(200)])
        #expect(transport.requests.count == 3)
    }

    @Test func a401InvalidTokenRefreshesOnceAndRetriesOnceOnly() async throws {
        let test = try TestKeychain()
        let challenge = [(name: "WWW-Authenticate", value: #"Bearer error="invalid_token""#)]
        let transport = ScriptedTransport([
            .respond(TransportResponse(status: 401, headers: challenge)),
            Self.refreshAnswer,
            .respond(TransportResponse(status: 401, headers: challenge)),
        ])
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: 3600))
        let response = try await manager.send(TransportRequest(url: URL(string: "https://api.example.com/me")!))
        #expect(response.status == 401)
        let sent = transport.requests
        #expect(sent.count == 3)
        #expect(sent[0].header("Authorization") == "Bearer AT-old-secret")
        #expect(sent[1].url == Self.endpoints.tokenEndpoint)
        #expect(sent[2].header("Authorization") == "Bearer AT-new-secret")
    }

    @Test func a401WithoutInvalidTokenIsReturnedWithoutRefreshing() async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport([
            .respond(TransportResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer realm="api""#)]))
        ])
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: 3600))
        let response = try await manager.send(TransportRequest(url: URL(string: "https://api.example.com/me")!))
        #expect(response.status == 401)
        #expect(transport.requests.count == 1)
    }

    @Test func logoutClearsTheTokensEvenWhenRevocationFails() async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport([.fail])
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        try await manager.save(Self.tokens(expiresIn: 3600))
        let report = try await manager.logout()
        #expect(report.removedTokens)
        guard case .failed(let error) = report.revocation else {
            Issue.record("the failed revocation was not reported: \(report)")
            return
        }
        #expect(error.code == .network)
        #expect(try await manager.storedTokens() == nil)
        let form = String(decoding: try #require(transport.requests.first?.body), as: UTF8.self)
        #expect(form.contains("token_type_hint=refresh_token"))
        #expect(form.contains("token=RT-old-secret"))
        #expect(try await manager.logout().revocation.description == "skipped")
    }

    @Test func secretsNeverReachLogsOrErrorTexts() async throws {
        let test = try TestKeychain()
        let logs = LogCapture()
        let challenge = [(name: "WWW-Authenticate", value: #"Bearer error="invalid_token""#)]
        let transport = ScriptedTransport([
            ScriptedTransport.json(
                200,
                #"{"access_token":"AT-old-secret","token_type":"Bearer","expires_in":1,"refresh_token":"RT-old-secret"}"#
            ),
            Self.refreshAnswer,
            .respond(TransportResponse(status: 401, headers: challenge)),
            ScriptedTransport.json(400, #"{"error":"invalid_grant","error_description":"RT-new-secret is revoked"}"#),
        ])
        let clock = ManualClock(Date())
        var configuration = Self.configuration(logger: logs)
        configuration.clock = clock
        let manager = TokenManager(
            configuration: configuration,
            account: "alice",
            keychain: test.keychain(),
            transport: transport
        )
        var texts: [String] = []
        try await manager.signIn(username: "alice", password: "user-password-1")
        clock.advance(by: 0.6)  // inside the 1-second token's refresh window (half its lifetime)
        _ = try await manager.validAccessToken()
        do {
            _ = try await manager.send(TransportRequest(url: URL(string: "https://api.example.com/me")!))
        } catch {
            texts += [error.description, error.debugDescription, "\(error)", String(reflecting: error)]
            #expect(error.code == .sessionExpired)
        }
        texts += logs.all
        texts.append("\(try await manager.logout())")
        #expect(!logs.all.isEmpty)
        for secret in [
            "AT-old-secret", "RT-old-secret", "AT-new-secret", "RT-new-secret", "user-password-1", "client-secret-1",
        ] {
            for text in texts {
                #expect(!text.contains(secret), "a secret reached: \(text)")
            }
        }
    }

    @Test func anUnreadableItemIsReportedAndLogoutStillRemovesIt() async throws {
        let test = try TestKeychain()
        let keychain = test.keychain()
        try await keychain.service("https://id.example.com").set("not a token set", forKey: "alice")
        let transport = ScriptedTransport()
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: keychain,
            transport: transport
        )
        do {
            _ = try await manager.storedTokens()
            Issue.record("garbage was read as tokens")
        } catch {
            #expect(error.code == .keychain)
            #expect(error.keychainError?.code == .decode)
        }
        let report = try await manager.logout()
        #expect(report.removedTokens)
        #expect(report.revocation.description == "skipped")
        #expect(transport.requests.isEmpty)
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func theLockFileSitsNextToTheKeychainWithOwnerOnlyMode() async throws {
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: Self.configuration(),
            account: "alice",
            keychain: test.keychain(),
            transport: ScriptedTransport()
        )
        try await manager.save(Self.tokens(expiresIn: 3600))
        let attributes = try FileManager.default.attributesOfItem(atPath: test.path + ".tokens.lock")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }
}
