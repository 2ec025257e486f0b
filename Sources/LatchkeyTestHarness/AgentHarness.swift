import Foundation
import Latchkey
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A real `latchkey agent` process in a temporary runtime directory, serving a temporary keychain (test
/// KDF cost) that it starts locked; clients get an environment without any credential.
///
/// ```swift
/// let agent = try AgentHarness()
/// _ = try agent.latchkey(["unlock", "--passphrase-stdin"], input: AgentHarness.passphrase)
/// let found = try agent.latchkey(["find-generic-password", "-s", "svc", "-w"])
/// let stopped = agent.stop()     // SIGTERM; the agent removes its socket
/// ```
public final class AgentHarness: @unchecked Sendable {
    // SAFETY: every stored property is a `let`; `ChildProcess` and `TemporaryKeychain` are themselves safe
    // to share (their mutable state is behind a lock, or there is none).

    /// The passphrase the keychain is created with.
    public static let passphrase = "agent test passphrase"

    /// The keychain the agent serves.
    public let keychain: TemporaryKeychain
    /// `$XDG_RUNTIME_DIR` of the agent and its clients.
    public let runtimeDirectory: String
    /// The agent's socket.
    public let socketPath: String
    /// The environment of clients: no passphrase, key file or `LATCHKEY_ACCESS_GROUPS`.
    public let environment: [String: String]
    /// The running agent (under socket activation: the Python parent of `systemd-socket-activate`).
    public let agent: ChildProcess
    /// Whether the agent is started by socket activation.
    public let socketActivated: Bool
    /// Under socket activation, the process that becomes the agent on the first connection.
    public let activatedProcess: Int32?

    /// Creates `keychain` with `passphrase` (test KDF cost) and the agent's runtime directory (0700), and
    /// returns the environment of clients and agents: no passphrase, key file, access groups or agent mode.
    public static func createKeychain(
        _ keychain: TemporaryKeychain,
        runtimeDirectory: String,
        passphrase: String,
        sourceLocation: SourceLocation
    ) throws -> [String: String] {
        try FileManager.default.createDirectory(
            atPath: runtimeDirectory + "/latchkey",
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let environment = clientEnvironment(keychain, runtimeDirectory: runtimeDirectory)
        let created = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "--passphrase-stdin"],
            environment: environment,
            input: passphrase,
            sourceLocation: sourceLocation
        )
        try #require(created.status == 0, "create-keychain: \(created.stderr)", sourceLocation: sourceLocation)
        return environment
    }

    /// Prepares what an agent starts on: `keychain` created with `passphrase` (`createKeychain`) when
    /// `keychainExists`, else only the agent's runtime directory (0700), so that the agent waits for the first
    /// unlock; returns the environment of clients and agents (`clientEnvironment`).
    public static func prepare(
        _ keychain: TemporaryKeychain,
        runtimeDirectory: String,
        keychainExists: Bool,
        passphrase: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: String] {
        guard keychainExists else {
            try FileManager.default.createDirectory(
                atPath: runtimeDirectory + "/latchkey",
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            return clientEnvironment(keychain, runtimeDirectory: runtimeDirectory)
        }
        return try createKeychain(
            keychain,
            runtimeDirectory: runtimeDirectory,
            passphrase: passphrase,
            sourceLocation: sourceLocation
        )
    }

    /// The environment of clients and agents on `keychain`: no passphrase, key file, access groups or agent
    /// mode.
    public static func clientEnvironment(_ keychain: TemporaryKeychain, runtimeDirectory: String) -> [String: String] {
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        environment["LATCHKEY_ACCESS_GROUPS"] = nil
        environment["LATCHKEY_AGENT"] = nil
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        return environment
    }

    /// Creates the keychain and starts an agent on it, waiting for its "ready" line.
    ///
    /// - Parameters:
    ///   - arguments: Extra arguments of `latchkey agent`.
    ///   - keychainExists: Whether to create the keychain first; without it the agent starts as at a first
    ///     login, with no keychain (it then waits for the first unlock to create one).
    ///   - socketActivated: Start it as systemd would, through `systemd-socket-activate` (a peer): the
    ///     socket is bound first and the agent runs on the first connection; this waits for the socket.
    ///   - agentEnvironment: Added to the agent's environment only (not the clients'), e.g.
    ///     `DBUS_SYSTEM_BUS_ADDRESS`.
    ///   - beforeAgent: Runs with the clients' environment once the keychain exists, before the agent starts.
    public init(
        arguments: [String] = [],
        socketActivated: Bool = false,
        keychainExists: Bool = true,
        agentEnvironment: [String: String] = [:],
        beforeAgent: ((_ environment: [String: String]) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        keychain = TemporaryKeychain()
        self.socketActivated = socketActivated
        runtimeDirectory = keychain.directory + "/run"
        socketPath = runtimeDirectory + "/latchkey/agent.sock"
        let environment = try Self.prepare(
            keychain,
            runtimeDirectory: runtimeDirectory,
            keychainExists: keychainExists,
            passphrase: Self.passphrase,
            sourceLocation: sourceLocation
        )
        self.environment = environment
        try beforeAgent?(environment)
        let agentsEnvironment = environment.merging(agentEnvironment) { _, new in new }
        guard socketActivated else {
            activatedProcess = nil
            agent = try BuiltExecutable.spawn(["agent", "--foreground"] + arguments, environment: agentsEnvironment)
            let ready = agent.waitForLines(1, timeout: 60)
            guard ready, agent.stdoutLines.first == "ready \(socketPath)" else {
                let finished = agent.waitForExit(timeout: 10)
                Issue.record(
                    "the agent did not get ready: \(finished.stdout) \(finished.stderr)",
                    sourceLocation: sourceLocation
                )
                throw AgentHarnessError.notReady
            }
            return
        }
        let activator = try Peer.require("systemd-socket-activate", package: "systemd")
        let events = try DirectoryEvents(directory: runtimeDirectory + "/latchkey")
        let passed =
            ["XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "HOME"]
            + ["LATCHKEY_KEYCHAIN", "LATCHKEY_DEVICE_SECRET"] + agentEnvironment.keys.sorted()
        // systemd-socket-activate closes every inherited descriptor but 0-2 before it runs the agent, which
        // Foundation's Process takes for the child's exit (and then blocks in waitpid for all children). A
        // Python parent stays the direct child and keeps the descriptors; it prints the pid of its child,
        // which systemd-socket-activate replaces with the agent (exec), and exits with the agent's status.
        // (Not a shell: children of the test's threads start with SIGCHLD blocked, and `wait` would hang.)
        let python = try Peer.require("python3", package: "python3")
        let script =
            "import subprocess, sys; p = subprocess.Popen(sys.argv[1:]); print(p.pid, flush=True); "
            + "sys.exit(p.wait())"
        agent = try BuiltExecutable.spawn(
            ["-c", script, activator, "-l", socketPath] + passed.flatMap { ["-E", $0] }
                + [BuiltExecutable.latchkey, "agent", "--foreground"] + arguments,
            environment: agentsEnvironment,
            executable: python
        )
        guard agent.waitForLines(1, timeout: 60), let pid = agent.stdoutLines.first.flatMap({ Int32($0) }) else {
            Issue.record("the Python parent did not name its child", sourceLocation: sourceLocation)
            throw AgentHarnessError.notReady
        }
        activatedProcess = pid
        guard events.wait(for: 1, whileRunning: agent.pid, timeout: 60) == .reached else {
            let finished = agent.waitForExit(timeout: 10)
            Issue.record("systemd-socket-activate made no socket: \(finished.stderr)", sourceLocation: sourceLocation)
            throw AgentHarnessError.notReady
        }
    }

    deinit {
        if let activatedProcess { kill(activatedProcess, SIGKILL) }
        agent.kill(SIGKILL)
    }

    /// Runs the built `latchkey` as a client of the agent (`extra` is merged into the environment).
    public func latchkey(
        _ arguments: [String],
        input: String? = nil,
        extra: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIRunner.Result {
        try CLIRunner.latchkey(
            arguments,
            environment: environment.merging(extra) { _, new in new },
            input: input,
            sourceLocation: sourceLocation
        )
    }

    /// Runs another executable (a renamed copy of `latchkey`) as a client of the agent.
    public func run(
        _ executable: String,
        _ arguments: [String],
        extra: [String: String] = [:],
        input: String? = nil
    ) throws -> CLIRunner.Result {
        try CLIRunner.run(
            executable,
            arguments,
            environment: environment.merging(extra) { _, new in new },
            input: input.map { Data($0.utf8) }
        )
    }

    /// Unlocks the agent with the keychain's passphrase through `latchkey unlock --passphrase-stdin`.
    public func unlock(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let unlocked = try latchkey(
            ["unlock", "--passphrase-stdin"],
            input: Self.passphrase,
            sourceLocation: sourceLocation
        )
        #expect(unlocked.status == 0, "unlock: \(unlocked.stderr)", sourceLocation: sourceLocation)
    }

    /// A copy of the built `latchkey` under another file name (so another executable identity).
    public func copyOfLatchkey(named name: String) throws -> String {
        let path = keychain.directory + "/" + name
        try FileManager.default.copyItem(atPath: BuiltExecutable.latchkey, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return AgentLocation.canonical(path)
    }

    /// Stops the agent with SIGTERM and waits for it to exit (under socket activation, for its Python parent,
    /// which exits with the agent's status).
    @discardableResult
    public func stop() -> ChildProcess.Finished {
        if let activatedProcess { kill(activatedProcess, SIGTERM) } else { agent.kill(SIGTERM) }
        return agent.waitForExit(timeout: 60)
    }
}

/// Why an `AgentHarness` could not be made.
public enum AgentHarnessError: Error {
    /// The agent exited or said nothing instead of its "ready" line.
    case notReady
}
