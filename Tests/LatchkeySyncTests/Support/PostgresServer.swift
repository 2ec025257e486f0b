import Foundation
import LatchkeyTesting
import Logging
import PostgresNIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL server for one test: `initdb` and `pg_ctl -w start` in a temporary directory,
/// listening only on a Unix socket in that directory, stopped (`pg_ctl -m immediate stop`) and removed by
/// `stop()`.
///
/// PostgreSQL refuses to run as root, and CI runs as root: then `initdb`, `pg_ctl` and `pg_dump` run as the
/// `postgres` system user (`setpriv`), and the directory belongs to it. The binaries are found in
/// `/usr/lib/postgresql/<version>/bin` (newest first) or beside an `initdb` on `PATH`; when they are missing,
/// the test fails with "peer postgresql missing: install postgresql". `pg_ctl -w` waits for the server
/// itself: no sleeps.
///
/// ```swift
/// try await PostgresServer.with { server, client in
///     try await SyncSchema.migrate(client, logger: server.logger)
/// }
/// ```
final class PostgresServer: Sendable {
    /// The private directory: the data directory `data`, the socket, the server's log.
    let directory: String
    /// The folder of `initdb`, `pg_ctl`, `pg_dump`.
    let binaries: String
    /// The command prefix that runs a tool as the `postgres` user (empty when not root).
    let asServerUser: [String]
    /// A logger that drops everything (postgres-nio's and sync's logs are not wanted in test output).
    let logger = Logger(label: "latchkey.sync.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The socket file the server listens on.
    var socketPath: String { directory + "/.s.PGSQL.5432" }

    private init(directory: String, binaries: String, asServerUser: [String]) {
        self.directory = directory
        self.binaries = binaries
        self.asServerUser = asServerUser
    }

    /// Starts a server, runs `body` with it and a running `PostgresClient` of its `postgres` database,
    /// then stops the client and the server and removes the directory, whether `body` threw or not.
    static func with<Result: Sendable>(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: @Sendable (PostgresServer, PostgresClient) async throws -> Result
    ) async throws -> Result {
        let server = try await start(sourceLocation: sourceLocation)
        let result: Result
        do {
            let client = PostgresClient(configuration: server.clientConfiguration(), backgroundLogger: server.logger)
            result = try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                return try await body(server, client)
            }
        } catch {
            try? await server.stop()  // the body's failure is the one to report
            throw error
        }
        try await server.stop()
        return result
    }

    /// The configuration of a client of database `database` over the socket, as the `postgres` role
    /// (trust authentication: the socket's directory is private).
    func clientConfiguration(database: String = "postgres") -> PostgresClient.Configuration {
        PostgresClient.Configuration(
            unixSocketPath: socketPath,
            username: "postgres",
            password: nil,
            database: database
        )
    }

