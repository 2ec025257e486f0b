import Foundation
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The agent's lock on sleep: logind's `PrepareForSleep(true)` on the system bus locks the keychain for every
/// client when `latchkey set-keychain-settings -l` (or `latchkey agent --lock-on-sleep`) says so, is logged
/// and ignored otherwise, and an agent without a system bus serves as before. A private `dbus-daemon` stands
/// in for the system bus (the agent's `DBUS_SYSTEM_BUS_ADDRESS`), and Debian's python3 with dbus stands in for
/// logind: it owns `org.freedesktop.login1` on that bus and emits the signal from `/org/freedesktop/login1`.
struct AgentSleepLockTests {
    @Test func prepareForSleepLocksEveryClientWhenLockOnSleepIsSet() throws {
        let bus = try StandInSystemBus()
        let agent = try AgentHarness(
            arguments: ["--pinentry", "none"],
            agentEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
            beforeAgent: { environment in
                let set = try CLIRunner.latchkey(["set-keychain-settings", "-l"], environment: environment)
                #expect(set.status == 0, "set-keychain-settings -l: \(set.stderr)")
            }
        )
        try Self.expectLocksOnSleep(agent, bus: bus)
    }

    @Test func lockOnSleepFlagLocksWithoutTheSetting() throws {
        let bus = try StandInSystemBus()
        let agent = try AgentHarness(
            arguments: ["--pinentry", "none", "--lock-on-sleep"],
            agentEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
        )
        try Self.expectLocksOnSleep(agent, bus: bus)
    }

    @Test func prepareForSleepIsIgnoredWithoutLockOnSleep() throws {
        let bus = try StandInSystemBus()
        let agent = try AgentHarness(
            arguments: ["--pinentry", "none"],
            agentEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address]
        )
        try Self.waitUntilWatching(agent)
        try agent.unlock()
        let added = try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "wu", "-w", "wu-secret"])
        #expect(added.status == 0, "\(added.stderr)")

        try bus.emitPrepareForSleep(true)
        // The agent logs every PrepareForSleep it receives: this line says the signal was processed.
        let ignored = agent.agent.waitForStandardError(
            containing: "PrepareForSleep(true), lock on sleep is off: ignored",
            timeout: 60
        )
        #expect(ignored, "the agent logs the ignored signal")

        let found = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "wu", "-w"])
        #expect(found.status == 0, "still unlocked: \(found.stderr)")
        #expect(found.stdout == "wu-secret\n")
        let stopped = agent.stop()
        #expect(!stopped.stderr.contains("keychain locked"), "\(stopped.stderr)")
    }

    @Test func agentWithoutSystemBusStartsAndServes() throws {
        let scratch = TemporaryKeychain()
        let nowhere = scratch.directory + "/no-such-bus"
        let agent = try AgentHarness(
            arguments: ["--pinentry", "none", "--lock-on-sleep"],
            agentEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + nowhere]
        )
        let said = agent.agent.waitForStandardError(
            containing: "sleep lock: no system bus, the keychain does not lock when the machine sleeps",
            timeout: 60
        )
        #expect(said, "one line says the lock on sleep is off for want of a system bus")
        try agent.unlock()
        let added = try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "wu", "-w", "wu-secret"])
        #expect(added.status == 0, "\(added.stderr)")
        let found = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "wu", "-w"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "wu-secret\n")
        let stopped = agent.stop()
        #expect(stopped.status == 0 && stopped.signal == nil, "\(stopped.stderr)")
    }

    /// Unlocks `agent`, adds a when-unlocked and an after-first-unlock item, has the stand-in logind announce
    /// sleep, waits for the agent's log line, and checks that the first item is refused (-25308) to a client
    /// while the second stays readable, as after `latchkey lock`.
    private static func expectLocksOnSleep(
        _ agent: AgentHarness,
        bus: StandInSystemBus,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try waitUntilWatching(agent, sourceLocation: sourceLocation)
        try agent.unlock(sourceLocation: sourceLocation)
        let whenUnlocked = try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "wu", "-w", "wu-secret"])
        #expect(whenUnlocked.status == 0, "\(whenUnlocked.stderr)", sourceLocation: sourceLocation)
        let afterFirst = try agent.latchkey([
            "add-generic-password", "-s", "svc", "-a", "afu", "-w", "afu-secret", "--accessible", "after-first-unlock",
        ])
        #expect(afterFirst.status == 0, "\(afterFirst.stderr)", sourceLocation: sourceLocation)

        try bus.emitPrepareForSleep(true)
        let locked = agent.agent.waitForStandardError(
            containing: "keychain locked: the machine goes to sleep",
            timeout: 60
        )
        try #require(locked, "the agent logs the lock on sleep", sourceLocation: sourceLocation)

        let refused = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "wu", "-w"])
        #expect(refused.status == 1, "\(refused.stdout)", sourceLocation: sourceLocation)
        #expect(refused.stderr.contains("OSStatus -25308"), "\(refused.stderr)", sourceLocation: sourceLocation)
        let kept = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "afu", "-w"])
        #expect(kept.status == 0, "\(kept.stderr)", sourceLocation: sourceLocation)
        let stopped = agent.stop()
        #expect(
            !stopped.stderr.contains("wu-secret"),
            "the agent's log holds no secret",
            sourceLocation: sourceLocation
        )
    }

    /// Waits for the agent's line saying its match for `PrepareForSleep` is in place on the bus.
    private static func waitUntilWatching(
        _ agent: AgentHarness,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let watching = agent.agent.waitForStandardError(
            containing: "sleep lock: watching for sleep on the system bus",
            timeout: 60
        )
        try #require(watching, "the agent watches the stand-in system bus", sourceLocation: sourceLocation)
    }
}

