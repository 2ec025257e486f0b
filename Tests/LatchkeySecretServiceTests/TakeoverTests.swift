import Foundation
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// `latchkey agent --secret-service --replace` against real providers on a private session bus: Debian's
/// gnome-keyring-daemon (which requests org.freedesktop.secrets without ALLOW_REPLACEMENT) and another
/// Latchkey agent (which allows it). Nothing waits for time: tests wait for a name's owner (`gdbus wait`),
/// an agent's lines and processes' exits.
@Suite(.serialized)
struct TakeoverTests {
    @Test func replaceRefusesAnUnlockedGnomeKeyringWhichKeepsTheName() throws {
        let session = try TakeoverSession()
        let keyring = try session.startGnomeKeyring(unlocked: true)
        let refused = try session.agent(["--secret-service", "--replace"]).waitForExit(timeout: 60)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Not replacing gnome-keyring-daemon (pid \(keyring.pid)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("'login' are unlocked"))
        #expect(refused.stderr.contains("locks the session's secrets"))
        #expect(refused.stderr.contains("--replace-unlocked"))
        #expect(!refused.stdout.contains("secret-service ready"))
        #expect(try session.ownerProcess() == keyring.pid)
    }

    @Test func gnomeKeyringDoesNotAllowReplacementAndTheRefusalSaysWhatWorks() throws {
        let session = try TakeoverSession()
        let keyring = try session.startGnomeKeyring(unlocked: true)
        // Told to replace it even unlocked: gnome-keyring still keeps the name (no ALLOW_REPLACEMENT).
        let unlocked = try session.agent(["--replace-unlocked"]).waitForExit(timeout: 60)
        #expect(unlocked.status == 1)
        #expect(unlocked.stderr.contains("does not allow replacement"), "\(unlocked.stderr)")
        #expect(unlocked.stderr.contains("gnome-keyring-daemon --replace --components=pkcs11,ssh"))
        #expect(unlocked.stderr.contains("kill \(keyring.pid)"))
        // Locked, the same: the lock check passes and the bus refuses the replacement.
        try session.lockLoginCollection()
        let locked = try session.agent(["--secret-service", "--replace"]).waitForExit(timeout: 60)
        #expect(locked.status == 1)
        #expect(locked.stderr.contains("does not allow replacement"), "\(locked.stderr)")
        #expect(try session.ownerProcess() == keyring.pid)
    }

    @Test func theDocumentedAlternativeHandsTheNameToLatchkey() throws {
        let session = try TakeoverSession()
        let keyring = try session.startGnomeKeyring(unlocked: true)
        try session.lockLoginCollection()
        // The refusal's alternative: gnome-keyring replaces itself without its secrets component.
        let daemon = try Peer.require("gnome-keyring-daemon", package: "gnome-keyring")
        session.adopt(
            try BuiltExecutable.spawn(
                ["--replace", "--foreground", "--components=pkcs11,ssh"],
                environment: session.environment,
                executable: daemon
            )
        )
        _ = keyring.waitForExit(timeout: 60)
        let agent = try session.agent(["--secret-service", "--replace"])
        try session.waitUntilServing(agent)
        #expect(try session.ownerProcess() == agent.pid)
        let unlocked = try session.latchkey(["unlock", "--passphrase-stdin"], input: TakeoverSession.passphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        let secretTool = try Peer.require("secret-tool", package: "libsecret-tools")
        let stored = try CLIRunner.run(
            secretTool,
            ["store", "--label", "Takeover", "service", "takeover.example"],
            environment: session.environment,
            input: Data("taken over".utf8)
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let found = try CLIRunner.run(
            secretTool,
            ["lookup", "service", "takeover.example"],
            environment: session.environment
        )
        #expect(found.stdout == "taken over")
        let doctor = try session.latchkey(["doctor", "--json"])
        #expect(doctor.stdout.contains("\"provider\" : \"latchkey\""), "\(doctor.stdout)")
    }

    @Test func withoutReplaceATakenNameSaysWhoHoldsItAndTheNextStep() throws {
        let session = try TakeoverSession()
        let keyring = try session.startGnomeKeyring(unlocked: false)
        let refused = try session.agent(["--secret-service"]).waitForExit(timeout: 60)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "org.freedesktop.secrets is already owned on this session bus by gnome-keyring-daemon "
                    + "(pid \(keyring.pid), /usr/bin/gnome-keyring-daemon"
            ),
            "\(refused.stderr)"
        )
        #expect(refused.stderr.contains("latchkey agent --secret-service --replace"))
        #expect(refused.stderr.contains("systemctl --user stop gnome-keyring-daemon.service"))
    }

    @Test func anAgentReplacesALockedAgentWhichKeepsServingItsSocket() throws {
        let session = try TakeoverSession()
        let first = try session.agent(["--secret-service"])
        try session.waitUntilServing(first)
        let other = try session.secondAgentEnvironment()
        let second = try session.agent(["--secret-service", "--replace"], environment: other)
        try session.waitUntilServing(second)
        #expect(try session.ownerProcess() == second.pid)
        // The first agent says it lost the name and goes on serving its own clients.
        #expect(first.waitForLines(3, timeout: 60))
        #expect(first.stdoutLines.dropFirst(2).first == "secret-service lost org.freedesktop.secrets")
        #expect(first.waitForStandardError(containing: "replaced this agent on org.freedesktop.secrets", timeout: 60))
        let unlocked = try session.latchkey(["unlock", "--passphrase-stdin"], input: TakeoverSession.passphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
    }

    @Test func replaceRefusesAnUnlockedAgentUnlessToldToReplaceUnlocked() throws {
        let session = try TakeoverSession()
        let first = try session.agent(["--secret-service"])
        try session.waitUntilServing(first)
        let unlocked = try session.latchkey(["unlock", "--passphrase-stdin"], input: TakeoverSession.passphrase)
        try #require(unlocked.status == 0, "\(unlocked.stderr)")
        let other = try session.secondAgentEnvironment()
        let refused = try session.agent(["--secret-service", "--replace"], environment: other).waitForExit(timeout: 60)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("Not replacing latchkey (pid \(first.pid)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("'login' are unlocked"))
        #expect(try session.ownerProcess() == first.pid)
        let second = try session.agent(["--replace-unlocked"], environment: other)
        try session.waitUntilServing(second)
        #expect(try session.ownerProcess() == second.pid)
        #expect(first.waitForLines(3, timeout: 60))
        #expect(first.stdoutLines.dropFirst(2).first == "secret-service lost org.freedesktop.secrets")
    }
}