    /// A connection of its own (for tests that hold a transaction open beside the client's).
    func connect(id: Int) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                unixSocketPath: socketPath,
                username: "postgres",
                password: nil,
                database: "postgres"
            ),
            id: id,
            logger: logger
        )
    }

    /// The first column of the first row of `sql`, an integer, read on a connection of its own.
    func count(_ sql: String) async throws -> Int64 {
        let connection = try await connect(id: 99)
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await value in rows.decode(Int64.self) { return value }
        return 0
    }

    /// Runs `tool` of the server's binaries as the server's user and returns how it ended.
    func run(_ tool: String, _ arguments: [String], timeout: TimeInterval = 120) async throws -> ChildProcess.Finished {
        let child = try launch(tool, arguments)
        let status = await child.exitStatus(timeout: timeout)
        if status == nil { child.kill() }
        return child.waitForExit(timeout: 30)
    }

    /// Starts `tool` of the server's binaries as the server's user, in the C locale, without libpq's variables.
    private func launch(_ tool: String, _ arguments: [String]) throws -> ChildProcess {
        let command = asServerUser + [binaries + "/" + tool] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        for name in ["PGDATA", "PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD"] {
            environment[name] = nil
        }
        return try ChildProcess(command[0], Array(command.dropFirst()), environment: environment)
    }

    /// `pg_dump` of the `postgres` database, as SQL text.
    func dump() async throws -> String {
        let finished = try await run(
            "pg_dump",
            ["--host", directory, "--username", "postgres", "--dbname", "postgres"]
        )
        try #require(finished.status == 0, "pg_dump failed: \(finished.stderr)")
        return finished.stdout
    }

    // MARK: Start and stop

    private static func start(sourceLocation: SourceLocation) async throws -> PostgresServer {
        let binaries = try #require(
            findBinaries(),
            Comment(
                rawValue: "peer postgresql missing: install postgresql "
                    + "(apt-get install -y postgresql; .ci/run installs every peer)"
            ),
            sourceLocation: sourceLocation
        )
        var asServerUser: [String] = []
        var owner: passwd?
        if getuid() == 0 {
            let setpriv = try Peer.require("setpriv", package: "util-linux", sourceLocation: sourceLocation)
            owner = try #require(
                getpwnam("postgres")?.pointee,
                "peer postgresql missing: install postgresql (its package creates the postgres system user)",
                sourceLocation: sourceLocation
            )
            asServerUser = [setpriv, "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
        }
        var template = Array("/tmp/latchkey-pg-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }
        try #require(made != nil, "cannot create a temporary directory under /tmp", sourceLocation: sourceLocation)
        let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let owner {
            try #require(chown(directory, owner.pw_uid, owner.pw_gid) == 0, "cannot give \(directory) to postgres")
        }
        let server = PostgresServer(directory: directory, binaries: binaries, asServerUser: asServerUser)
        do {
            try await server.initialize(sourceLocation: sourceLocation)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        return server
    }

    private func initialize(sourceLocation: SourceLocation) async throws {
        let data = directory + "/data"
        let initdb = try await run(
            "initdb",
            [
                "--pgdata", data, "--username", "postgres", "--auth", "trust", "--encoding", "UTF8",
                "--locale", "C", "--no-sync", "--no-instructions",
            ]
        )
        try #require(initdb.status == 0, "initdb failed: \(initdb.stderr)", sourceLocation: sourceLocation)
        let settings = """

            # latchkey tests: a private Unix socket only, no durability needed
            listen_addresses = ''
            unix_socket_directories = '\(directory)'
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            max_connections = 40

            """
        let configuration = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/postgresql.conf"))
        try configuration.seekToEnd()
        try configuration.write(contentsOf: Data(settings.utf8))
        try configuration.close()
        try await startServer(sourceLocation: sourceLocation)
    }

    /// Starts the server on its data directory and waits until it accepts connections.
    private func startServer(sourceLocation: SourceLocation) async throws {
        let data = directory + "/data"
        // Foundation learns of a child's exit through a socket the child inherits, and the server pg_ctl starts
        // inherits it too: pg_ctl's exit is reported only once the server stops. So wait for what `pg_ctl -w`
        // prints when the server is ready; its output ends when it exits (the server keeps neither stream).
        let starting = try launch(
            "pg_ctl",
            ["--pgdata", data, "--log", directory + "/server.log", "-w", "-t", "120", "start"]
        )
        let started = await starting.line(on: .output, timeout: 150) { $0.contains("server started") }
        let log = started != nil ? "" : (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8))
        try #require(
            started != nil,
            "pg_ctl start failed: \(starting.errorText)\n\(log ?? "")",
            sourceLocation: sourceLocation
        )
    }

    /// Stops the server, keeping its data (`resume()` starts it again): a sync server that went away.
    func pause() async throws {
        let stopped = try await run("pg_ctl", ["--pgdata", directory + "/data", "-m", "fast", "-w", "stop"])
        try #require(stopped.status == 0, "pg_ctl stop failed: \(stopped.stderr)")
    }

    /// Starts the server `pause()` stopped.
    func resume(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await startServer(sourceLocation: sourceLocation)
    }

    /// A URL of the server's database over its socket, as `latchkey sync setup` takes it.
    var url: String { "postgresql://postgres@/postgres?host=\(directory)" }

    /// Stops the server at once (`-m immediate`: nothing to keep) and removes its directory.
    func stop() async throws {
        let stopped = try await run("pg_ctl", ["--pgdata", directory + "/data", "-m", "immediate", "-w", "stop"])
        try FileManager.default.removeItem(atPath: directory)
        try #require(stopped.status == 0, "pg_ctl stop failed: \(stopped.stderr)")
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` holding the tools, else the folder of `initdb` on `PATH`.
    private static func findBinaries() -> String? {
        let tools = ["initdb", "pg_ctl", "pg_dump", "postgres"]
        func complete(_ folder: String) -> Bool {
            tools.allSatisfy { FileManager.default.isExecutableFile(atPath: folder + "/" + $0) }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { $0.compare($1, options: .numeric) == .orderedDescending }) {
            let folder = "/usr/lib/postgresql/\(version)/bin"
            if complete(folder) { return folder }
        }
        if let initdb = Peer.path(of: "initdb") {
            let folder = URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent().path
            if complete(folder) { return folder }
        }
        return nil
    }
}