/// A private `dbus-daemon` standing in for the system bus, and a stand-in for logind on it.
private final class StandInSystemBus {
    /// The bus's address, for the agent's `DBUS_SYSTEM_BUS_ADDRESS`.
    let address: String
    private let daemon: ChildProcess
    private let python: String

    /// Owns `org.freedesktop.login1` (at once or fails) and emits `PrepareForSleep(argv[2] == "true")` from
    /// `/org/freedesktop/login1`, as logind does before a suspend.
    private static let emitScript = """
        import sys, dbus
        bus = dbus.bus.BusConnection(sys.argv[1])
        owned = bus.request_name("org.freedesktop.login1", dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if owned != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            sys.exit("cannot own org.freedesktop.login1: %d" % owned)
        signal = dbus.lowlevel.SignalMessage(
            "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "PrepareForSleep")
        signal.append(sys.argv[2] == "true", signature="b")
        bus.send_message(signal)
        bus.flush()
        """

    init(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let dbusDaemon = try Peer.require("dbus-daemon", package: "dbus-daemon", sourceLocation: sourceLocation)
        python = try Peer.require("/usr/bin/python3", package: "python3", sourceLocation: sourceLocation)
        let probe = try CLIRunner.run(python, ["-c", "import dbus"], environment: ProcessInfo.processInfo.environment)
        try #require(
            probe.status == 0,
            "peer python3-dbus missing: install the Debian package python3-dbus (.ci/run installs every peer)",
            sourceLocation: sourceLocation
        )
        daemon = try BuiltExecutable.spawn(
            ["--session", "--print-address=1", "--nofork"],
            environment: ProcessInfo.processInfo.environment,
            executable: dbusDaemon
        )
        guard daemon.waitForLines(1, timeout: 60), let address = daemon.stdoutLines.first, !address.isEmpty else {
            let finished = daemon.waitForExit(timeout: 10)
            Issue.record("dbus-daemon printed no address: \(finished.stderr)", sourceLocation: sourceLocation)
            throw StandInSystemBusError.notReady
        }
        self.address = address
    }

    deinit {
        daemon.kill(SIGKILL)
    }

    /// Emits logind's `PrepareForSleep(sleeping)` on the bus, from a connection that owns
    /// `org.freedesktop.login1`.
    func emitPrepareForSleep(_ sleeping: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let emitted = try CLIRunner.run(
            python,
            ["-c", Self.emitScript, address, sleeping ? "true" : "false"],
            environment: ProcessInfo.processInfo.environment
        )
        try #require(emitted.status == 0, "the stand-in logind: \(emitted.stderr)", sourceLocation: sourceLocation)
    }
}

/// Why a `StandInSystemBus` could not be made.
private enum StandInSystemBusError: Error {
    /// `dbus-daemon` exited or printed no address.
    case notReady
}
