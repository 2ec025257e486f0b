import Foundation
import Latchkey
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private D-Bus session bus (`dbus-daemon --session --print-address=1 --nofork`, a peer) with a real
/// `latchkey agent --secret-service` on it, serving a temporary keychain that is unlocked once; clients get
/// the bus's address and no credential.
///
/// ```swift
/// let harness = try SecretServiceHarness()
/// _ = try harness.secretTool(["store", "--label", "L", "service", "S"], input: "pw")
/// ```
public final class SecretServiceHarness: @unchecked Sendable {
    // SAFETY: every stored property is a `let`; `ChildProcess` and `TemporaryKeychain` are safe to share.

    /// The passphrase the keychain is created with.
    public static let passphrase = "secret service test passphrase"

    /// The keychain the agent, and through it the Secret Service, serves.
    public let keychain: TemporaryKeychain
    /// The clients' environment: the private bus's address, the agent's runtime directory, no credential.
    public let environment: [String: String]
    /// The private bus.
    public let bus: ChildProcess
    /// The agent.
    public let agent: ChildProcess
    /// The agent's arguments after `agent --foreground --secret-service`.
    public let agentArguments: [String]
    /// `secret-tool` (Debian's libsecret-tools).
    public let secretToolPath: String
    /// The agent's prompter (`--pinentry`): it cancels every question until a test gives it answers.
    public let pinentry: ScriptedPinentry

