import Foundation
import LatchkeyTokens
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Glewlwyd 2.7 (Debian's `glewlwyd` package) on a free loopback port: a real OAuth 2.0 server whose
/// token endpoint refuses grants tersely, with a bare status and an empty body (a wrong password: 403;
/// a revoked or unknown refresh token: 400; a wrong client secret for client credentials: 403).
///
/// Started once around `GlewlwydServerTests` by `.glewlwydServer` and stopped by its pid. Everything it
/// uses lives in a temporary directory: a SQLite database made with the package's own schema script
/// (`/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3`, which also creates the user `admin`
/// with the password `password`) plus `setup.sql` below (the OAuth2 plugin `glwd`, the scope `read`,
/// a user and a confidential client), and the configuration file.
final class GlewlwydServer: Sendable {
    /// The server of the running suite.
    @TaskLocal static var current: GlewlwydServer?

    /// Where Debian installs what the server needs.
    static let executableCandidates = ["/usr/bin/glewlwyd", "/usr/sbin/glewlwyd"]
    static let schemaScript = "/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3"
    static let oauth2Plugin = "/usr/lib/glewlwyd/plugin/libprotocol_oauth2.so"
    static let modules = "/usr/lib/glewlwyd"

    /// What to install when something is missing (as `.ci/run` does).
    static let installHint = """
        Glewlwyd tests need Debian's glewlwyd and sqlite3 packages: \
        `apt-get update && apt-get install -y glewlwyd sqlite3` (as .ci/run does).
        """

    /// The test user; its password is the one Debian's schema script gives `admin` (the hash is copied).
    static let username = "alice"
    static let password = "password"
    /// The confidential client (HTTP Basic), allowed the password, refresh and client-credentials grants.
    static let client = OAuthClient(id: "latchkey-tests", secret: "latchkey-client-secret")

    /// `http://127.0.0.1:<port>`.
    let base: URL
    let process: ChildProcess
    let directory: URL
    let http = AsyncHTTPClientTransport(timeout: .seconds(30))

    private init(base: URL, process: ChildProcess, directory: URL) {
        self.base = base
        self.process = process
        self.directory = directory
    }

    /// The endpoints of the `glwd` OAuth2 plugin instance.
    var endpoints: OAuthEndpoints {
        OAuthEndpoints(
            tokenEndpoint: base.appendingPathComponent("api/glwd/token/"),
            revocationEndpoint: base.appendingPathComponent("api/glwd/revoke/")
        )
    }

    /// A configuration for `client` (default: the test client), reading time from `clock` when given.
    func configuration(
        client: OAuthClient = GlewlwydServer.client,
        clock: ManualClock? = nil
    ) -> TokenManager.Configuration {
        var configuration = TokenManager.Configuration(endpoints: endpoints, client: client)
        if let clock { configuration.clock = clock }
        configuration.sleep = { _ in }
        return configuration
    }

    /// A raw token-endpoint request (outside any manager), to see what the server answers.
    func rawTokenRequest(_ fields: [String: String], client: OAuthClient = GlewlwydServer.client) async throws
        -> TransportResponse
    {
        var request = TestForm.post(endpoints.tokenEndpoint, fields)
        let credentials = Data("\(client.id):\(client.secret ?? "")".utf8).base64EncodedString()
        request.headers.append(("Authorization", "Basic " + credentials))
        return try await http.send(request)
    }

    // MARK: Starting and stopping

    /// The `glewlwyd` executable, or a failure naming the package to install.
    static func executable() throws -> String {
        var candidates = executableCandidates
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        candidates += path.split(separator: ":").map { "\($0)/glewlwyd" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestServerError(message: "No glewlwyd executable found. " + installHint)
        }
        return found
    }

    /// `sqlite3` on `PATH`, or a failure naming the package to install.
    static func sqlite3() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/sqlite3" } + ["/usr/bin/sqlite3"]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestServerError(message: "No sqlite3 found on PATH. " + installHint)
        }
        return found
    }

    /// Makes the database and configuration in a new temporary directory, starts the server on a free
    /// port and waits until it accepts connections. A port taken between choosing and binding it (the
    /// server then exits) is retried with another, twice.
    static func start() async throws -> GlewlwydServer {
        let executable = try executable()
        let sqlite3 = try sqlite3()
        for file in [schemaScript, oauth2Plugin] where !FileManager.default.fileExists(atPath: file) {
            throw TestServerError(message: "\(file) is missing. " + installHint)
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-glewlwyd-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let database = directory.appendingPathComponent("glewlwyd.db").path
            let setup = directory.appendingPathComponent("setup.sql")
            try Data(setupSQL.utf8).write(to: setup)
            let creation = try ChildProcess(
                sqlite3,
                ["-bail", database, ".read \(schemaScript)", ".read \(setup.path)"],
                keepingInputOpen: true
            )
            guard await creation.exitStatus(timeout: 60) == 0 else {
                throw TestServerError(message: "sqlite3 could not make Glewlwyd's database: \(creation.errorText)")
            }
            var failures: [String] = []
            for _ in 0..<3 {
                let port = try freeLoopbackPort()
                let configuration = directory.appendingPathComponent("glewlwyd.conf")
                try Data(configurationText(port: port, database: database).utf8).write(to: configuration)
                let process = try ChildProcess(
                    executable,
                    ["--config-file=\(configuration.path)"],
                    keepingInputOpen: true
                )
                if await acceptsConnections(process, port: port) {
                    let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
                    return GlewlwydServer(base: base, process: process, directory: directory)
                }
                failures.append(String(process.errorText.suffix(1500)))
                await process.stop()
            }
            throw TestServerError(message: "Glewlwyd did not start: \(failures.joined(separator: "\n---\n"))")
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops the server by its pid and removes its directory.
    func stop() async {
        await process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Waits for the server's "started" line, then for its listening socket.
    ///
    /// Glewlwyd prints `Glewlwyd started on port <n>` just before it creates the socket, and nothing
    /// after, so the line is the readiness signal and the connect that follows is retried (yielding,
    /// never sleeping) for the few instructions until `listen` returns, or until the process exits
    /// (the port was taken) or 30 seconds pass.
    private static func acceptsConnections(_ process: ChildProcess, port: Int) async -> Bool {
        let started = await process.line(on: .output, timeout: 120) { $0.contains("Glewlwyd started on port") }
        guard started != nil else { return false }
        let deadline = Date(timeIntervalSinceNow: 30)
        while process.isRunning, Date() < deadline {
            if connects(port: port) { return true }
            await Task.yield()
        }
        return false
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted (a self-connection, which the kernel
    /// can make when nobody listens on a port in the ephemeral range, does not count).
    private static func connects(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return false }
        return localPort(of: descriptor) != port
    }

    /// A port on 127.0.0.1 that nobody listens on now (the kernel's choice for port 0).
    private static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestServerError(message: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, let port = localPort(of: descriptor) else {
            throw TestServerError(message: "No free loopback port: errno \(errno)")
        }
        return port
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    private static func localPort(of descriptor: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return result == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    // MARK: Configuration

    /// Glewlwyd's configuration: loopback only, plain HTTP, the package's module directories, logs on
    /// the console (INFO, for the "started" line), the database in the temporary directory.
    private static func configurationText(port: Int, database: String) -> String {
        """
        port=\(port)
        bind_address="127.0.0.1"
        external_url="http://127.0.0.1:\(port)"
        api_prefix="api"
        login_url="login.html"
        log_mode="console"
        log_level="INFO"
        cookie_secure=0
        session_expiration=3600
        admin_scope="g_admin"
        profile_scope="g_profile"
        login_api_enabled=true
        user_module_path="\(modules)/user"
        user_middleware_module_path="\(modules)/user_middleware"
        client_module_path="\(modules)/client"
        user_auth_scheme_module_path="\(modules)/scheme"
        plugin_module_path="\(modules)/plugin"
        hash_algorithm="SHA512"
        database =
        {
          type = "sqlite3"
          path = "\(database)"
        };

        """
    }

    /// After Debian's schema script: the OAuth2 plugin instance `glwd` (password, refresh-token and
    /// client-credentials grants, RFC 7009 revocation by the token's own client, one-hour access
    /// tokens), the scope `read`, the user (with `admin`'s password hash) holding `read`, and the
    /// confidential client with its secret, grants and scope. Client properties with several values
    /// are several rows, as Glewlwyd's database client module stores them.
    private static var setupSQL: String {
        let parameters = """
            {"jwt-type":"sha","jwt-key-size":"256","key":"latchkey-test-signing-key",\
            "access-token-duration":3600,"refresh-token-duration":1209600,"code-duration":600,\
            "refresh-token-rolling":true,"auth-type-code-enabled":false,"auth-type-implicit-enabled":false,\
            "auth-type-password-enabled":true,"auth-type-client-enabled":true,"auth-type-refresh-enabled":true,\
            "introspection-revocation-allowed":true,"introspection-revocation-allow-target-client":true}
            """
        let clientRow = "(SELECT gc_id FROM g_client WHERE gc_client_id = '\(client.id)')"
        let userRow = "(SELECT gu_id FROM g_user WHERE gu_username = '\(username)')"
        return """
            INSERT INTO g_plugin_module_instance (gpmi_module, gpmi_name, gpmi_display_name, gpmi_parameters)
              VALUES ('oauth2-glewlwyd', 'glwd', 'OAuth2 for the Latchkey tests', '\(parameters)');
            INSERT INTO g_scope (gs_name, gs_display_name, gs_description, gs_password_required, gs_password_max_age)
              VALUES ('read', 'Read', 'Latchkey test scope', 0, 0);
            INSERT INTO g_user (gu_username, gu_name, gu_email, gu_enabled) VALUES ('\(username)', 'Alice', '', 1);
            INSERT INTO g_user_password (gu_id, guw_password)
              SELECT \(userRow), guw_password FROM g_user_password
              WHERE gu_id = (SELECT gu_id FROM g_user WHERE gu_username = 'admin');
            INSERT INTO g_user_scope (gus_name) VALUES ('read');
            INSERT INTO g_user_scope_user (gu_id, gus_id)
              VALUES (\(userRow), (SELECT gus_id FROM g_user_scope WHERE gus_name = 'read'));
            INSERT INTO g_client (gc_client_id, gc_name, gc_confidential, gc_enabled)
              VALUES ('\(client.id)', 'Latchkey tests', 1, 1);
            INSERT INTO g_client_property (gc_id, gcp_name, gcp_value) VALUES
              (\(clientRow), 'client_secret', '\(client.secret ?? "")'),
              (\(clientRow), 'authorization_type', 'password'),
              (\(clientRow), 'authorization_type', 'refresh_token'),
              (\(clientRow), 'authorization_type', 'client_credentials');
            INSERT INTO g_client_scope (gcs_name) VALUES ('read');
            INSERT INTO g_client_scope_client (gc_id, gcs_id)
              VALUES (\(clientRow), (SELECT gcs_id FROM g_client_scope WHERE gcs_name = 'read'));

            """
    }
}

/// Starts Glewlwyd around a suite and stops it (by pid) after the suite's last test; the suite fails
/// with what to install when Glewlwyd or sqlite3 is missing.
struct GlewlwydServerTrait: SuiteTrait, TestScoping {
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
        let server = try await GlewlwydServer.start()
        do {
            try await GlewlwydServer.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension Trait where Self == GlewlwydServerTrait {
    /// Runs the suite against Glewlwyd on loopback (fails, naming the packages, when it is not installed).
    static var glewlwydServer: Self { GlewlwydServerTrait() }
}
