import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The agent's prompter for access groups, with a real agent process and a scripted pinentry: a group the
/// executable lacks is asked once; "Always allow" is remembered by path and content hash (across
/// connections and agent restarts, voided when the file's content changes); "Allow once" is not
/// remembered; "Deny", no prompter, or no answer refuse with -34018 as before.
struct AgentPrompterTests {
    static let shared = ["LATCHKEY_ACCESS_GROUPS": "com.example.shared"]

    /// An agent with the scripted pinentry, unlocked, and a copy of `latchkey` named `tool`.
    private func start(
        pinentry: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (AgentHarness, String) {
        let agent = try AgentHarness(arguments: ["--pinentry", pinentry ?? "none"], sourceLocation: sourceLocation)
        try agent.unlock(sourceLocation: sourceLocation)
        return (agent, try agent.copyOfLatchkey(named: "tool"))
    }

    private func add(_ agent: AgentHarness, _ tool: String, account: String) throws -> CLIRunner.Result {
        try agent.run(tool, ["add-generic-password", "-s", "svc", "-a", account, "-w", "x"], extra: Self.shared)
    }

    @Test func alwaysAllowIsRememberedAcrossConnectionsAndRestartsAndVoidedWhenTheContentChanges() throws {
        let scratch = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: scratch.directory)
        pinentry.answer(["OK"])
        let (agent, tool) = try start(pinentry: pinentry.path)

        let first = try add(agent, tool, account: "one")
        #expect(first.status == 0, "always allow grants the group: \(first.stderr)")
        #expect(pinentry.commands(named: "CONFIRM").count == 1)
        let description = try #require(pinentry.commands(named: "SETDESC").first)
        #expect(description.contains("Allow \(tool) (pid "), "\(description)")
        #expect(description.contains("access group com.example.shared?"), "\(description)")
        #expect(pinentry.commands(named: "SETOK") == ["SETOK Always allow"])
        #expect(pinentry.commands(named: "SETNOTOK") == ["SETNOTOK Allow once"])
        #expect(pinentry.commands(named: "SETCANCEL") == ["SETCANCEL Deny"])

        let second = try add(agent, tool, account: "two")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(pinentry.commands(named: "CONFIRM").count == 1, "the second connection is not asked")

        let policy = try AccessPolicy.load(from: agent.keychain.directory + "/config/latchkey/access.json")
        let digest = try #require(ContentHashes().digest(ofFile: tool))
        #expect(policy.grants[tool] == [AccessPolicy.Grant(group: "com.example.shared", sha256: digest)])
        let listed = try agent.latchkey(["access", "list"])
        #expect(listed.stdout == "\(tool): com.example.shared [sha256 \(digest)]\n")

        // A restarted agent reads the remembered grant.
        agent.stop()
        let restarted = try BuiltExecutable.spawn(
            ["agent", "--foreground", "--pinentry", pinentry.path],
            environment: agent.environment
        )
        defer {
            restarted.kill(SIGTERM)
            _ = restarted.waitForExit(timeout: 60)
        }
        #expect(restarted.waitForLines(1, timeout: 60), "the restarted agent got ready")
        try agent.unlock()
        let third = try add(agent, tool, account: "three")
        #expect(third.status == 0, "\(third.stderr)")
        #expect(pinentry.commands(named: "CONFIRM").count == 1, "not asked after a restart")

        // One more byte: the file's hash no longer matches, so the grant does not apply and the user is asked.
        // Written beside it and renamed over it: writing the file in place can meet "Text file busy" while a
        // child forked by a parallel test still holds it open.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: tool))
        bytes.append(0)
        _ = FileManager.default.createFile(
            atPath: tool + ".new",
            contents: bytes,
            attributes: [.posixPermissions: 0o755]
        )
        #expect(rename(tool + ".new", tool) == 0)
        pinentry.answer(["CANCEL"])
        let changed = try add(agent, tool, account: "four")
        // Asked again, then (after Deny) whether to remember the denial: "Only this time" (no answer left).
        #expect(pinentry.commands(named: "CONFIRM").count == 3, "a changed executable is asked again")
        #expect(changed.status == 1)
        #expect(changed.stderr.contains("-34018"), "denied: \(changed.stderr)")
    }

    @Test func allowOnceIsNotRemembered() throws {
        let keychainDirectory = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: keychainDirectory.directory)
        pinentry.answer(["NOTOK", "CANCEL"])
        let (agent, tool) = try start(pinentry: pinentry.path)