    /// Starts the bus and the agent on it (with `agentArguments` added, and the scripted pinentry as its
    /// prompter, or none when `prompter` is false), waits for the agent's "ready" and "secret-service ready"
    /// lines and unlocks it (unless `unlock` is false). Without `keychainExists` the agent starts with no
    /// keychain, as at a first login (`unlock` must then be false). `beforeAgent` runs with the clients' environment once
    /// the keychain exists, before the agent starts.
    public init(
        unlock: Bool = true,
        prompter: Bool = true,
        agentArguments: [String] = [],
        keychainExists: Bool = true,
        beforeAgent: ((_ environment: [String: String]) throws -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let daemon = try Peer.require("dbus-daemon", package: "dbus-daemon", sourceLocation: sourceLocation)
        secretToolPath = try Peer.require("secret-tool", package: "libsecret-tools", sourceLocation: sourceLocation)
        keychain = TemporaryKeychain()
        pinentry = try ScriptedPinentry(directory: keychain.directory, sourceLocation: sourceLocation)
        let runtimeDirectory = keychain.directory + "/run"
        var environment = try AgentHarness.prepare(
            keychain,
            runtimeDirectory: runtimeDirectory,
            keychainExists: keychainExists,
            passphrase: Self.passphrase,
            sourceLocation: sourceLocation
        )
        bus = try BuiltExecutable.spawn(
            ["--session", "--print-address=1", "--nofork"],
            environment: environment,
            executable: daemon
        )
        guard bus.waitForLines(1, timeout: 60), let address = bus.stdoutLines.first, !address.isEmpty else {
            let finished = bus.waitForExit(timeout: 10)
            Issue.record("dbus-daemon printed no address: \(finished.stderr)", sourceLocation: sourceLocation)
            throw SecretServiceHarnessError.notReady
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
        try beforeAgent?(environment)
        self.agentArguments = ["--pinentry", prompter ? pinentry.path : "none"] + agentArguments
        agent = try Self.spawnAgent(self.agentArguments, environment: environment, sourceLocation: sourceLocation)
        if unlock { try self.unlock(sourceLocation: sourceLocation) }
    }

    /// Starts another agent with `--secret-service` on the harness's bus and keychain (after the first one
    /// died), waiting for its two ready lines. The caller stops it.
    public func startAnotherAgent(sourceLocation: SourceLocation = #_sourceLocation) throws -> ChildProcess {
        try Self.spawnAgent(agentArguments, environment: environment, sourceLocation: sourceLocation)
    }

    private static func spawnAgent(
        _ arguments: [String],
        environment: [String: String],
        sourceLocation: SourceLocation
    ) throws -> ChildProcess {
        let agent = try BuiltExecutable.spawn(
            ["agent", "--foreground", "--secret-service"] + arguments,
            environment: environment
        )
        let lines = agent.waitForLines(2, timeout: 60) ? agent.stdoutLines : []
        guard lines.count >= 2, lines[1] == "secret-service ready org.freedesktop.secrets" else {
            let finished = agent.waitForExit(timeout: 10)
            Issue.record(
                "the agent did not get ready: \(finished.stdout) \(finished.stderr)",
                sourceLocation: sourceLocation
            )
            throw SecretServiceHarnessError.notReady
        }
        return agent
    }

    deinit {
        agent.kill(SIGKILL)
        bus.kill(SIGKILL)
    }

    /// Unlocks the agent with the keychain's passphrase.
    public func unlock(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let unlocked = try latchkey(["unlock", "--passphrase-stdin"], input: Self.passphrase)
        #expect(unlocked.status == 0, "unlock: \(unlocked.stderr)", sourceLocation: sourceLocation)
    }

    /// Runs the built `latchkey` as a client of the agent.
    public func latchkey(_ arguments: [String], input: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.latchkey(arguments, environment: environment, input: input)
    }

    /// Runs `secret-tool` on the private bus.
    public func secretTool(_ arguments: [String], input: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(secretToolPath, arguments, environment: environment, input: input.map { Data($0.utf8) })
    }

    /// Runs a copy of `secret-tool` at `path` (another application to the agent: the identity is the
    /// executable's path), copying it there first.
    public func secretToolCopy(
        at path: String,
        _ arguments: [String],
        input: String? = nil
    ) throws -> CLIRunner.Result {
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.copyItem(atPath: secretToolPath, toPath: path)
        }
        return try CLIRunner.run(path, arguments, environment: environment, input: input.map { Data($0.utf8) })
    }

    /// Runs a copy of the venv's Python at `path` (another application to the agent: its executable is the
    /// copy), with the venv's packages, copying it there first.
    public func pythonCopy(
        at path: String,
        _ arguments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIRunner.Result {
        let python = try python(sourceLocation: sourceLocation)
        let locations = try CLIRunner.run(
            python,
            ["-c", "import sys, site; print(sys.base_prefix); print(site.getsitepackages()[0])"],
            environment: environment
        ).stdout.split(separator: "\n").map(String.init)
        let home = try #require(locations.first, sourceLocation: sourceLocation)
        let packages = try #require(locations.dropFirst().first, sourceLocation: sourceLocation)
        if !FileManager.default.fileExists(atPath: path) {
            let real = URL(fileURLWithPath: python).resolvingSymlinksInPath().path
            try FileManager.default.copyItem(atPath: real, toPath: path)
        }
        var environment = environment
        environment["PYTHONHOME"] = home
        environment["PYTHONPATH"] = packages
        return try CLIRunner.run(path, arguments, environment: environment)
    }

    /// The CI venv's Python (made by `.ci/run`, with secretstorage and keyring), else `nil`.
    public static let pythonWithSecretStorage: String? = {
        // Sources/LatchkeyTesting/<this file> -> the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidate = root.appendingPathComponent(".venv-oauth/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else { return nil }
        let checked = try? CLIRunner.run(
            candidate,
            ["-c", "import secretstorage, keyring"],
            environment: ProcessInfo.processInfo.environment
        )
        return checked?.status == 0 ? candidate : nil
    }()

    /// The python with `secretstorage` and `keyring` (the CI venv), or a failed requirement saying how to get it.
    public func python(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            Self.pythonWithSecretStorage,
            "peer Python with secretstorage missing: run .ci/run (it installs secretstorage and keyring into .venv-oauth)",
            sourceLocation: sourceLocation
        )
    }

    /// Runs `program` (another peer) on the private bus, without a terminal to prompt on.
    public func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> CLIRunner.Result {
        var environment = environment
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        return try CLIRunner.run(program, arguments, environment: environment, input: input.map { Data($0.utf8) })
    }
}

/// Why a `SecretServiceHarness` could not be made.
public enum SecretServiceHarnessError: Error {
    /// The bus or the agent did not get ready.
    case notReady
}
