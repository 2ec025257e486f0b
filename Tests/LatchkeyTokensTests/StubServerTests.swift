import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeyTokens

/// What the real server will not do on request, from the scripted stub over real HTTP (AsyncHTTPClient):
/// 503, 429, a refresh answer without a refresh token, a connection dropped mid-refresh, `slow_down`,
/// `expired_token`, odd `expires_in`, a foreign issuer.
@Suite(.stubServer, .timeLimit(.minutes(10)))
struct StubServerTests {
    var stub: StubServer {
        get throws { try #require(StubServer.current) }
    }

    /// A manager on a fresh namespace, holding expired tokens (so the next call must refresh).
    func manager(
        _ namespace: StubServer.Namespace,
        keychain test: TestKeychain,
        sleeps: SleepRecorder = SleepRecorder(),
        expired: Bool = true,
        clock: (any KeychainClock)? = nil
    ) async throws -> TokenManager {
        var configuration = namespace.configuration(sleeps: sleeps)
        if let clock { configuration.clock = clock }
        let manager = TokenManager(configuration: configuration, account: "alice", keychain: test.keychain())
        let now = configuration.clock.now()
        try await manager.save(
            TokenSet(
                accessToken: "AT-1",
                refreshToken: "RT-1",
                expiresAt: now.addingTimeInterval(expired ? -5 : 3600),
                issuedAt: now.addingTimeInterval(-3600),
                scope: "read"
            )
        )
        return manager
    }

    @Test func serviceUnavailableKeepsTheTokensAndReportsRetryAfter() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["token": [.text(503, "maintenance", headers: ["Retry-After": "7"])]])
        let test = try TestKeychain()
        let manager = try await manager(namespace, keychain: test)
        do {
            _ = try await manager.validAccessToken()
            Issue.record("an expired token was served although the refresh failed")
        } catch {
            #expect(error.code == .serverUnavailable)
            #expect(error.httpStatus == 503)
            #expect(error.retryAfter == .seconds(7))
            #expect(error.isRetryable)
        }
        #expect(try await manager.storedTokens()?.refreshToken == "RT-1")
        let log = try await namespace.log()
        #expect(log.count == 1)
        #expect(log.first?.form["grant_type"] == "refresh_token")
        #expect(log.first?.form["refresh_token"] == "RT-1")
        #expect(
            log.first?.headers["authorization"] == "Basic " + Data("stub-client:stub-secret".utf8).base64EncodedString()
        )
        #expect(log.first?.headers["content-type"] == "application/x-www-form-urlencoded")
    }

    @Test func tooManyRequestsKeepsTheTokens() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["token": [.json(429, #"{"error":"slow_down_please"}"#)]])
        let test = try TestKeychain()
        let manager = try await manager(namespace, keychain: test)
        do {
            _ = try await manager.validAccessToken()
            Issue.record("a 429 refresh returned a token")
        } catch {
            #expect(error.code == .serverUnavailable)
            #expect(error.httpStatus == 429)
        }
        #expect(try await manager.storedTokens()?.accessToken == "AT-1")
    }

    @Test func aRefreshAnswerWithoutRefreshTokenKeepsTheOldOne() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["token": [.tokens(access: "AT-2")]])
        let test = try TestKeychain()
        let manager = try await manager(namespace, keychain: test)
        #expect(try await manager.validAccessToken() == "AT-2")
        let stored = try #require(try await manager.storedTokens())
        #expect(stored.refreshToken == "RT-1")
        #expect(stored.scope == "read")
    }

    @Test func aRotatedRefreshTokenReplacesTheOldOneInTheSameWrite() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["token": [.tokens(access: "AT-2", refresh: "RT-2", expiresIn: #""120""#)]])
        let test = try TestKeychain()
        // A fixed clock: the expiry is the response's time plus 120 s exactly, however slow the machine is.
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let manager = try await manager(namespace, keychain: test, clock: ManualClock(now))
        let tokens = try await manager.refresh()
        #expect(tokens.refreshToken == "RT-2")
        #expect(tokens.expiresAt == now.addingTimeInterval(120))  // "120" as a string
        #expect(try await manager.storedTokens() == tokens)
    }

    @Test func aConnectionDroppedMidRefreshKeepsTheTokens() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["token": [.dropConnection, .tokens(access: "AT-2", refresh: "RT-2")]])
        let test = try TestKeychain()
        let manager = try await manager(namespace, keychain: test)
        do {
            _ = try await manager.validAccessToken()
            Issue.record("a dropped connection produced a token")
        } catch {
            #expect(error.code == .network)
            #expect(error.isRetryable)
        }
        #expect(try await manager.storedTokens()?.refreshToken == "RT-1")
        #expect(try await manager.validAccessToken() == "AT-2")
        #expect(try await manager.storedTokens()?.refreshToken == "RT-2")
    }

    @Test func slowDownAddsFiveSecondsToThisAndEveryLaterPoll() async throws {
        let namespace = try stub.namespace()
        try await namespace.script([
            "device": [
                .json(
                    200,
                    #"{"device_code":"DC-1","user_code":"ABCD-EFGH","verification_uri":"https://id.example.com/device","expires_in":600,"interval":1}"#
                )
            ],
            "token": [
                .oauthError("authorization_pending"), .oauthError("slow_down"), .oauthError("authorization_pending"),
                .tokens(access: "AT-device", refresh: "RT-device"),
            ],
        ])
        let test = try TestKeychain()
        let sleeps = SleepRecorder()
        let manager = TokenManager(
            configuration: namespace.configuration(sleeps: sleeps),
            account: "device-user",
            keychain: test.keychain()
        )
        let tokens = try await manager.signInWithDevice(scope: "read") { authorization in
            #expect(authorization.userCode == "ABCD-EFGH")
        }
        #expect(tokens.accessToken == "AT-device")
        #expect(tokens.grant == .deviceCode)
        #expect(await sleeps.durations == [.seconds(1), .seconds(1), .seconds(6), .seconds(6)])
        let polls = try await namespace.log().filter { $0.name == "token" }
        #expect(polls.count == 4)
        #expect(
            polls.allSatisfy {
                $0.form["device_code"] == "DC-1" && $0.form["grant_type"] == GrantType.deviceCode.rawValue
            }
        )
    }

    @Test func anExpiredDeviceCodeStopsPolling() async throws {
        let namespace = try stub.namespace()
        try await namespace.script([
            "device": [
                .json(
                    200,
                    #"{"device_code":"DC-1","user_code":"U","verification_uri":"https://x/device","expires_in":600}"#
                )
            ],
            "token": [.oauthError("authorization_pending"), .oauthError("expired_token")],
        ])
        let test = try TestKeychain()
        let sleeps = SleepRecorder()
        let manager = TokenManager(
            configuration: namespace.configuration(sleeps: sleeps),
            account: "device-user",
            keychain: test.keychain()
        )
        let authorization = try await manager.startDeviceAuthorization()
        #expect(authorization.interval == .seconds(5))  // RFC 8628 default when the server names none
        do {
            try await manager.completeDeviceAuthorization(authorization)
            Issue.record("an expired device code signed in")
        } catch {
            #expect(error.code == .deviceCodeExpired)
        }
        #expect(try await namespace.log().filter { $0.name == "token" }.count == 2)
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func revocationFailureIsReportedAndTheTokensAreClearedAnyway() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["revoke": [.text(503, "busy")]])
        let test = try TestKeychain()
        let manager = try await manager(namespace, keychain: test, expired: false)
        let report = try await manager.logout()
        #expect(report.removedTokens)
        guard case .failed(let error) = report.revocation else {
            Issue.record("the 503 revocation was not reported: \(report)")
            return
        }
        #expect(error.code == .serverUnavailable)
        #expect(try await manager.storedTokens() == nil)
        let revocation = try #require(try await namespace.log().first)
        #expect(revocation.form == ["token": "RT-1", "token_type_hint": "refresh_token"])
    }

    @Test func aTokenTypeOtherThanBearerIsRefused() async throws {
        let namespace = try stub.namespace()
        try await namespace.script(["token": [.tokens(access: "AT-mac", refresh: "RT-mac", type: "mac")]])
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: namespace.configuration(),
            account: "alice",
            keychain: test.keychain()
        )
        do {
            try await manager.signIn(username: "alice", password: "pw")
            Issue.record("a mac token was accepted")
        } catch {
            #expect(error.code == .invalidResponse)
        }
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func metadataNamingAnotherIssuerIsRejected() async throws {
        let namespace = try stub.namespace()
        try await namespace.script([
            ".well-known/oauth-authorization-server": [
                .json(200, #"{"issuer":"https://evil.example.com","token_endpoint":"https://evil.example.com/token"}"#)
            ]
        ])
        let issuer = try stub.base.appendingPathComponent(namespace.name)
        do {
            _ = try await AuthorizationServerMetadata.discover(issuer: issuer)
            Issue.record("metadata for another issuer was accepted")
        } catch {
            #expect(error.code == .invalidResponse)
        }
        let log = try await namespace.log()
        #expect(log.map(\.name) == [".well-known/oauth-authorization-server"])
    }

    @Test func aSessionWithoutExpiryIsUsedUntilTheServerRejectsIt() async throws {
        let namespace = try stub.namespace()
        try await namespace.script([
            "token": [.json(200, #"{"access_token":"AT-forever","token_type":"Bearer","refresh_token":"RT-x"}"#)],
            "api": [.json(401, "{}", headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])],
        ])
        let test = try TestKeychain()
        let manager = TokenManager(
            configuration: namespace.configuration(),
            account: "alice",
            keychain: test.keychain()
        )
        let tokens = try await manager.signIn(username: "alice", password: "pw")
        #expect(tokens.expiresAt == nil)
        #expect(try await manager.validAccessToken() == "AT-forever")
        let response = try await manager.send(TransportRequest(url: namespace.url("api")))
        #expect(response.status == 401)
        // One refresh (the script answers AT-forever again), one retry, no loop.
        let log = try await namespace.log()
        #expect(log.map(\.name) == ["token", "api", "token", "api"])
        #expect(log[1].headers["authorization"] == "Bearer AT-forever")
    }
}
