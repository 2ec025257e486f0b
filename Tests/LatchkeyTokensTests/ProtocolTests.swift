import Foundation
import Testing

@testable import LatchkeyTokens

/// The protocol pieces, without a server: challenges, forms, PKCE, URLs, retry arithmetic, response parsing.
struct ProtocolTests {
    @Test(arguments: [
        (#"Bearer error="invalid_token", error_description="The access token expired""#, true),
        (#"Bearer realm="api",error="invalid_token""#, true),
        (#"bearer error=invalid_token"#, true),
        (#"Basic realm="x", Bearer error="invalid_token""#, true),
        (#"Bearer error="insufficient_scope", scope="write""#, false),
        (#"Bearer resource_metadata="https://x/.well-known/oauth-protected-resource""#, false),
        (#"Basic realm="invalid_token""#, false),
        (#"DPoP error="invalid_token""#, false),
    ])
    func invalidTokenChallengesAreRecognised(header: String, expected: Bool) {
        let response = TransportResponse(status: 401, headers: [("WWW-Authenticate", header)])
        #expect(BearerChallenge.isInvalidToken(response) == expected)
    }

    @Test func onlyA401CountsAsAnInvalidTokenChallenge() {
        let response = TransportResponse(status: 403, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
        #expect(!BearerChallenge.isInvalidToken(response))
    }

    @Test func challengeParametersAreUnquoted() {
        let challenges = BearerChallenge.parse(#"Bearer realm="a \"b\"", error="invalid_token", Basic realm=x"#)
        #expect(challenges.count == 2)
        #expect(challenges.first?.parameters == ["realm": #"a "b""#, "error": "invalid_token"])
        #expect(challenges.last?.scheme == "Basic")
    }

    @Test func formEncodingFollowsRFC6749AppendixB() {
        #expect(FormEncoding.encode([("a b", "c&d=e+f/ü")]) == "a+b=c%26d%3De%2Bf%2F%C3%BC")
        #expect(FormEncoding.decode("a+b=c%26d%3De%2Bf%2F%C3%BC").first! == ("a b", "c&d=e+f/ü"))
    }

    @Test func basicClientAuthenticationEncodesBeforeBase64() {
        var fields: [(String, String)] = []
        var headers: [(name: String, value: String)] = []
        OAuthClient(id: "my client", secret: "p@ss:word").authenticate(fields: &fields, headers: &headers)
        let expected = "Basic " + Data("my+client:p%40ss%3Aword".utf8).base64EncodedString()
        #expect(headers.first?.value == expected)
        #expect(fields.isEmpty)
        #expect(!OAuthClient(id: "c", secret: "p@ss").description.contains("p@ss"))
    }

    @Test func publicAndPostClientsSendTheirIdInTheForm() {
        var fields: [(String, String)] = []
        var headers: [(name: String, value: String)] = []
        OAuthClient(id: "app").authenticate(fields: &fields, headers: &headers)
        #expect(fields.map(\.0) == ["client_id"])
        fields = []
        OAuthClient(id: "app", secret: "s", authentication: .post).authenticate(fields: &fields, headers: &headers)
        #expect(fields.map(\.0) == ["client_id", "client_secret"])
        #expect(headers.isEmpty)
    }

    @Test func pkceMatchesTheRFC7636Example() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
        #expect(!pkce.description.contains(pkce.verifier))
    }

    @Test func freshPKCEVerifiersAreLongRandomAndUnreserved() {
        let first = PKCE()
        let second = PKCE()
        #expect(first.verifier != second.verifier)
        #expect(first.verifier.count == 43)
        #expect(first.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
    }

    @Test func authorizationRequestCarriesPKCEAndStateAndChecksTheCallback() throws {
        let request = try AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://id.example.com/authorize?tenant=1")!,
            clientID: "app",
            redirectURI: URL(string: "com.example.app:/callback")!,
            scope: "read write",
            state: "state-123"
        )
        let query = FormEncoding.decode(
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)!.percentEncodedQuery!
        )
        let parameters = Dictionary(query, uniquingKeysWith: { first, _ in first })
        #expect(parameters["tenant"] == "1")
        #expect(parameters["response_type"] == "code")
        #expect(parameters["client_id"] == "app")
        #expect(parameters["redirect_uri"] == "com.example.app:/callback")
        #expect(parameters["scope"] == "read write")
        #expect(parameters["state"] == "state-123")
        #expect(parameters["code_challenge"] == request.pkce.challenge)
        #expect(parameters["code_challenge_method"] == "S256")
        #expect(parameters["code_verifier"] == nil)

        let callback = URL(string: "com.example.app:/callback?code=abc&state=state-123")!
        #expect(try request.authorizationCode(from: callback) == "abc")
        #expect(throws: TokenError.self) {
            try request.authorizationCode(from: URL(string: "com.example.app:/callback?code=abc&state=forged")!)
        }
        do {
            _ = try request.authorizationCode(
                from: URL(string: "com.example.app:/callback?error=access_denied&state=state-123")!
            )
            Issue.record("a denied authorization returned a code")
        } catch {
            #expect(error.code == .accessDenied)
        }
    }

    @Test func metadataIsLookedForWhereRFC8414AndOIDCPutIt() {
        let withPath = AuthorizationServerMetadata.candidateURLs(for: URL(string: "https://id.example.com/tenant/")!)
        #expect(
            withPath.map(\.absoluteString) == [
                "https://id.example.com/.well-known/oauth-authorization-server/tenant",
                "https://id.example.com/tenant/.well-known/oauth-authorization-server",
                "https://id.example.com/tenant/.well-known/openid-configuration",
            ]
        )
        let root = AuthorizationServerMetadata.candidateURLs(for: URL(string: "https://id.example.com")!)
        #expect(
            root.map(\.absoluteString) == [
                "https://id.example.com/.well-known/oauth-authorization-server",
                "https://id.example.com/.well-known/openid-configuration",
            ]
        )
    }

    @Test func retryAfterAcceptsSecondsAndDates() {
        #expect(RetryAfter.parse("7") == .seconds(7))
        #expect(RetryAfter.parse(nil) == nil)
        #expect(RetryAfter.parse("soon") == nil)
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
    }

    @Test func retryDelaysDoubleAreCappedAndHonourRetryAfter() {
        let policy = RetryPolicy.exponential(retries: 4, initialDelay: .seconds(1), maximumDelay: .seconds(5))
        #expect(
            (0..<5).map { policy.delay(beforeRetry: $0, retryAfter: nil) } == [
                .seconds(1), .seconds(2), .seconds(4), .seconds(5), nil,
            ]
        )
        #expect(policy.delay(beforeRetry: 0, retryAfter: .seconds(3)) == .seconds(3))
        #expect(policy.delay(beforeRetry: 0, retryAfter: .seconds(30)) == nil)
        #expect(RetryPolicy.none.delay(beforeRetry: 0, retryAfter: nil) == nil)
    }

    @Test func tokenResponsesAreParsedLeniently() throws {
        let stringExpiry = try TokenResponse(
            body: Data(#"{"access_token":"a","token_type":"bearer","expires_in":"3600","scope":"read"}"#.utf8),
            status: 200
        )
        #expect(stringExpiry.expiresIn == 3600)
        #expect(stringExpiry.tokenType == "Bearer")
        let noExpiry = try TokenResponse(body: Data(#"{"access_token":"a","token_type":"Bearer"}"#.utf8), status: 200)
        #expect(noExpiry.expiresIn == nil)
        #expect(throws: TokenError.self) {
            try TokenResponse(body: Data(#"{"access_token":"a","token_type":"mac"}"#.utf8), status: 200)
        }
        #expect(throws: TokenError.self) {
            try TokenResponse(body: Data(#"{"token_type":"Bearer"}"#.utf8), status: 200)
        }
        #expect(throws: TokenError.self) { try TokenResponse(body: Data("<html>".utf8), status: 200) }
    }

    @Test func rotationReplacesTheRefreshTokenAndAMissingOneKeepsTheOld() throws {
        let previous = TokenSet(accessToken: "old", refreshToken: "rt-1", scope: "read", idToken: "id-1")
        let received = Date(timeIntervalSince1970: 1_000)
        let rotated = try TokenResponse(
            body: Data(#"{"access_token":"new","token_type":"Bearer","expires_in":60,"refresh_token":"rt-2"}"#.utf8),
            status: 200
        ).tokenSet(receivedAt: received, previous: previous, requestedScope: nil, grant: .password)
        #expect(rotated.refreshToken == "rt-2")
        #expect(rotated.expiresAt == received.addingTimeInterval(60))
        #expect(rotated.scope == "read")
        #expect(rotated.idToken == "id-1")
        let kept = try TokenResponse(body: Data(#"{"access_token":"new","token_type":"Bearer"}"#.utf8), status: 200)
            .tokenSet(receivedAt: received, previous: previous, requestedScope: nil, grant: .password)
        #expect(kept.refreshToken == "rt-1")
    }

    @Test(arguments: [
        (503, #"{"error":"temporarily_unavailable"}"#, TokenError.Code.serverUnavailable, true),
        (500, "oops", .serverUnavailable, true),
        (429, "", .serverUnavailable, true),
        (400, #"{"error":"invalid_grant"}"#, .rejected, false),
        (401, #"{"error":"invalid_client"}"#, .rejected, false),
        (401, "", .rejected, false),
        (404, "", .invalidResponse, false),
        (302, "", .invalidResponse, false),
    ])
    func errorAnswersAreClassified(status: Int, body: String, code: TokenError.Code, retryable: Bool) {
        let error = TokenEndpoint.failure(
            TransportResponse(status: status, headers: [("Retry-After", "2")], body: Data(body.utf8)),
            endpoint: "token endpoint"
        )
        #expect(error.code == code)
        #expect(error.isRetryable == retryable)
        if retryable { #expect(error.retryAfter == .seconds(2)) }
    }

    /// A 4xx without an RFC 6749 error body from the token endpoint is read by grant and status: a bare
    /// 400 or 403 refuses the grant (`rejected` without `oauthError`, which ends the session on a
    /// refresh), other statuses stay `invalidResponse`, 429/5xx stay transient. Other endpoints keep
    /// the old reading.
    @Test(arguments: [
        (400, "", GrantType.refreshToken, TokenError.Code.rejected, true),
        (403, "", .refreshToken, .rejected, true),
        (400, "Bad Request", .refreshToken, .rejected, true),
        (403, #"{"message":"forbidden"}"#, .refreshToken, .rejected, true),
        (403, "", .password, .rejected, false),
        (400, "", .password, .rejected, false),
        (403, "", .clientCredentials, .rejected, false),
        (400, "", .deviceCode, .rejected, false),
        (401, "", .refreshToken, .rejected, true),
        (400, #"{"error":"invalid_request"}"#, .refreshToken, .rejected, false),
        (404, "", .refreshToken, .invalidResponse, false),
        (405, "", .password, .invalidResponse, false),
        (410, "", .refreshToken, .invalidResponse, false),
        (429, "", .refreshToken, .serverUnavailable, false),
        (503, "", .refreshToken, .serverUnavailable, false),
    ])
    func bareRefusalsAreReadByGrantAndStatus(
        status: Int,
        body: String,
        grant: GrantType,
        code: TokenError.Code,
        endsSession: Bool
    ) {
        let error = TokenEndpoint.failure(
            TransportResponse(status: status, body: Data(body.utf8)),
            endpoint: "token endpoint",
            grant: grant
        )
        #expect(error.code == code)
        #expect(error.httpStatus == status)
        if grant == .refreshToken { #expect(TokenManager.endsSession(error) == endsSession) }
        if code == .rejected, body.isEmpty, status != 401 {
            #expect(error.oauthError == nil)
            #expect(error.description.contains("HTTP \(status)"))
        }
    }

    @Test(arguments: [400, 403])
    func bareRefusalsFromOtherEndpointsStayUnexpected(status: Int) {
        for endpoint in ["revocation endpoint", "device authorization endpoint"] {
            let error = TokenEndpoint.failure(TransportResponse(status: status), endpoint: endpoint)
            #expect(error.code == .invalidResponse)
        }
    }

    @Test func errorDescriptionsNeverCarryServerTextOrHostileCodes() {
        let error = TokenEndpoint.failure(
            TransportResponse(
                status: 400,
                body: Data(#"{"error":"invalid_grant","error_description":"token AT-123 bad"}"#.utf8)
            ),
            endpoint: "token endpoint"
        )
        #expect(error.serverMessage == "token AT-123 bad")
        #expect(!error.description.contains("AT-123"))
        #expect(!error.debugDescription.contains("AT-123"))
        #expect(error.description.contains("invalid_grant"))
        let hostile = TokenError(.rejected, "x", oauthError: "evil\ninjected \"line\"")
        #expect(!hostile.description.contains("injected"))
    }

    @Test func requestDescriptionsHideQueriesHeadersAndBodies() {
        let request = TransportRequest(
            method: "POST",
            url: URL(string: "https://user:pw@api.example.com/v1/items?access_token=AT-123")!,
            headers: [("Authorization", "Bearer AT-123")],
            body: Data("refresh_token=RT-123".utf8)
        )
        #expect(request.description == "POST https://api.example.com/v1/items")
        let response = TransportResponse(status: 200, body: Data(#"{"access_token":"AT-123"}"#.utf8))
        #expect(!response.description.contains("AT-123"))
    }
}
