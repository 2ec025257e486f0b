import Foundation
import LatchkeyTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private D-Bus session bus (`dbus-daemon`, a peer) with nobody on `org.freedesktop.secrets` yet, a
/// temporary keychain and home, and the real providers a takeover test starts on it: Debian's
/// `gnome-keyring-daemon` (secrets component, temporary HOME) and `latchkey agent --secret-service`.
///
/// ```swift
/// let session = try TakeoverSession()
/// let keyring = try session.startGnomeKeyring(unlocked: true)
/// let refused = session.agent(["--replace"]).waitForExit(timeout: 60)
/// ```
public final class TakeoverSession: @unchecked Sendable {
    // SAFETY: the stored properties are `let`s; `children` is behind a `Mutex`.

    /// The passphrase of the keychains and of gnome-keyring's login keyring.
    public static let passphrase = "takeover test passphrase"

    /// The keychain the Latchkey agent serves.
    public let keychain: TemporaryKeychain
    /// Clients' environment: the private bus, the first agent's runtime directory, the temporary home.
    public let environment: [String: String]
    /// The private bus.
    public let bus: ChildProcess
    /// `gdbus` (Debian's libglib2.0-bin), which waits for names and calls methods.
    public let gdbusPath: String
    private let children = Mutex<[ChildProcess]>([])
    private let extraKeychains = Mutex<[TemporaryKeychain]>([])

    /// Creates the keychain and starts the bus.
    public init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let daemon = try Peer.require("dbus-daemon", package: "dbus-daemon", sourceLocation: sourceLocation)
        gdbusPath = try Peer.require("gdbus", package: "libglib2.0-bin", sourceLocation: sourceLocation)
        keychain = TemporaryKeychain()
        var environment = try AgentHarness.createKeychain(
            keychain,
            runtimeDirectory: keychain.directory + "/run",
            passphrase: Self.passphrase,
            sourceLocation: sourceLocation
        )
        bus = try BuiltExecutable.spawn(
            ["--session", "--print-address=1", "--nofork"],
            environment: environment,
            executable: daemon
        )
        guard bus.waitForLines(1, timeout: 60), let address = bus.stdoutLines.first, !address.isEmpty else {
            Issue.record("dbus-daemon printed no address", sourceLocation: sourceLocation)
            throw SecretServiceHarnessError.notReady
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
    }

    deinit {
        for child in children.withLock({ $0 }) { child.kill(SIGKILL) }
        bus.kill(SIGKILL)
    }

    /// Keeps `child` to kill when the session ends.
    @discardableResult
    public func adopt(_ child: ChildProcess) -> ChildProcess {
        children.withLock { $0.append(child) }
        return child
    }

    /// Starts `gnome-keyring-daemon --foreground --components=secrets` on the bus and waits until it owns
    /// `org.freedesktop.secrets` (`gdbus wait`). With `unlocked`, the login keyring is created and unlocked
    /// with the passphrase given on standard input (`--unlock`), as PAM does at login.
    public func startGnomeKeyring(
        unlocked: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ChildProcess {
        let daemon = try Peer.require("gnome-keyring-daemon", package: "gnome-keyring", sourceLocation: sourceLocation)
        let keyring = adopt(
            try BuiltExecutable.spawn(
                ["--foreground", "--components=secrets"] + (unlocked ? ["--unlock"] : []),
                environment: environment,
                input: unlocked ? Self.passphrase : nil,
                executable: daemon
            )
        )
        try waitForOwner(sourceLocation: sourceLocation)
        return keyring
    }

    /// Waits until somebody owns `org.freedesktop.secrets` (`gdbus wait`, which watches `NameOwnerChanged`).
    public func waitForOwner(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let waited = try gdbus(["wait", "--session", "--timeout", "60", "org.freedesktop.secrets"])
        try #require(waited.status == 0, "gdbus wait: \(waited.stderr)", sourceLocation: sourceLocation)
    }

    /// The process id of `org.freedesktop.secrets`'s owner (`GetConnectionUnixProcessID`), or `nil` when
    /// nobody owns it.
    public func ownerProcess() throws -> Int32? {
        let reply = try gdbus([
            "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
            "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID", "org.freedesktop.secrets",
        ])
        guard reply.status == 0 else { return nil }
        // "(uint32 1234,)"
        let digits = reply.stdout.split(whereSeparator: { !$0.isNumber }).last
        return digits.flatMap { Int32($0) }
    }

    /// Locks gnome-keyring's login collection through the Secret Service's `Lock`.
    public func lockLoginCollection(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let locked = try gdbus([
            "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
            "--method", "org.freedesktop.Secret.Service.Lock",
            "[objectpath '/org/freedesktop/secrets/collection/login']",
        ])
        try #require(locked.status == 0, "Lock: \(locked.stderr)", sourceLocation: sourceLocation)
    }

    /// Starts `latchkey agent --foreground --pinentry none` with `arguments` on the bus, without waiting.
    ///
    /// - Parameter environment: The agent's environment (another keychain and runtime directory), else the
    ///   session's.
    public func agent(_ arguments: [String], environment: [String: String]? = nil) throws -> ChildProcess {
        adopt(
            try BuiltExecutable.spawn(
                ["agent", "--foreground", "--pinentry", "none"] + arguments,
                environment: environment ?? self.environment
            )
        )
    }

    /// An environment for a second agent: its own keychain (one agent per keychain) and runtime directory, the
    /// same bus.
    public func secondAgentEnvironment(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String] {
        let other = TemporaryKeychain()
        extraKeychains.withLock { $0.append(other) }
        var environment = try AgentHarness.createKeychain(
            other,
            runtimeDirectory: other.directory + "/run",
            passphrase: Self.passphrase,
            sourceLocation: sourceLocation
        )
        environment["DBUS_SESSION_BUS_ADDRESS"] = self.environment["DBUS_SESSION_BUS_ADDRESS"]
        return environment
    }

    /// Waits for an agent's "ready" and "secret-service ready" lines.
    public func waitUntilServing(_ agent: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let lines = agent.waitForLines(2, timeout: 60) ? agent.stdoutLines : []
        guard lines.count >= 2, lines[1] == "secret-service ready org.freedesktop.secrets" else {
            let finished = agent.waitForExit(timeout: 10)
            Issue.record(
                "the agent did not serve: \(finished.stdout) \(finished.stderr)",
                sourceLocation: sourceLocation
            )
            throw SecretServiceHarnessError.notReady
        }
    }

    /// Runs `gdbus` with the session's environment.
    public func gdbus(_ arguments: [String]) throws -> CLIRunner.Result {
        try CLIRunner.run(gdbusPath, arguments, environment: environment)
    }

    /// Runs the built `latchkey` with `environment` (else the session's).
    public func latchkey(
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: String? = nil
    ) throws -> CLIRunner.Result {
        try CLIRunner.latchkey(arguments, environment: environment ?? self.environment, input: input)
    }
}
