import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// A real `latchkey agent` process serving the filled keychain, for `AgentBenchmarks`.
///
/// It runs the `latchkey` executable built beside `latchkey-bench`, in the benchmark directory: its own
/// `XDG_RUNTIME_DIR` (so its socket is not the user's), config, data, state and home directories, the run's
/// device secret, and no credential in its environment. The access policy grants the keychain's group
/// (`FilledKeychain.accessGroup`) to `latchkey-bench` and to `latchkey` (the load clients), and the load
/// clients' own group (`latchkey`, where their writes go) to `latchkey-bench`; the agent is
/// unlocked once with the keychain's passphrase through `AgentClient` (`.unlock`). It serves up to
/// `AgentFairnessBenchmarks.connectionsPerClient` connections of one program, so that this process can hold
/// the fairness load. `stop()` ends it with SIGTERM (and SIGKILL if it does not exit).
final class BenchmarkAgent {
    let socketPath: String
    let client: AgentClient
    let environment: [String: String]
    private let process: Process
    private let executable: String
    private let directory: BenchmarkDirectory

    var pid: Int32 { process.processIdentifier }

    /// Starts the agent and connects to it.
    ///
    /// - Parameters:
    ///   - arguments: Extra arguments of `latchkey agent` (`--access-log off`).
    ///   - logName: The agent's log file in the benchmark directory.
    /// - Throws: `BenchmarkFailure` naming why it could not start (the agent is stopped again).
    init(
        keychain: FilledKeychain,
        directory: BenchmarkDirectory,
        arguments: [String] = [],
        logName: String = "agent.log"
    ) throws {
        self.directory = directory
        guard let bench = Bundle.main.executableURL?.resolvingSymlinksInPath() else {
            throw BenchmarkFailure("the path of latchkey-bench is unknown")
        }
        executable = bench.deletingLastPathComponent().appendingPathComponent("latchkey").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchmarkFailure("no latchkey executable at \(executable) (build the latchkey product too)")
        }
        let runtime = directory.path + "/run"
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("LATCHKEY_") { environment[name] = nil }
        environment["LATCHKEY_KEYCHAIN"] = keychain.path
        environment["LATCHKEY_DEVICE_SECRET"] = directory.deviceSecretPath
        environment["XDG_RUNTIME_DIR"] = runtime
        for (variable, folder) in [
            ("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("HOME", "home"),
        ] {
            environment[variable] = directory.path + "/" + folder
            try FileManager.default.createDirectory(
                atPath: directory.path + "/" + folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        try FileManager.default.createDirectory(
            atPath: runtime,
            withIntermediateDirectories: true,
            attributes: [
                .posixPermissions: 0o700
            ]
        )
        self.environment = environment
        socketPath = runtime + "/latchkey/agent.sock"
        // The load clients' writes go to their own group, the `latchkey` executable's path (its identity):
        // granted here too so that this process can read every one of them back.
        for (grantee, group) in [
            (bench.path, FilledKeychain.accessGroup), (bench.path, AgentLocation.canonical(executable)),
            (executable, FilledKeychain.accessGroup),
        ] {
            try Self.run(
                executable,
                ["access", "grant", grantee, group],
                environment,
                log: directory.path + "/agent-access.log"
            )
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "agent", "--foreground", "-k", keychain.path,
                "--connections-per-client", "\(AgentFairnessBenchmarks.connectionsPerClient)",
            ] + arguments
        process.environment = environment
        let ready = Pipe()
        process.standardOutput = ready
        process.standardInput = FileHandle.nullDevice
        process.standardError = try Self.logFile(directory.path + "/" + logName)
        try process.run()
        let line = Self.readLine(ready.fileHandleForReading)
        guard line == "ready \(socketPath)" else {
            Self.end(process)
            let log = (try? String(contentsOfFile: directory.path + "/" + logName, encoding: .utf8)) ?? ""
            throw BenchmarkFailure("the agent did not get ready: \(line ?? "no output") \(log.suffix(400))")
        }
        do {
            client = try AgentClient.connect(socketPath: socketPath)
            _ = try client.perform(.unlock(.passphrase(keychain.passphrase)))
        } catch {
            Self.end(process)
            throw BenchmarkFailure("cannot unlock the agent: \(error)")
        }
    }

    deinit { Self.end(process) }

    /// Stops the agent (SIGTERM) and waits for it.
    func stop() { Self.end(process) }

    /// A `latchkey` client process of the agent with piped standard input and output.
    func spawn(_ arguments: [String], log: String) throws -> Child {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment.merging(["LATCHKEY_AGENT": "required"]) { _, new in new }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try Self.logFile(directory.path + "/" + log)
        try process.run()
        return Child(process: process, input: input.fileHandleForWriting, output: output.fileHandleForReading)
    }

    /// A running client process.
    struct Child {
        let process: Process
        let input: FileHandle
        let output: FileHandle

        /// The next line of its standard output, without the newline (`nil` at the end).
        func readLine() throws -> String? { BenchmarkAgent.readLine(output) }
    }

    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Reads one line byte by byte (so nothing after it is consumed).
    static func readLine(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(handle.fileDescriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    private static func logFile(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw BenchmarkFailure("cannot create \(path)") }
        return handle
    }

    private static func run(
        _ executable: String,
        _ arguments: [String],
        _ environment: [String: String],
        log: String
    )
        throws
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try logFile(log)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure(
                "latchkey \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)"
            )
        }
    }
}
