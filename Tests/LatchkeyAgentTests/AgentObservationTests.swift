import Foundation
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Observation, readiness and migrations of the typed `Keychain` through a real agent process: the changes,
/// lock state and unlock the test process sees are those the CLI (another process) makes through the
/// agent. Every wait is on an event (the agent's state file through inotify, a registered observer), never
/// on time.
struct AgentObservationTests {
    /// A harness whose agent is unlocked (when asked), and a client of it that also holds the CLI's group.
    private static func agentAndClient(unlocked: Bool = true) throws -> (AgentHarness, AgentClient) {
        let harness = try AgentHarness()
        if unlocked { try harness.unlock() }
        let probe = try AgentClient.connect(socketPath: harness.socketPath)
        let granted = try harness.latchkey(["access", "grant", probe.welcome.executable, BuiltExecutable.latchkeyGroup])
        #expect(granted.status == 0, "\(granted.stderr)")
        return (harness, try AgentClient.connect(socketPath: harness.socketPath))
    }

    @Test(.timeLimit(.minutes(5))) func anObserverSeesChangesMadeByTheCLIThroughTheAgent() async throws {
        let (harness, client) = try Self.agentAndClient()
        let keychain = Keychain(service: "observed").keychainService(client)
        var changes = await keychain.changes().makeAsyncIterator()

        let added = try harness.latchkey(["add-generic-password", "-s", "observed", "-a", "alice", "-w", "one"])
        #expect(added.status == 0, "\(added.stderr)")
        let first = try await changes.next()
        #expect(first?.key == "alice")
        #expect(first?.kind == .added)

        let updated = try harness.latchkey(["add-generic-password", "-U", "-s", "observed", "-a", "alice", "-w", "two"])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(try await changes.next()?.kind == .updated)

        let other = try harness.latchkey(["add-generic-password", "-s", "elsewhere", "-a", "bob", "-w", "x"])
        #expect(other.status == 0, "\(other.stderr)")
        let deleted = try harness.latchkey(["delete-generic-password", "-s", "observed", "-a", "alice"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let removed = try await changes.next()
        #expect(removed?.key == "alice", "another service's item is not reported")
        #expect(removed?.kind == .removed)

        // The agent's state file names the lock state and counter, never an item.
        let state = try String(contentsOfFile: AgentStateFile.path(forSocket: harness.socketPath), encoding: .utf8)
        #expect(state.contains("\"lockState\":\"unlocked\""))
        #expect(!state.contains("observed") && !state.contains("alice"))
    }

    @Test(.timeLimit(.minutes(5))) func theSharedContextObservesThroughTheAgent() async throws {
        let (harness, _) = try Self.agentAndClient()
        let context = try KeychainContext.makeDefault(environment: harness.environment)
        let client = try #require(context.service as? AgentClient)
        let granted = try harness.latchkey([
            "access", "grant", client.welcome.executable, BuiltExecutable.latchkeyGroup,
        ])
        #expect(granted.status == 0, "\(granted.stderr)")
        let changes = KeychainContext.with(context) { Keychain(service: "shared").changes(forKey: "token") }
        var iterator = changes.makeAsyncIterator()
        let added = try harness.latchkey(["add-generic-password", "-s", "shared", "-a", "token", "-w", "t"])
        #expect(added.status == 0, "\(added.stderr)")
        let change = try await iterator.next()
        #expect(change?.key == "token")
        #expect(change?.kind == .added)
    }

    @Test(.timeLimit(.minutes(5))) func lockObserversSeeTheAgentsLockState() async throws {
        let (harness, client) = try Self.agentAndClient()
        let keychain = Keychain(service: "locks").keychainService(client)
        var states = try keychain.lockStateUpdates().makeAsyncIterator()
        #expect(await states.next() == .unlocked)

        let locked = try harness.latchkey(["lock"])
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(await states.next() == .locked, "`latchkey lock` in another process is seen here")
        #expect(try await !keychain.accessibility(.whenUnlocked).isAvailable())

        try harness.unlock()
        #expect(await states.next() == .unlocked)
    }

    @Test(.timeLimit(.minutes(5))) func waitUntilAvailableReturnsAfterAnUnlockFromAnotherProcess() async throws {
        let (harness, client) = try Self.agentAndClient(unlocked: false)
        let keychain = Keychain(service: "ready").accessibility(.whenUnlocked).keychainService(client)
        #expect(try await !keychain.isAvailable())
        #expect(
            try !KeychainContext.makeDefault(environment: harness.environment).service.perform(.lockState)
                .isUnlocked
        )

        let waiter = Task { try await keychain.waitUntilAvailable() }
        try await AgentWatch.shared(for: client).lockStates.waitForObservers(atLeast: 1)
        try harness.unlock()
        try await waiter.value
        #expect(try await keychain.isAvailable())
    }

    @Test(.timeLimit(.minutes(5))) func changesMadeWhileLockedAreReportedAfterTheUnlock() async throws {
        let (harness, client) = try Self.agentAndClient()
        let keychain = Keychain(service: "later", accessGroup: BuiltExecutable.latchkeyGroup).accessibility(
            .whenUnlocked
        )
        .keychainService(client)
        try await keychain.set("v1", forKey: "k")
        var changes = await keychain.changes().makeAsyncIterator()
        #expect(try harness.latchkey(["lock"]).status == 0)
        // An after-first-unlock item can be written while locked; the when-unlocked one keeps the service's
        // items unreadable, so the observer waits for the unlock to report it.
        let added = try harness.latchkey(
            ["add-generic-password", "-s", "later", "-a", "m", "-w", "x", "--accessible", "after-first-unlock"]
        )
        #expect(added.status == 0, "\(added.stderr)")
        try harness.unlock()
        let change = try await changes.next()
        #expect(change?.key == "m")
        #expect(change?.kind == .added)
    }

    @Test(.timeLimit(.minutes(5))) func aMigrationRunsThroughTheAgent() throws {
        let (harness, client) = try Self.agentAndClient()
        let old = Keychain(service: "legacy", accessGroup: BuiltExecutable.latchkeyGroup).keychainService(client)
        let new = Keychain(service: "current", accessGroup: BuiltExecutable.latchkeyGroup).keychainService(client)
        try old.set("secret-a", forKey: "a")
        try old.set("secret-b", forKey: "b")
        try new.set("taken", forKey: "b")

        #expect(throws: KeychainError.self) { try old.migrate(to: new) }
        #expect(try old.allKeys().sorted() == ["a", "b"], "a refused migration changes nothing")
        let dry = try KeychainMigration(from: old, to: new).dryRun()
        #expect(dry.entries(.conflict).map(\.sourceKey) == ["b"])

        let report = try old.migrate(to: new, conflictPolicy: .replaceDestination)
        #expect(report.entries(.replacedDestination).map(\.sourceKey) == ["b"])
        #expect(try old.allKeys().isEmpty)
        let readA = try harness.latchkey(["find-generic-password", "-s", "current", "-a", "a", "-w"])
        #expect(readA.stdout == "secret-a\n", "the CLI reads the migrated item through the agent: \(readA.stderr)")
        let readB = try harness.latchkey(["find-generic-password", "-s", "current", "-a", "b", "-w"])
        #expect(readB.stdout == "secret-b\n")

        // In place: an accessibility change keeps the item where it is.
        let inPlace = try new.migrate(to: new.accessibility(.whenUnlocked))
        #expect(inPlace.entries(.rewrittenInPlace).count == 2)
        #expect(try new.string(forKey: "a") == "secret-a")
        #expect(throws: KeychainError.self) {
            try new.migrate(to: Keychain(service: "x").keychainService(try TestKeychain.inMemory().store))
        }
    }
}

extension KeychainOutcome {
    /// Whether this is an unlocked lock state.
    fileprivate var isUnlocked: Bool { self == .lockState(.unlocked) }
}
