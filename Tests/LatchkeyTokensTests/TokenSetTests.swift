import Foundation
import Testing

@testable import LatchkeyTokens

struct TokenSetTests {
    static let issued = Date(timeIntervalSince1970: 1_700_000_000)

    static func sample(lifetime: TimeInterval? = 3600) -> TokenSet {
        TokenSet(
            accessToken: "AT-secret-value",
            refreshToken: "RT-secret-value",
            expiresAt: lifetime.map { issued.addingTimeInterval($0) },
            issuedAt: issued,
            scope: "read write",
            idToken: "ID-secret-value",
            grant: .password
        )
    }

    @Test func leewayIsClampedToHalfTheLifetimeOfShortTokens() {
        let tokens = Self.sample(lifetime: 5)
        #expect(tokens.effectiveLeeway(60) == 2.5)
        #expect(!tokens.needsRefresh(at: Self.issued.addingTimeInterval(2.4), leeway: 60))
        #expect(tokens.needsRefresh(at: Self.issued.addingTimeInterval(2.5), leeway: 60))
    }

    @Test func longTokensUseTheConfiguredLeeway() {
        let tokens = Self.sample(lifetime: 3600)
        #expect(tokens.effectiveLeeway(60) == 60)
        #expect(!tokens.needsRefresh(at: Self.issued.addingTimeInterval(3539), leeway: 60))
        #expect(tokens.needsRefresh(at: Self.issued.addingTimeInterval(3540), leeway: 60))
        #expect(!tokens.isExpired(at: Self.issued.addingTimeInterval(3599)))
        #expect(tokens.isExpired(at: Self.issued.addingTimeInterval(3600)))
    }

    @Test func tokensWithoutExpiryNeverNeedAProactiveRefresh() {
        let tokens = Self.sample(lifetime: nil)
        #expect(!tokens.needsRefresh(at: .distantFuture, leeway: 60))
        #expect(!tokens.isExpired(at: .distantFuture))
    }

    @Test func storedFormKeepsTheAbsoluteExpiryWhateverTheCoderStrategy() throws {
        let tokens = Self.sample()
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601  // ignored: the format fixes its own date encoding
        let data = try encoder.encode(tokens)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["expires_at"] as? Double == Self.issued.timeIntervalSince1970 + 3600)
        #expect(object["v"] as? Int == 1)
        #expect(object["grant"] as? String == "password")
        let decoded = try JSONDecoder().decode(TokenSet.self, from: data)
        #expect(decoded == tokens)
    }

    @Test func unknownFormatVersionsAreRefused() {
        let data = Data(#"{"v": 99, "access_token": "a", "token_type": "Bearer", "issued_at": 0}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TokenSet.self, from: data) }
    }

    @Test func authorizationHeaderIsExactlyBearerSpaceToken() {
        #expect(Self.sample().authorizationHeader == "Bearer AT-secret-value")
    }

    @Test func descriptionsAndDumpsNeverShowTokens() {
        let tokens = Self.sample()
        var dumped = ""
        dump(tokens, to: &dumped)
        for text in [tokens.description, tokens.debugDescription, String(reflecting: tokens), "\(tokens)", dumped] {
            #expect(!text.contains("secret-value"), "leaked in: \(text)")
        }
        #expect(tokens.description.contains("refresh token: yes"))
    }

    @Test func equalityComparesEveryToken() {
        var other = Self.sample()
        #expect(other == Self.sample())
        other.refreshToken = "RT-secret-valuf"
        #expect(other != Self.sample())
        other = Self.sample()
        other.refreshToken = nil
        #expect(other != Self.sample())
        #expect(constantTimeEquals("abc", "abc"))
        #expect(!constantTimeEquals("abc", "abcd"))
        #expect(!constantTimeEquals("", "a"))
    }
}
