import Foundation
import LatchkeyTesting
import LatchkeyTokens
import Testing

/// The real OAuth server (django-oauth-toolkit, `scripts/oauth-server/dot_server.py`) on a free loopback
/// port, started once around the real-server suite by `.realOAuthServer` and stopped by its pid.
final class OAuthTestServer: Sendable {
    /// The server of the running suite.
    @TaskLocal static var current: OAuthTestServer?

    /// `http://127.0.0.1:<port>`.
    let base: URL
    let process: ChildProcess
    let http = AsyncHTTPClientTransport(timeout: .seconds(30))

    private init(base: URL, process: ChildProcess) {
        self.base = base
        self.process = process
    }

    /// Starts the server and waits for its ready line.
    static func start() async throws -> OAuthTestServer {
        guard let python = OAuthTestEnvironment.serverPython else {
            throw TestServerError(message: OAuthTestEnvironment.missingServerMessage)
        }
        // Access tokens live 10 minutes on the server's wall clock: clients decide expiry on their injected
        // ManualClock, and a loaded machine (the whole suite on 2 cores) can take far longer than the script's
        // default 5 s between issuing a token and using it. Tests that need an expired token ask for it
        // (`expire(accessToken:)`).
        let process = try ChildProcess(
            python,
            [OAuthTestEnvironment.script("dot_server.py"), "--port", "0", "--access-token-seconds", "600"],
            keepingInputOpen: true
        )
        guard let ready = await process.line(startingWith: "LATCHKEY-OAUTH-READY", timeout: 120),
            let port = ready.split(separator: " ").first(where: { $0.hasPrefix("port=") })?.dropFirst(5)
        else {
            let stderr = process.errorText
            await process.stop()
            throw TestServerError(message: "The OAuth test server did not start: \(stderr.suffix(2000))")
        }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
        return OAuthTestServer(base: url, process: process)
    }

    /// Stops the server: ends its standard input (it then shuts down), and signals its pid (SIGTERM, then
    /// SIGKILL) if it has not exited within 5 seconds.
    func stop() async {
        await process.stop(endingInputFirst: true)
    }

    /// `base` + `path`.
    func url(_ path: String) -> URL {
        base.appendingPathComponent(path)
    }

    /// The issuer (`<base>/o`).
    var issuer: URL { url("o") }

    /// The endpoints, including the device endpoint the server's metadata omits.
    var endpoints: OAuthEndpoints {
        OAuthEndpoints(
            issuer: issuer,
            tokenEndpoint: url("o/token/"),
            revocationEndpoint: url("o/revoke_token/"),
            deviceAuthorizationEndpoint: url("o/device-authorization/")
        )
    }

    /// A configuration for `client` with the test defaults: a refresh window roomy enough for 5 s tokens,
    /// instant sleeps (device polling), and time read from `clock` when given.
    func configuration(
        _ client: Fixture.Client,
        leeway: Duration = .seconds(60),
        clock: ManualClock? = nil
    ) -> TokenManager.Configuration {
        var configuration = TokenManager.Configuration(
            endpoints: endpoints,
            client: OAuthClient(id: client.client_id, secret: client.client_secret)
        )
        configuration.refreshLeeway = leeway
        configuration.refreshWindow = RefreshWindow(maximumRefreshes: 20, interval: .seconds(30))
        configuration.sleep = { _ in }
        if let clock { configuration.clock = clock }
        return configuration
    }

    /// What `/test/fixture/` makes: a fresh user and one client per grant, so tests never share counters.
    struct Fixture: Decodable, Sendable {
        struct Client: Decodable, Sendable {
            var client_id: String
            var client_secret: String?
        }

        var username: String
        var password: String
        var password_client: Client
        var public_password_client: Client
        var client_credentials_client: Client
        var device_client: Client
    }

    /// A new user and clients.
    func fixture() async throws -> Fixture {
        let response = try await post("test/fixture/", [:])
        return try JSONDecoder().decode(Fixture.self, from: response.body)
    }

    /// How many token-endpoint requests the server saw from `client` with `grant` and `status`.
    func count(_ client: Fixture.Client, endpoint: String = "token", grant: String, status: Int) async throws -> Int {
        let response = try await http.send(
            TransportRequest(
                url: try #require(URL(string: url("test/stats/").absoluteString + "?client_id=\(client.client_id)"))
            )
        )
        struct Stats: Decodable { var counts: [String: Int] }
        let stats = try JSONDecoder().decode(Stats.self, from: response.body)
        return stats.counts["\(endpoint) \(grant) \(status)"] ?? 0
    }

    /// Every non-200 token-endpoint answer `client` got.
    func failures(_ client: Fixture.Client) async throws -> [String: Int] {
        let response = try await http.send(
            TransportRequest(
                url: try #require(URL(string: url("test/stats/").absoluteString + "?client_id=\(client.client_id)"))
            )
        )
        struct Stats: Decodable { var counts: [String: Int] }
        return try JSONDecoder().decode(Stats.self, from: response.body).counts.filter { !$0.key.hasSuffix(" 200") }
    }

    /// Approves (or denies) a device code for `username`.
    func approveDevice(userCode: String, username: String, deny: Bool = false) async throws {
        var fields = ["user_code": userCode, "username": username]
        if deny { fields["deny"] = "1" }
        _ = try await post("test/device/approve/", fields)
    }

    /// Makes the server treat `accessToken` as expired (its refresh token stays valid).
    func expire(accessToken: String) async throws {
        let response = try await post("test/expire-access-token/", ["token": accessToken])
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"expired\": 1"))
    }

    /// GET `/api/me/` with `accessToken`.
    func me(_ accessToken: String) async throws -> TransportResponse {
        try await http.send(
            TransportRequest(url: url("api/me/"), headers: [("Authorization", "Bearer " + accessToken)])
        )
    }

    /// A raw refresh-token request (outside any manager), for checking what the server accepts.
    func rawRefresh(_ refreshToken: String, client: Fixture.Client) async throws -> TransportResponse {
        var fields = ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": client.client_id]
        if let secret = client.client_secret { fields["client_secret"] = secret }
        return try await post("o/token/", fields)
    }

    /// A raw revocation of `token` (outside any manager).
    func rawRevoke(_ token: String, hint: String, client: Fixture.Client) async throws {
        var fields = ["token": token, "token_type_hint": hint, "client_id": client.client_id]
        if let secret = client.client_secret { fields["client_secret"] = secret }
        let response = try await post("o/revoke_token/", fields)
        #expect(response.status == 200)
    }

    /// POSTs a form to `path`.
    func post(_ path: String, _ fields: [String: String]) async throws -> TransportResponse {
        try await http.send(TestForm.post(url(path), fields))
    }
}

/// Form bodies for test requests.
enum TestForm {
    static func post(_ url: URL, _ fields: [String: String]) -> TransportRequest {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        let body = fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }.joined(separator: "&")
        return TransportRequest(
            method: "POST",
            url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Data(body.utf8)
        )
    }
}

/// A test server that could not be started.
struct TestServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Starts the real OAuth server around a suite and stops it (by pid) after the suite's last test.
struct RealOAuthServerTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    /// Once around the whole suite, not around each test: one server for every test in it.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite ? self : nil
    }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try await OAuthTestServer.start()
        do {
            try await OAuthTestServer.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension Trait where Self == RealOAuthServerTrait {
    /// Runs the suite against a real OAuth server on loopback (fails, saying how to make the venv, without it).
    static var realOAuthServer: Self { RealOAuthServerTrait() }
}
