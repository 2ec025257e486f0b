import Foundation
import LatchkeyTesting
import LatchkeyTokens
import Testing

/// The scripted stub (`scripts/oauth-server/stub_server.py`) for what a real server will not do on
/// request: 503, 429, `slow_down`, a refresh answer without a refresh token, a dropped connection.
///
/// Each test scripts its own namespace (a fresh random path segment), so tests run in parallel.
final class StubServer: Sendable {
    /// The stub of the running suite.
    @TaskLocal static var current: StubServer?

    let base: URL
    let process: ChildProcess
    let http = AsyncHTTPClientTransport(timeout: .seconds(30))

    private init(base: URL, process: ChildProcess) {
        self.base = base
        self.process = process
    }

    /// Starts the stub and waits for its ready line.
    static func start() async throws -> StubServer {
        guard let python = OAuthTestEnvironment.anyPython else {
            throw TestServerError(message: "No python3 found on PATH for the stub OAuth server.")
        }
        let process = try ChildProcess(python, [OAuthTestEnvironment.script("stub_server.py")], keepingInputOpen: true)
        guard let ready = await process.line(startingWith: "LATCHKEY-STUB-READY", timeout: 60),
            let port = ready.split(separator: " ").first(where: { $0.hasPrefix("port=") })?.dropFirst(5),
            let base = URL(string: "http://127.0.0.1:\(port)")
        else {
            let stderr = process.errorText
            await process.stop()
            throw TestServerError(message: "The stub server did not start: \(stderr.suffix(2000))")
        }
        return StubServer(base: base, process: process)
    }

    /// Stops the stub: ends its standard input (it then shuts down), and signals its pid (SIGTERM, then
    /// SIGKILL) if it has not exited within 5 seconds.
    func stop() async {
        await process.stop(endingInputFirst: true)
    }

    /// One scripted namespace.
    struct Namespace: Sendable {
        let stub: StubServer
        let name: String

        /// The URL of `path` in this namespace.
        func url(_ path: String) -> URL {
            stub.base.appendingPathComponent(name).appendingPathComponent(path)
        }

        /// Endpoints pointing at this namespace's `token`, `revoke` and `device` paths.
        var endpoints: OAuthEndpoints {
            OAuthEndpoints(
                tokenEndpoint: url("token"),
                revocationEndpoint: url("revoke"),
                deviceAuthorizationEndpoint: url("device")
            )
        }

        /// A configuration for a confidential client on this namespace, with recorded, instant sleeps.
        func configuration(sleeps: SleepRecorder = SleepRecorder()) -> TokenManager.Configuration {
            var configuration = TokenManager.Configuration(
                endpoints: endpoints,
                client: OAuthClient(id: "stub-client", secret: "stub-secret"),
                service: "stub:\(name)"
            )
            configuration.sleep = { duration in await sleeps.record(duration) }
            return configuration
        }

        /// Replaces the script: for each path name, the answers in order (the last one repeats).
        func script(_ answers: [String: [StubAnswer]]) async throws {
            var payload: [String: Any] = [:]
            for (path, list) in answers { payload[path] = list.map(\.object) }
            let body = try JSONSerialization.data(withJSONObject: payload)
            let response = try await stub.http.send(
                TransportRequest(method: "POST", url: stub.base.appendingPathComponent("_script/\(name)"), body: body)
            )
            #expect(response.status == 204)
        }

        /// What the namespace received.
        func log() async throws -> [StubRequest] {
            let response = try await stub.http.send(
                TransportRequest(url: stub.base.appendingPathComponent("_log/\(name)"))
            )
            return try JSONDecoder().decode([StubRequest].self, from: response.body)
        }
    }

    /// A fresh namespace.
    func namespace() -> Namespace {
        Namespace(stub: self, name: "ns-" + UUID().uuidString.prefix(8).lowercased())
    }
}

/// One scripted answer.
struct StubAnswer: Sendable {
    var status: Int = 200
    var headers: [String: String] = [:]
    var json: String?
    var body: String?
    var drop = false
    var delay: Double?

    /// A JSON answer; `json` is JSON text.
    static func json(_ status: Int, _ json: String, headers: [String: String] = [:]) -> StubAnswer {
        StubAnswer(status: status, headers: headers, json: json)
    }

    /// A plain-text answer.
    static func text(_ status: Int, _ body: String, headers: [String: String] = [:]) -> StubAnswer {
        StubAnswer(status: status, headers: headers, body: body)
    }

    /// The connection is closed without an answer.
    static var dropConnection: StubAnswer { StubAnswer(drop: true) }

    /// A token answer.
    static func tokens(
        access: String,
        refresh: String? = nil,
        expiresIn: String = "3600",
        type: String = "Bearer"
    ) -> StubAnswer {
        var members = [
            "\"access_token\": \"\(access)\"", "\"token_type\": \"\(type)\"", "\"expires_in\": \(expiresIn)",
        ]
        if let refresh { members.append("\"refresh_token\": \"\(refresh)\"") }
        return .json(200, "{" + members.joined(separator: ", ") + "}", headers: ["Cache-Control": "no-store"])
    }

    /// An OAuth error answer.
    static func oauthError(_ error: String, status: Int = 400) -> StubAnswer {
        .json(status, "{\"error\": \"\(error)\"}")
    }

    var object: [String: Any] {
        var object: [String: Any] = ["status": status, "headers": headers]
        if let json, let data = json.data(using: .utf8), let parsed = try? JSONSerialization.jsonObject(with: data) {
            object["json"] = parsed
        }
        if let body { object["body"] = body }
        if drop { object["drop"] = true }
        if let delay { object["delay"] = delay }
        return object
    }
}

/// One request the stub received.
struct StubRequest: Decodable, Sendable {
    var name: String
    var method: String
    var headers: [String: String]
    var form: [String: String]
    var time: Double
}

/// Records the manager's sleeps instead of sleeping (device polling, retry backoff): each returns at
/// once, so no test waits for wall time to pass.
actor SleepRecorder {
    private(set) var durations: [Duration] = []

    func record(_ duration: Duration) {
        durations.append(duration)
    }
}

/// Starts the stub around a suite and stops it (by pid) afterwards.
struct StubServerTrait: SuiteTrait, TestScoping {
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
        let stub = try await StubServer.start()
        do {
            try await StubServer.$current.withValue(stub) { try await function() }
        } catch {
            await stub.stop()
            throw error
        }
        await stub.stop()
    }
}

extension Trait where Self == StubServerTrait {
    /// Runs the suite against the scripted stub server on loopback.
    static var stubServer: Self { StubServerTrait() }
}
