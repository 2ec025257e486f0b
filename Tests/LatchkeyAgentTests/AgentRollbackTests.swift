import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The agent remembers each keychain's last authenticated state outside the file
/// (`$XDG_STATE_HOME/latchkey/<file id>.ledger-state`): a whole keychain file rolled back to an older copy
/// is refused at start and at unlock with -26275 naming the keychain, until `latchkey unlock
/// --accept-rollback`.
struct AgentRollbackTests {
    /// Starts another `latchkey agent` for the harness's keychain and socket and waits for its "ready" line.
    static func startAgent(_ harness: AgentHarness, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> ChildProcess
    {
        let agent = try BuiltExecutable.spawn(["agent", "--foreground"], environment: harness.environment)
        guard agent.waitForLines(1, timeout: 60), agent.stdoutLines.first == "ready \(harness.socketPath)" else {
            agent.kill(SIGKILL)
            let finished = agent.waitForExit(timeout: 60)
            Issue.record("the agent did not get ready: \(finished.stderr)", sourceLocation: sourceLocation)
            throw AgentHarnessError.notReady
        }
        return agent
    }

    /// The keychain file and its `-wal` and `-shm` companions, as they are (absent ones stay absent).
    static func snapshot(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            if let data = FileManager.default.contents(atPath: path + suffix) { files[suffix] = data }
        }
        return files
    }

    /// Puts back a snapshot: each of the three files is replaced, or removed when the snapshot has none.
    static func restore(_ files: [String: Data], to path: String) throws {
        for suffix in ["", "-wal", "-shm"] {
            let target = path + suffix
            if let data = files[suffix] {
                try data.write(to: URL(fileURLWithPath: target))
                chmod(target, 0o600)
            } else if FileManager.default.fileExists(atPath: target) {
                try FileManager.default.removeItem(atPath: target)
            }
        }
    }

    @Test func aWholeFileRolledBackIsRefusedAtUnlockUntilAccepted() throws {
        let harness = try AgentHarness()
        try harness.unlock()
        let old = try harness.latchkey(["add-generic-password", "-s", "svc", "-a", "old", "-w", "old-secret"])
        #expect(old.status == 0, "\(old.stderr)")
        #expect(harness.stop().status == 0)
        let older = Self.snapshot(harness.keychain.path)

        let second = try Self.startAgent(harness)
        defer { second.kill(SIGKILL) }
        try harness.unlock()
        let new = try harness.latchkey(["add-generic-password", "-s", "svc", "-a", "new", "-w", "new-secret"])
        #expect(new.status == 0, "\(new.stderr)")
        let deleted = try harness.latchkey(["delete-generic-password", "-s", "svc", "-a", "old"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let stateDirectory = harness.keychain.directory + "/state/latchkey"
        let stateFiles = try FileManager.default.contentsOfDirectory(atPath: stateDirectory)
            .filter { $0.hasSuffix(".ledger-state") }
        #expect(stateFiles.count == 1, "one remembered state per keychain: \(stateFiles)")
        let mode = try FileManager.default.attributesOfItem(atPath: stateDirectory + "/" + stateFiles[0])[
            .posixPermissions
        ]
        #expect((mode as? Int) == 0o600)
        second.kill(SIGTERM)
        #expect(second.waitForExit(timeout: 60).status == 0)

        try Self.restore(older, to: harness.keychain.path)
        let third = try Self.startAgent(harness)
        defer { third.kill(SIGKILL) }
        let keychain = AgentLocation.canonical(harness.keychain.path)
        let refused = try harness.latchkey(["unlock", "--passphrase-stdin"], input: AgentHarness.passphrase)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("-26275"), "\(refused.stderr)")
        #expect(refused.stderr.contains(keychain), "the error names the keychain: \(refused.stderr)")
        #expect(refused.stderr.contains("latchkey unlock --accept-rollback"), "\(refused.stderr)")
        let read = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "old", "-w"])
        #expect(read.status == 1 && read.stderr.contains("-26275"), "no item is served: \(read.stderr)")
        let wrong = try harness.latchkey(["unlock", "--accept-rollback", "--passphrase-stdin"], input: "wrong")
        #expect(wrong.status == 1 && wrong.stderr.contains("-25293"), "accepting needs the credential")

        let accepted = try harness.latchkey(
            ["unlock", "--accept-rollback", "--passphrase-stdin"],
            input: AgentHarness.passphrase
        )
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let restored = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "old", "-w"])
        #expect(restored.stdout == "old-secret\n", "the accepted copy is served: \(restored.stderr)")
        let gone = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "new", "-w"])
        #expect(gone.status == 44)
        third.kill(SIGTERM)
        #expect(third.waitForExit(timeout: 60).status == 0)

        let fourth = try Self.startAgent(harness)
        defer { fourth.kill(SIGKILL) }
        try harness.unlock()
        let again = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "old", "-w"])
        #expect(again.stdout == "old-secret\n", "the accepted state is remembered: \(again.stderr)")
    }

    @Test func writesWithoutTheAgentMoveForwardButAnotherHistoryOfTheSameGenerationIsRefused() throws {
        let harness = try AgentHarness()
        try harness.unlock()
        let first = try harness.latchkey(["add-generic-password", "-s", "svc", "-a", "a", "-w", "a-secret"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(harness.stop().status == 0)
        let older = Self.snapshot(harness.keychain.path)
        let inProcess = ["LATCHKEY_AGENT": "off", "LATCHKEY_PASSPHRASE": AgentHarness.passphrase]

        let forward = try harness.latchkey(
            ["add-generic-password", "-s", "svc", "-a", "b", "-w", "b-secret"],
            extra: inProcess
        )
        #expect(forward.status == 0, "\(forward.stderr)")
        let second = try Self.startAgent(harness)
        defer { second.kill(SIGKILL) }
        try harness.unlock()
        let read = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "b", "-w"])
        #expect(read.stdout == "b-secret\n", "a write made without the agent is not a rollback: \(read.stderr)")
        second.kill(SIGTERM)
        #expect(second.waitForExit(timeout: 60).status == 0)

        try Self.restore(older, to: harness.keychain.path)
        let diverged = try harness.latchkey(
            ["add-generic-password", "-s", "svc", "-a", "c", "-w", "c-secret"],
            extra: inProcess
        )
        #expect(diverged.status == 0, "\(diverged.stderr)")
        let third = try Self.startAgent(harness)
        defer { third.kill(SIGKILL) }
        let refused = try harness.latchkey(["unlock", "--passphrase-stdin"], input: AgentHarness.passphrase)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("-26275"), "\(refused.stderr)")
        #expect(refused.stderr.contains("another history"), "same generation, another seal: \(refused.stderr)")
    }
}
