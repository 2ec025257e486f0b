import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeyTokens

/// Against a real OAuth 2.0 server: django-oauth-toolkit 3.4.1 with 5-second access tokens, refresh
/// rotation with reuse protection (a replayed refresh token revokes the whole family), RFC 7009
/// revocation and the device grant. Each test makes its own user and clients, so the server's
/// per-client counters are the test's own.
///
/// Nothing waits for wall time: each manager reads a `TestClock` the test moves into the refresh
/// window, and device polling waits through an injected sleep. Without the virtual environment the
/// suite fails, saying how to create it.
@Suite(.realOAuthServer, .timeLimit(.minutes(10)))
struct RealServerTests {
    var server: OAuthTestServer {
        get throws { try #require(OAuthTestServer.current) }
    }

    /// Moves `clock` just inside `tokens`' (clamped) refresh window, so the next call must refresh; returns
    /// that moment.
    @discardableResult
    func moveIntoRefreshWindow(_ clock: ManualClock, _ tokens: TokenSet, leeway: TimeInterval = 60) throws -> Date {
        let due = try #require(tokens.expiresAt).addingTimeInterval(-tokens.effectiveLeeway(leeway) + 0.1)
        if due > clock.now() { clock.set(due) }
        return clock.now()
    }

    @Test func passwordSignInStoresOneItemAndAuthorizesAPICalls() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let clock = ManualClock(Date())
        let manager = TokenManager(
            configuration: server.configuration(fixture.password_client, clock: clock),
            account: fixture.username,
            keychain: test.keychain()
        )
        let tokens = try await manager.signIn(username: fixture.username, password: fixture.password)
        #expect(tokens.refreshToken != nil)
        #expect(tokens.scope == "read")
        #expect(tokens.tokenType == "Bearer")
        // Absolute expiry = receipt + expires_in (the test server's 600 s).
        #expect(abs((tokens.lifetime ?? 0) - 600) < 0.001)
        #expect(tokens.issuedAt == clock.now())

        let stored = try #require(try await manager.store.tokens(for: fixture.username))
        #expect(stored == tokens)
        #expect(try await test.keychain(service: server.issuer.absoluteString).allKeys() == [fixture.username])
        // The manager's clock stands still, so the 5-second token is outside its refresh window (2.5 s).
        #expect(try await manager.authorizationHeader() == "Bearer " + tokens.accessToken)

        let response = try await manager.send(TransportRequest(url: server.url("api/me/")))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains(fixture.username))
        #expect(try await server.count(fixture.password_client, grant: "password", status: 200) == 1)
    }

    @Test func publicClientSignsInAndRefreshesWithItsIdOnly() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: server.configuration(fixture.public_password_client),
            account: fixture.username,
            keychain: test.keychain()
        )
        let first = try await manager.signIn(username: fixture.username, password: fixture.password, scope: "read")
        let second = try await manager.refresh()
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken != first.refreshToken)
        #expect(try await server.count(fixture.public_password_client, grant: "refresh_token", status: 200) == 1)
    }

    @Test func wrongPasswordIsRejectedAndLeavesStoredTokensAlone() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: server.configuration(fixture.password_client),
            account: fixture.username,
            keychain: test.keychain()
        )
        let tokens = try await manager.signIn(username: fixture.username, password: fixture.password)
        do {
            try await manager.signIn(username: fixture.username, password: "wrong-password")
            Issue.record("a wrong password signed in")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.oauthError == "invalid_grant")
        }
        #expect(try await manager.storedTokens() == tokens)
    }

    @Test func clientCredentialsHaveNoRefreshTokenAndRerunTheGrantOnExpiry() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let client = fixture.client_credentials_client
        let clock = ManualClock(Date())
        let manager = TokenManager(
            configuration: server.configuration(client, clock: clock),
            account: client.client_id,
            keychain: test.keychain()
        )
        let first = try await manager.signInWithClientCredentials()
        #expect(first.refreshToken == nil)
        #expect(first.grant == .clientCredentials)
        try moveIntoRefreshWindow(clock, first)
        let second = try await manager.validAccessToken()
        #expect(second != first.accessToken)
        #expect(try await server.me(second).status == 200)
        #expect(try await server.count(client, grant: "client_credentials", status: 200) == 2)
    }

    @Test func expiringTokensAreRefreshedProactivelyWithRotation() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let clock = ManualClock(Date())
        let manager = TokenManager(
            configuration: server.configuration(fixture.password_client, clock: clock),
            account: fixture.username,
            keychain: test.keychain()
        )
        let first = try await manager.signIn(username: fixture.username, password: fixture.password)
        #expect(try await manager.validTokens() == first)  // not yet due
        try moveIntoRefreshWindow(clock, first)
        let second = try await manager.validTokens()
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken != first.refreshToken)
        #expect(try await manager.store.tokens(for: fixture.username) == second)
        #expect(try await server.me(second.accessToken).status == 200)
        #expect(try await server.count(fixture.password_client, grant: "refresh_token", status: 200) == 1)
        // The old refresh token is spent: the server's reuse protection would refuse it.
        #expect(try await server.failures(fixture.password_client).isEmpty)
    }

    @Test func twentyConcurrentCallersCauseExactlyOneRefresh() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let keychain = test.keychain()
        let clock = ManualClock(Date())
        let configuration = server.configuration(fixture.password_client, clock: clock)
        let manager = TokenManager(configuration: configuration, account: fixture.username, keychain: keychain)
        let sibling = TokenManager(configuration: configuration, account: fixture.username, keychain: keychain)
        let first = try await manager.signIn(username: fixture.username, password: fixture.password)
        try moveIntoRefreshWindow(clock, first)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 {
                group.addTask { try await (index < 16 ? manager : sibling).validAccessToken() }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 20)
        #expect(Set(tokens).count == 1)
        #expect(tokens.first != first.accessToken)
        #expect(try await server.count(fixture.password_client, grant: "refresh_token", status: 200) == 1)
        #expect(try await server.failures(fixture.password_client).isEmpty)
        // With a second refresh, reuse protection would have revoked the family: the token still works.
        #expect(try await server.me(try #require(tokens.first)).status == 200)
    }

    @Test func twoProcessesSharingOneKeychainRefreshOnce() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let client = fixture.password_client
        let clock = ManualClock(Date())
        let configuration = server.configuration(client, clock: clock)
        let manager = TokenManager(configuration: configuration, account: fixture.username, keychain: test.keychain())
        let first = try await manager.signIn(username: fixture.username, password: fixture.password)

        var arguments = [
            "--token-endpoint", server.url("o/token/").absoluteString, "--client-id", client.client_id,
            "--service", configuration.service, "--account", fixture.username,
        ]
        if let secret = client.client_secret { arguments += ["--client-secret", secret] }
        let peers = try (0..<2).map { _ in
            try ChildProcess(
                OAuthTestEnvironment.peerExecutable,
                arguments,
                environment: test.environment(),
                keepingInputOpen: true
            )
        }
        defer { for peer in peers { Task { await peer.stop() } } }
        for peer in peers {
            let ready = await peer.line(startingWith: "READY", timeout: 60)
            #expect(ready != nil, "peer did not start: \(peer.errorText)")
        }
        // Both peers read the same moment inside the refresh window: the first to get the lock refreshes,
        // the other re-reads its result, which at that moment is not due.
        let due = try moveIntoRefreshWindow(clock, first)
        for peer in peers { peer.send("go \(due.timeIntervalSince1970)") }
        var fingerprints: [String] = []
        for peer in peers {
            let line = await peer.line(startingWith: "FINGERPRINT", timeout: 60)
            #expect(line != nil, "peer failed: \(peer.stdoutLines) \(peer.errorText)")
            if let line { fingerprints.append(line) }
            #expect(await peer.exitStatus(timeout: 30) == 0)
        }
        #expect(fingerprints.count == 2)
        #expect(Set(fingerprints).count == 1)
        #expect(try await server.count(client, grant: "refresh_token", status: 200) == 1)
        #expect(try await server.failures(client).isEmpty)
        let shared = try #require(try await manager.storedTokens())
        #expect(shared.accessToken != first.accessToken)
        #expect(try await server.me(shared.accessToken).status == 200)
    }

    @Test func invalidTokenAnswerRefreshesOnceAndRetries() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        var configuration = server.configuration(fixture.password_client)
        configuration.refreshLeeway = .zero
        let manager = TokenManager(configuration: configuration, account: fixture.username, keychain: test.keychain())
        let first = try await manager.signIn(username: fixture.username, password: fixture.password)
        try await server.expire(accessToken: first.accessToken)
        #expect(try await server.me(first.accessToken).status == 401)

        let response = try await manager.send(TransportRequest(url: server.url("api/me/")))
        #expect(response.status == 200)
        #expect(try await server.count(fixture.password_client, grant: "refresh_token", status: 200) == 1)
        #expect(try await manager.storedTokens()?.accessToken != first.accessToken)
    }

    @Test func logoutRevokesTheRefreshTokenAndClearsTheItem() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: server.configuration(fixture.password_client),
            account: fixture.username,
            keychain: test.keychain()
        )
        let tokens = try await manager.signIn(username: fixture.username, password: fixture.password)
        let report = try await manager.logout()
        #expect(report.removedTokens)
        #expect(report.revocation.description == "revoked")
        #expect(try await manager.storedTokens() == nil)
        #expect(try await test.keychain(service: server.issuer.absoluteString).allKeys().isEmpty)
        #expect(try await server.count(fixture.password_client, endpoint: "revoke", grant: "-", status: 200) == 1)
        let refresh = try await server.rawRefresh(try #require(tokens.refreshToken), client: fixture.password_client)
        #expect(refresh.status == 400)
        #expect(String(decoding: refresh.body, as: UTF8.self).contains("invalid_grant"))
        #expect(try await server.me(tokens.accessToken).status == 401)
    }

    @Test func aRevokedRefreshTokenEndsTheSession() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: server.configuration(fixture.password_client),
            account: fixture.username,
            keychain: test.keychain()
        )
        let tokens = try await manager.signIn(username: fixture.username, password: fixture.password)
        try await server.rawRevoke(
            try #require(tokens.refreshToken),
            hint: "refresh_token",
            client: fixture.password_client
        )
        do {
            try await manager.refresh()
            Issue.record("a revoked refresh token refreshed")
        } catch {
            #expect(error.code == .sessionExpired)
            #expect(error.oauthError == "invalid_grant")
        }
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func deviceGrantSignsInAfterApproval() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let client = fixture.device_client
        // The manager waits before each poll through this sleep: the first returns at once (that poll
        // finds the code pending), the second reports itself and returns once the test has approved.
        let waits = CallCounter()
        let secondWait = Countdown(1)
        let approved = Countdown(1)
        var configuration = server.configuration(client)
        configuration.sleep = { _ in
            guard await waits.next() == 1 else { return }
            await secondWait.arrive()
            await approved.wait()
        }
        let manager = TokenManager(configuration: configuration, account: fixture.username, keychain: test.keychain())
        let authorization = try await manager.startDeviceAuthorization(scope: "read")
        #expect(authorization.interval == .seconds(1))
        #expect(authorization.verificationURI.absoluteString.hasSuffix("/o/device/"))
        #expect(!authorization.description.contains(authorization.deviceCode))
        async let tokens = manager.completeDeviceAuthorization(authorization)
        await secondWait.wait()
        try await server.approveDevice(userCode: authorization.userCode, username: fixture.username)
        await approved.arrive()
        let signedIn = try await tokens
        #expect(signedIn.grant == .deviceCode)
        #expect(signedIn.refreshToken != nil)
        let me = try await server.me(signedIn.accessToken)
        #expect(String(decoding: me.body, as: UTF8.self).contains(fixture.username))
        #expect(try await server.count(client, grant: GrantType.deviceCode.rawValue, status: 200) == 1)
        #expect(try await server.count(client, grant: GrantType.deviceCode.rawValue, status: 400) == 1)  // pending
    }

    @Test func deniedDeviceAuthorizationIsAccessDenied() async throws {
        let server = try server
        let fixture = try await server.fixture()
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: server.configuration(fixture.device_client),
            account: fixture.username,
            keychain: test.keychain()
        )
        let authorization = try await manager.startDeviceAuthorization()
        try await server.approveDevice(userCode: authorization.userCode, username: fixture.username, deny: true)
        do {
            try await manager.completeDeviceAuthorization(authorization)
            Issue.record("a denied device authorization signed in")
        } catch {
            #expect(error.code == .accessDenied)
        }
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func discoveryFindsTheEndpointsFromTheIssuer() async throws {
        let server = try server
        let metadata = try await AuthorizationServerMetadata.discover(issuer: server.issuer)
        #expect(metadata.issuer == server.issuer)
        let endpoints = try metadata.endpoints()
        #expect(endpoints.tokenEndpoint == server.url("o/token/"))
        #expect(endpoints.revocationEndpoint == server.url("o/revoke_token/"))
        #expect(metadata.codeChallengeMethodsSupported?.contains("S256") == true)
        #expect(metadata.grantTypesSupported?.contains(GrantType.deviceCode.rawValue) == true)

        let fixture = try await server.fixture()
        let configuration = try await TokenManager.Configuration.discover(
            issuer: server.issuer,
            client: OAuthClient(id: fixture.password_client.client_id, secret: fixture.password_client.client_secret)
        )
        #expect(configuration.service == server.issuer.absoluteString)
        let test = try TestKeychain()
        let manager = TokenManager(configuration: configuration, account: fixture.username, keychain: test.keychain())
        try await manager.signIn(username: fixture.username, password: fixture.password)
        #expect(try await manager.logout().revocation.description == "revoked")
    }

    @Test func authorizationURLTargetsTheServersAuthorizeEndpoint() async throws {
        let server = try server
        let metadata = try await AuthorizationServerMetadata.discover(issuer: server.issuer)
        let endpoints = try metadata.endpoints()
        let manager = TokenManager(
            configuration: TokenManager.Configuration(endpoints: endpoints, client: OAuthClient(id: "app")),
            account: "alice",
            keychain: try TestKeychain().keychain()
        )
        let request = try manager.authorizationRequest(
            redirectURI: URL(string: "http://127.0.0.1/callback")!,
            scope: "read"
        )
        #expect(request.url.absoluteString.hasPrefix(server.url("o/authorize/").absoluteString + "?"))
        #expect(request.url.query?.contains("code_challenge_method=S256") == true)
    }
}
