import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// An agent started with no keychain (a first login, by socket or D-Bus activation) waits locked, and the
/// first unlock creates the keychain with that passphrase (docs/install.md, "The first login creates the
/// keychain").
@Suite("Agent: the first unlock creates the keychain")
struct AgentFirstUnlockTests {
    static let passphrase = "first login password"

    @Test("an agent without a keychain starts, answers locked, and the first unlock creates the keychain")
    func theFirstUnlockCreatesTheKeychain() throws {
        let agent = try AgentHarness(arguments: ["--kdf-cost", "testing"], keychainExists: false)
        #expect(FileManager.default.fileExists(atPath: agent.keychain.path))

        let find = try agent.latchkey(["find-generic-password", "-s", "svc", "-w"])
        #expect(find.status != 0)
        #expect(find.stderr.contains("has not been created yet"), "\(find.stderr)")
        #expect(find.stderr.contains("latchkey unlock"), "\(find.stderr)")
        #expect(find.stderr.contains("-25308"), "\(find.stderr)")
        let add = try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "early"])
        #expect(add.status != 0, "nothing can be stored before the keychain exists")

        let unlocked = try agent.latchkey(["unlock", "--passphrase-stdin"], input: Self.passphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let stored = try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "s3cret"])
        #expect(stored.status == 0, "\(stored.stderr)")
        let found = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "acct", "-w"])
        #expect(found.stdout == "s3cret\n", "\(found.stderr)")
        #expect(agent.stop().status == 0)

        // The keychain is an ordinary one now: that passphrase opens it in process, another does not.
        var inProcess = agent.environment
        inProcess["LATCHKEY_AGENT"] = "off"
        inProcess["LATCHKEY_PASSPHRASE"] = Self.passphrase
        let reread = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "svc", "-a", "acct", "-w"],
            environment: inProcess
        )
        #expect(reread.stdout == "s3cret\n", "\(reread.stderr)")
        inProcess["LATCHKEY_PASSPHRASE"] = "another password"
        let wrong = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-w"], environment: inProcess)
        #expect(wrong.stderr.contains("-25293"), "\(wrong.stderr)")
    }

    @Test("an empty first passphrase is refused and the keychain keeps waiting")
    func anEmptyFirstPassphraseIsRefused() throws {
        let agent = try AgentHarness(arguments: ["--kdf-cost", "testing"], keychainExists: false)
        let empty = try agent.latchkey(["unlock", "--passphrase-stdin"], input: "")
        #expect(empty.status != 0)
        let still = try agent.latchkey(["find-generic-password", "-s", "svc", "-w"])
        #expect(still.stderr.contains("has not been created yet"), "\(still.stderr)")
        let unlocked = try agent.latchkey(["unlock", "--passphrase-stdin"], input: Self.passphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }

    @Test("a keychain still waiting when its agent stops waits again for the next agent, or an in-process unlock")
    func aWaitingKeychainOutlivesItsAgent() throws {
        let first = try AgentHarness(arguments: ["--kdf-cost", "testing"], keychainExists: false)
        #expect(first.stop().status == 0)

        // A second agent on the same (waiting) file starts and waits too.
        let second = try BuiltExecutable.spawn(
            ["agent", "--foreground", "--kdf-cost", "testing"],
            environment: first.environment
        )
        defer { second.kill(SIGKILL) }
        #expect(second.waitForLines(1, timeout: 60), "the second agent did not get ready")
        let waiting = try first.latchkey(["find-generic-password", "-s", "svc", "-w"])
        #expect(waiting.stderr.contains("has not been created yet"), "\(waiting.stderr)")
        second.kill(SIGTERM)
        _ = second.waitForExit(timeout: 60)

        // Without an agent, the first in-process unlock creates it.
        var inProcess = first.environment
        inProcess["LATCHKEY_AGENT"] = "off"
        inProcess["LATCHKEY_PASSPHRASE"] = Self.passphrase
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "--kdf-cost", "testing", "-s", "svc", "-a", "acct", "-w", "v"],
            environment: inProcess
        )
        #expect(added.status == 0, "\(added.stderr)")
        let found = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-w"], environment: inProcess)
        #expect(found.stdout == "v\n", "\(found.stderr)")
    }

    @Test("a Secret Service client's unlock prompt asks for a new passphrase twice and creates the keychain")
    func theSecretServicePromptCreatesTheKeychain() throws {
        let harness = try SecretServiceHarness(
            unlock: false,
            agentArguments: ["--kdf-cost", "testing"],
            keychainExists: false
        )
        harness.pinentry.answer(["PIN \(Self.passphrase)"])
        let stored = try harness.secretTool(["store", "--label", "L", "service", "s", "username", "u"], input: "pw")
        #expect(stored.status == 0, "\(stored.stderr)")
        if stored.status != 0 {
            // What the agent logged, to tell why.
            harness.agent.kill(SIGTERM)
            Issue.record("the agent's log: \(harness.agent.waitForExit(timeout: 60).stderr)")
        }
        #expect(harness.pinentry.commands(named: "SETREPEAT").count == 1, "\(harness.pinentry.log)")
        let description = harness.pinentry.commands(named: "SETDESC").joined()
        #expect(description.contains("no keychain yet"), "\(description)")
        let looked = try harness.secretTool(["lookup", "service", "s", "username", "u"])
        #expect(looked.stdout == "pw", "\(looked.stderr)")

        // The passphrase chosen in the prompt is the keychain's.
        #expect(try harness.latchkey(["lock"]).status == 0)
        let unlocked = try harness.latchkey(["unlock", "--passphrase-stdin"], input: Self.passphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(try harness.secretTool(["lookup", "service", "s", "username", "u"]).stdout == "pw")
    }

    @Test("`latchkey unlock` on a terminal asks twice for the passphrase that creates the keychain")
    func theTerminalUnlockAsksTwice() throws {
        let agent = try AgentHarness(arguments: ["--kdf-cost", "testing"], keychainExists: false)
        let mismatch = try PseudoTerminalSession(
            executable: BuiltExecutable.latchkey,
            arguments: ["unlock"],
            environment: agent.environment
        )
        #expect(mismatch.waitFor("New passphrase"))
        mismatch.send("one\n")
        #expect(mismatch.waitFor("Repeat passphrase"))
        mismatch.send("two\n")
        let refused = mismatch.finish()
        #expect(refused.status != 0)
        #expect(refused.transcript.contains("do not match"), "\(refused.transcript)")

        let session = try PseudoTerminalSession(
            executable: BuiltExecutable.latchkey,
            arguments: ["unlock"],
            environment: agent.environment
        )
        #expect(session.waitFor("New passphrase"))
        session.send(Self.passphrase + "\n")
        #expect(session.waitFor("Repeat passphrase"))
        session.send(Self.passphrase + "\n")
        let finished = session.finish()
        #expect(finished.status == 0, "\(finished.transcript)")
        #expect(try agent.latchkey(["lock"]).status == 0)
        let unlocked = try agent.latchkey(["unlock", "--passphrase-stdin"], input: Self.passphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }
}
