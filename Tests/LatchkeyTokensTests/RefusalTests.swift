import Foundation
import Latchkey
import LatchkeyTesting
import Testing

@testable import LatchkeyTokens

/// How the manager reads a token-endpoint answer without an RFC 6749 error body, by grant and status
/// (issue 14, finding 7): a bare 400/403 to the refresh grant ends the session, the same to a sign-in
/// grant is a rejection, and nothing transient or local ever clears the tokens. The same rules against
/// a real terse server are in `GlewlwydServerTests`.
struct RefusalTests {
    static func bare(_ status: Int, _ body: String = "") -> ScriptedTransport.Step {
        .respond(TransportResponse(status: status, body: Data(body.utf8)))
    }

    static func manager(_ test: TestKeychain, _ transport: ScriptedTransport, keychain: Keychain? = nil)
        -> TokenManager
    {
        TokenManager(
            configuration: TokenManagerTests.configuration(),
            account: "alice",
            keychain: keychain ?? test.keychain(),
            transport: transport
        )
    }

    @Test(arguments: [(400, ""), (403, ""), (400, "Bad Request"), (403, "<html>Forbidden</html>")])
    func aBareRefusalOfTheRefreshEndsTheSession(status: Int, body: String) async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport([Self.bare(status, body)])
        let manager = Self.manager(test, transport)
        try await manager.save(TokenManagerTests.tokens(expiresIn: -1))
        do {
            _ = try await manager.validAccessToken()
            Issue.record("a refused refresh returned a token")
        } catch {
            #expect(error.code == .sessionExpired)
            #expect(error.httpStatus == status)
            #expect(error.oauthError == nil)
            #expect(!error.isRetryable)
        }
        #expect(try await manager.storedTokens() == nil)
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [400, 403])
    func aBareRefusalOfThePasswordGrantIsARejectionThatKeepsTheStoredTokens(status: Int) async throws {
        let test = try TestKeychain()
        let manager = Self.manager(test, ScriptedTransport([Self.bare(status)]))
        let stored = TokenManagerTests.tokens(expiresIn: 3600)
        try await manager.save(stored)
        do {
            try await manager.signIn(username: "alice", password: "wrong-password-1")
            Issue.record("a refused password signed in")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.httpStatus == status)
            #expect(error.oauthError == nil)
            #expect(!error.description.contains("wrong-password-1"))
        }
        #expect(try await manager.storedTokens() == stored)
    }

    @Test func aBareRefusalOfClientCredentialsIsARejectionOnSignInAndOnRerun() async throws {
        let test = try TestKeychain()
        let manager = Self.manager(test, ScriptedTransport([Self.bare(403)]))
        await #expect(throws: TokenError.self) { try await manager.signInWithClientCredentials(scope: "read") }
        let now = Date()
        let session = TokenSet(
            accessToken: "AT-client",
            expiresAt: now.addingTimeInterval(-1),
            issuedAt: now.addingTimeInterval(-3600),
            scope: "read",
            grant: .clientCredentials
        )
        try await manager.save(session)
        do {
            _ = try await manager.validAccessToken()
            Issue.record("a refused client-credentials grant returned a token")
        } catch {
            #expect(error.code == .rejected)
            #expect(error.httpStatus == 403)
        }
        #expect(try await manager.storedTokens() == session)
    }

    @Test(arguments: [
        (ScriptedTransport.Step.fail, TokenError.Code.network),
        (ScriptedTransport.json(429, ""), .serverUnavailable),
        (ScriptedTransport.json(503, ""), .serverUnavailable),
        (RefusalTests.bare(502), .serverUnavailable),
        (RefusalTests.bare(404), .invalidResponse),
        (RefusalTests.bare(405), .invalidResponse),
    ])
    func transientAndMisroutedAnswersKeepTheTokens(step: ScriptedTransport.Step, code: TokenError.Code)
        async throws
    {
        let test = try TestKeychain()
        let manager = Self.manager(test, ScriptedTransport([step]))
        let stored = TokenManagerTests.tokens(expiresIn: -1)
        try await manager.save(stored)
        do {
            _ = try await manager.validAccessToken()
            Issue.record("an expired token was returned although the refresh failed")
        } catch {
            #expect(error.code == code)
        }
        #expect(try await manager.storedTokens() == stored)
    }

    @Test func aLockedKeychainNeverReachesTheRefusingServerNorClearsAnything() async throws {
        let test = try TestKeychain()
        let transport = ScriptedTransport([Self.bare(400)])
        let manager = Self.manager(test, transport, keychain: test.keychain().accessibility(.whenUnlocked))
        let stored = TokenManagerTests.tokens(expiresIn: -1)
        try await manager.save(stored)
        test.lock()
        for _ in 0..<2 {
            do {
                _ = try await manager.validAccessToken()
                Issue.record("a locked keychain was read")
            } catch {
                #expect(error.code == .keychainLocked)
            }
        }
        #expect(transport.requests.isEmpty)
        try test.unlock()
        #expect(try await manager.storedTokens() == stored)
    }
}
