import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeyTokens

/// Against Glewlwyd 2.7 (Debian's `glewlwyd`), a real OAuth 2.0 server that refuses grants with a bare
/// status and an empty body: a wrong password 403, a revoked or unknown refresh token 400, a wrong client
/// secret for client credentials 403. The manager must read those as a refusal (`rejected`) and, on a
/// refresh, as a dead session (`sessionExpired`, tokens cleared), as docs/tokens.md says.
@Suite(.glewlwydServer, .timeLimit(.minutes(10)))
struct GlewlwydServerTests {
    var server: GlewlwydServer {
        get throws { try #require(GlewlwydServer.current) }
    }

    /// A manager for the test user (or, for client credentials, the client) in `test`'s keychain.
    func manager(
        _ server: GlewlwydServer,
        _ test: TestKeychain,
        client: OAuthClient = GlewlwydServer.client,
        account: String = GlewlwydServer.username
    ) -> TokenManager {
        TokenManager(configuration: server.configuration(client: client), account: account, keychain: test.keychain())
    }

    /// What the other tests rely on, seen on the wire: the refusals carry no RFC 6749 error body.
    @Test func theServerRefusesGrantsWithABareStatusAndAnEmptyBody() async throws {
        let server = try server
        let wrongPassword = try await server.rawTokenRequest([
            "grant_type": "password", "username": GlewlwydServer.username, "password": "not-the-password",
            "scope": "read",
        ])
        #expect(wrongPassword.status == 403)
        #expect(wrongPassword.body.isEmpty)
        let unknownRefresh = try await server.rawTokenRequest([
            "grant_type": "refresh_token", "refresh_token": "not-a-refresh-token",
        ])
        #expect(unknownRefresh.status == 400)
        #expect(unknownRefresh.body.isEmpty)
        let wrongSecret = try await server.rawTokenRequest(
            ["grant_type": "client_credentials", "scope": "read"],
            client: OAuthClient(id: GlewlwydServer.client.id, secret: "wrong-secret")
        )
        #expect(wrongSecret.status == 403)
        #expect(wrongSecret.body.isEmpty)
    }

    @Test func passwordSignInAndRefreshWork() async throws {
        let server = try server
        let test = try TestKeychain()
        let manager = manager(server, test)
        let first = try await manager.signIn(
            username: GlewlwydServer.username,
            password: GlewlwydServer.password,
            scope: "read"
        )
        #expect(first.refreshToken != nil)
        #expect(first.scope == "read")
        #expect(first.tokenType == "Bearer")  // Glewlwyd sends "bearer"
        let second = try await manager.refresh()
        #expect(second.accessToken != first.accessToken)
        #expect(second.refreshToken == first.refreshToken)  // Glewlwyd does not rotate refresh tokens
        #expect(try await manager.storedTokens() == second)
    }

    @Test func aWrongPasswordIsRejectedAndLeavesStoredTokensAlone() async throws {
        let server = try server
        let test = try TestKeychain()
        let manager = manager(server, test)
        let tokens = try await manager.signIn(
            username: GlewlwydServer.username,
            password: GlewlwydServer.password,
            scope: "read"
        )
        do {
            try await manager.signIn(username: GlewlwydServer.username, password: "not-the-password", scope: "read")
            Issue.record("a wrong password signed in")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.httpStatus == 403)
            #expect(error.oauthError == nil)
            #expect(!error.isRetryable)
        }
        #expect(try await manager.storedTokens() == tokens)
    }

    @Test func aRefreshTokenRevokedAtLogoutEndsTheSessionOfEveryCopy() async throws {
        let server = try server
        let test = try TestKeychain()
        let other = try TestKeychain()
        let manager = manager(server, test)
        let copy = self.manager(server, other)
        let tokens = try await manager.signIn(
            username: GlewlwydServer.username,
            password: GlewlwydServer.password,
            scope: "read"
        )
        try await copy.save(tokens)
        let report = try await manager.logout()
        #expect(report.removedTokens)
        #expect(report.revocation.description == "revoked")
        do {
            try await copy.refresh()
            Issue.record("a revoked refresh token refreshed")
        } catch {
            #expect(error.code == .sessionExpired)
            #expect(error.httpStatus == 400)
            #expect(error.oauthError == nil)
        }
        #expect(try await copy.storedTokens() == nil)
        #expect(try await other.keychain(service: copy.configuration.service).allKeys().isEmpty)
    }

    @Test func anUnknownRefreshTokenEndsTheSessionOnTheNextCall() async throws {
        let server = try server
        let test = try TestKeychain()
        let manager = manager(server, test)
        let now = Date()
        try await manager.save(
            TokenSet(
                accessToken: "AT-unknown",
                refreshToken: "RT-unknown",
                expiresAt: now.addingTimeInterval(-5),
                issuedAt: now.addingTimeInterval(-3600),
                scope: "read",
                grant: .password
            )
        )
        do {
            _ = try await manager.validAccessToken()
            Issue.record("an unknown refresh token gave an access token")
        } catch {
            #expect(error.code == .sessionExpired)
            #expect(error.httpStatus == 400)
        }
        #expect(try await manager.storedTokens() == nil)
    }

    @Test func aWrongClientSecretIsRejectedForClientCredentials() async throws {
        let server = try server
        let test = try TestKeychain()
        let wrong = OAuthClient(id: GlewlwydServer.client.id, secret: "wrong-secret")
        do {
            try await manager(server, test, client: wrong, account: wrong.id).signInWithClientCredentials(scope: "read")
            Issue.record("a wrong client secret got tokens")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.httpStatus == 403)
            #expect(error.oauthError == nil)
        }
        let right = manager(server, test, account: GlewlwydServer.client.id)
        let tokens = try await right.signInWithClientCredentials(scope: "read")
        #expect(tokens.refreshToken == nil)
        #expect(tokens.grant == .clientCredentials)
    }
}