        let once = try add(agent, tool, account: "one")
        #expect(once.status == 0, "allow once serves this connection: \(once.stderr)")
        let again = try add(agent, tool, account: "two")
        // Asked again, then (after Deny) whether to remember the denial.
        #expect(pinentry.commands(named: "CONFIRM").count == 3, "the next connection is asked again")
        #expect(again.status == 1)
        #expect(again.stderr.contains("-34018"), "\(again.stderr)")
        let policy = try AccessPolicy.load(from: agent.keychain.directory + "/config/latchkey/access.json")
        #expect(policy.grants.isEmpty, "nothing was written for allow once")
    }

    @Test func denyIsRefusedWithMissingEntitlement() throws {
        let keychainDirectory = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: keychainDirectory.directory)
        pinentry.answer(["CANCEL"])
        let (agent, tool) = try start(pinentry: pinentry.path)
        let denied = try add(agent, tool, account: "one")
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("-34018"), "\(denied.stderr)")
        // The question, then whether to remember the denial ("Only this time": no answer left).
        #expect(pinentry.commands(named: "CONFIRM").count == 2)
        #expect(pinentry.commands(named: "SETOK").last == "SETOK Deny always")
        let policy = try AccessPolicy.load(from: agent.keychain.directory + "/config/latchkey/access.json")
        #expect(policy.denials.isEmpty, "only this time: nothing remembered")
    }

    @Test func noAnswerIsRefusedWithoutAskingToRememberIt() throws {
        let keychainDirectory = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: keychainDirectory.directory)
        pinentry.answer(["TIMEOUT", "OK"])
        let (agent, tool) = try start(pinentry: pinentry.path)
        let refused = try add(agent, tool, account: "one")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("-34018"), "\(refused.stderr)")
        #expect(pinentry.commands(named: "CONFIRM").count == 1, "no 'Remember this denial?' after no answer")
        let policy = try AccessPolicy.load(from: agent.keychain.directory + "/config/latchkey/access.json")
        #expect(policy.denials.isEmpty)
    }

    @Test func withoutAPrompterAMissingGroupIsRefusedAsBefore() throws {
        let (agent, tool) = try start()
        let refused = try add(agent, tool, account: "one")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("-34018"), "\(refused.stderr)")
        let granted = try agent.latchkey(["access", "grant", "--pin-content", tool, "com.example.shared"])
        #expect(granted.status == 0, "\(granted.stderr)")
        let pinned = try add(agent, tool, account: "two")
        #expect(pinned.status == 0, "a grant pinned with --pin-content applies: \(pinned.stderr)")
    }

    @Test func aVersionOnePolicyIsReadAsGrantsByPathAndRewrittenAsVersionThree() throws {
        let scratch = TemporaryKeychain()
        let file = scratch.directory + "/config/latchkey/access.json"
        try AccessPolicy().save(to: file)
        try Data("{\"version\": 1, \"grants\": {\"/usr/bin/tool\": [\"shared\", \"ci\"]}}".utf8)
            .write(to: URL(fileURLWithPath: file))
        var policy = try AccessPolicy.load(from: file)
        #expect(
            policy.grants["/usr/bin/tool"] == [AccessPolicy.Grant(group: "shared"), AccessPolicy.Grant(group: "ci")]
        )
        #expect(policy.groups(forExecutable: "/usr/bin/tool") == ["/usr/bin/tool", "shared", "ci"])
        policy.grant("pinned", to: "/usr/bin/tool", sha256: "ab")
        let other = policy.groups(forExecutable: "/usr/bin/tool") { "cd" }
        #expect(other == ["/usr/bin/tool", "shared", "ci"], "another hash")
        #expect(policy.groups(forExecutable: "/usr/bin/tool") { "ab" } == ["/usr/bin/tool", "shared", "ci", "pinned"])
        try policy.save(to: file)
        let written = try #require(FileManager.default.contents(atPath: file))
        let object = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        #expect(object["version"] as? Int == 3)
        #expect(try AccessPolicy.load(from: file) == policy)
    }

    @Test func contentHashesAreCachedUntilTheFileChanges() throws {
        let scratch = TemporaryKeychain()
        let file = scratch.directory + "/tool"
        try FileManager.default.copyItem(atPath: BuiltExecutable.latchkey, toPath: file)
        let hashes = ContentHashes()
        let clock = ContinuousClock()
        var first: String?
        let cold = clock.measure { first = hashes.digest(ofFile: file) }
        var second: String?
        let cached = clock.measure { second = hashes.digest(ofFile: file) }
        #expect(first != nil && first == second)
        #expect(hashes.hashedFiles == 1, "the second digest comes from the cache (cold \(cold), cached \(cached))")
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let changed = hashes.digest(ofFile: file)
        #expect(hashes.hashedFiles == 2, "a written file is hashed again")
        #expect(changed != first)
    }

    @Test func unlockTakesThePassphraseFromPinentryWhenLatchkeyPinentryIsSet() throws {
        let scratch = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: scratch.directory)
        let agent = try AgentHarness(arguments: ["--pinentry", "none"])
        pinentry.answer(["PIN not the passphrase", "PIN " + AgentHarness.passphrase])
        let wrong = try agent.latchkey(["unlock"], extra: ["LATCHKEY_PINENTRY": pinentry.path])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("-25293"), "\(wrong.stderr)")
        let unlocked = try agent.latchkey(["unlock"], extra: ["LATCHKEY_PINENTRY": pinentry.path])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(pinentry.commands(named: "GETPIN").count == 2)
        #expect(try agent.latchkey(["show-keychain-info"]).stdout.contains("\" unlocked\n"))
    }

    @Test(arguments: [
        ("OK", Assuan.Response.ok),
        (
            "ERR 83886194 Not confirmed <Pinentry>",
            Assuan.Response.error(code: 83_886_194, text: "Not confirmed <Pinentry>")
        ),
        ("D a%25b%0Ac", Assuan.Response.data(Array("a%b\nc".utf8))),
        ("S PASSWORD_FROM_CACHE", Assuan.Response.status),
        ("# comment", Assuan.Response.comment),
        ("INQUIRE QUALITY x", Assuan.Response.inquire),
    ])
    func assuanResponsesAreParsedAndDecoded(line: String, expected: Assuan.Response) {
        #expect(Assuan.parse(Array(line.utf8)) == expected)
    }

    @Test func assuanParametersArePercentEscaped() {
        #expect(Assuan.escape("100% sure\nnext\rline") == "100%25 sure%0Anext%0Dline")
        #expect(Assuan.errorCode(83_886_194) == Assuan.notConfirmed)
        #expect(Assuan.errorCode(83_886_179) == Assuan.canceled)
    }
}
