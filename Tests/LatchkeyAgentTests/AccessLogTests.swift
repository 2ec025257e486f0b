import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The agent's encrypted access log (docs/agent.md, "The access log"): what it records through the socket
/// and the Secret Service, who can read it, rotation, and damage.
@Suite(.serialized)
struct AccessLogTests {
    /// One entry of `latchkey access log --json`.
    struct Entry {
        var object: [String: Any]

        var event: String { object["event"] as? String ?? "" }
        var decision: String { object["decision"] as? String ?? "" }
        var group: String? { object["group"] as? String }
        var application: [String: Any] { object["application"] as? [String: Any] ?? [:] }
        var path: String { application["path"] as? String ?? "" }
        var sha256: String { application["sha256"] as? String ?? "" }
        var process: Int { application["pid"] as? Int ?? 0 }
        var ancestry: [String] { application["ancestry"] as? [String] ?? [] }
        /// Each item's attributes (`svce`, `acct`, … or `label`).
        var items: [[String: String]] {
            (object["items"] as? [[String: Any]] ?? []).map { $0["attributes"] as? [String: String] ?? [:] }
        }
    }

    /// Runs `latchkey access log --json` (with the keychain's passphrase in its environment) until `predicate`
    /// holds for its entries or 30 seconds pass: the agent writes the log on a background thread.
    static func waitForLog(
        _ run: () throws -> CLIRunner.Result,
        sourceLocation: SourceLocation = #_sourceLocation,
        until predicate: ([Entry]) -> Bool
    ) throws -> [Entry] {
        let deadline = Date().addingTimeInterval(30)
        var entries: [Entry] = []
        var stderr = ""
        repeat {
            // A read racing the writer's append may see a half-written record (exit 65): read again.
            let result = try run()
            stderr = result.stderr
            entries = result.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }.map(Entry.init)
            if result.status == 0 && predicate(entries) { return entries }
        } while Date() < deadline
        Issue.record(
            "the access log never showed the expected entry: \(entries.map(\.object)) \(stderr)",
            sourceLocation: sourceLocation
        )
        return entries
    }

    /// The SHA-256 of a file, from coreutils (not the agent's own code).
    static func sha256(of path: String) throws -> String {
        let result = try CLIRunner.run("/usr/bin/sha256sum", [path], environment: ProcessInfo.processInfo.environment)
        return String(result.stdout.prefix(64))
    }

    @Test func aSecretToolLookupFromAShellIsLoggedWithItsIdentityHashPidAndParentChain() throws {
        let harness = try SecretServiceHarness()
        let stored = try harness.secretTool(
            ["store", "--label", "Deploy key", "service", "deploy", "username", "ci"],
            input: "hunter2-canary"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        // A shell that stays the parent (`; true` keeps it from exec'ing its last command) runs an inner shell
        // that prints its pid and becomes secret-tool. (No `wait` builtin: test threads block SIGCHLD.)
        let inner = "/bin/sh -c 'echo \"pid $$\"; exec \"$0\" lookup service deploy username ci' \"$0\"; true"
        let shell = try CLIRunner.run(
            "/bin/sh",
            ["-c", inner, harness.secretToolPath],
            environment: harness.environment
        )
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout.contains("hunter2-canary"))
        let pidLine = try #require(shell.stdout.split(separator: "\n").first { $0.hasPrefix("pid ") })
        let lookupProcess = try #require(Int(pidLine.dropFirst(4)))
        let secretTool = AgentLocation.canonical(harness.secretToolPath)
        let digest = try Self.sha256(of: secretTool)
        var extra = harness.environment
        extra["LATCHKEY_PASSPHRASE"] = SecretServiceHarness.passphrase
        let entries = try Self.waitForLog({ try CLIRunner.latchkey(["access", "log", "--json"], environment: extra) }) {
            $0.contains { $0.event == "read" && $0.process == lookupProcess }
        }
        let read = try #require(entries.first { $0.event == "read" && $0.process == lookupProcess })
        #expect(read.path == secretTool)
        #expect(read.sha256 == digest)
        #expect(read.items == [["label": "Deploy key"]])
        #expect(read.decision == "policy")
        #expect(read.object["channel"] as? String == "secret-service")
        #expect(read.ancestry.last == "secret-tool", "\(read.ancestry)")
        #expect(read.ancestry.dropLast().contains { ["sh", "dash", "bash"].contains($0) }, "\(read.ancestry)")
        #expect(entries.contains { $0.event == "write" && $0.items == [["label": "Deploy key"]] })
    }

    @Test func aFindIsLoggedAndADenyAlwaysIsRememberedLoggedAndListed() throws {
        let scratch = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: scratch.directory)
        let agent = try AgentHarness(arguments: ["--pinentry", pinentry.path])
        try agent.unlock()
        let passphrase = ["LATCHKEY_PASSPHRASE": AgentHarness.passphrase]
        #expect(try agent.latchkey(["add-generic-password", "-s", "api", "-a", "alice", "-w", "pw"]).status == 0)
        let found = try agent.latchkey(["find-generic-password", "-s", "api", "-a", "alice", "-w"])
        #expect(found.stdout == "pw\n")
        _ = try Self.waitForLog({ try agent.latchkey(["access", "log", "--json"], extra: passphrase) }) {
            $0.contains { $0.event == "read" && $0.items == [["svce": "api", "acct": "alice"]] }
        }

        pinentry.answer(["CANCEL", "OK"])  // Deny, then "Deny always"
        let groups = ["LATCHKEY_ACCESS_GROUPS": "com.example.other"]
        let denied = try agent.latchkey(["find-generic-password", "-s", "api"], extra: groups)
        #expect(denied.status != 0)
        #expect(denied.stderr.contains("-34018"), "\(denied.stderr)")
        #expect(pinentry.commands(named: "CONFIRM").count == 2)
        #expect(pinentry.log.contains { $0.contains("Deny always") })
        let asked = pinentry.log.count

        let again = try agent.latchkey(["find-generic-password", "-s", "api"], extra: groups)
        #expect(again.status != 0)
        #expect(again.stderr.contains("-34018"), "\(again.stderr)")
        #expect(pinentry.log.count == asked, "a remembered denial starts no pinentry")

        let latchkey = BuiltExecutable.latchkeyGroup
        let entries = try Self.waitForLog({ try agent.latchkey(["access", "log", "--json"], extra: passphrase) }) {
            $0.filter { $0.event == "access" && $0.group == "com.example.other" }.count == 2
        }
        let decisions = entries.filter { $0.event == "access" }
        #expect(decisions.map(\.decision) == ["denied-always", "denied-always"])
        #expect(decisions.allSatisfy { $0.path == latchkey })

        let listed = try agent.latchkey(["access", "list"])
        #expect(listed.stdout.contains("\(latchkey): com.example.other [denied]"), "\(listed.stdout)")
        let json = try agent.latchkey(["access", "list", "--json"])
        let policy = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: [[String: Any]]])
        #expect(
            policy[latchkey]?.contains {
                $0["group"] as? String == "com.example.other" && $0["denied"] as? Bool == true
            } == true
        )

        // `access revoke` forgets the denial: the agent asks again.
        #expect(try agent.latchkey(["access", "revoke", latchkey, "com.example.other"]).status == 0)
        pinentry.answer(["CANCEL", "CANCEL"])  // Deny, only this time
        _ = try agent.latchkey(["find-generic-password", "-s", "api"], extra: groups)
        #expect(pinentry.commands(named: "CONFIRM").count == 4)
        let later = try Self.waitForLog({ try agent.latchkey(["access", "log", "--json"], extra: passphrase) }) {
            $0.contains { $0.event == "access" && $0.decision == "denied" }
        }
        #expect(later.filter { $0.event == "access" }.map(\.decision) == ["denied-always", "denied-always", "denied"])
    }

    @Test func theLogHoldsNoPlaintextAndItsKeyCannotBeGrantedToAClient() throws {
        let agent = try AgentHarness(arguments: ["--pinentry", "none"])
        try agent.unlock()
        let canaries = ["svc-canary-7f3a", "acct-canary-91b2", "secret-canary-c0ffee"]
        let added = try agent.latchkey([
            "add-generic-password", "-s", canaries[0], "-a", canaries[1], "-w", canaries[2],
        ])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try agent.latchkey(["find-generic-password", "-s", canaries[0], "-w"]).stdout == canaries[2] + "\n")
        let passphrase = ["LATCHKEY_PASSPHRASE": AgentHarness.passphrase]
        _ = try Self.waitForLog({ try agent.latchkey(["access", "log", "--json"], extra: passphrase) }) {
            $0.contains { $0.event == "read" && $0.items.first?["svce"] == canaries[0] }
        }

        // The private key exists (in process, with the credential and the reserved group, it is found) …
        let inProcess = try agent.latchkey(
            ["find-generic-password", "-s", "latchkey.access-log", "-a", "private-key"],
            extra: passphrase.merging(["LATCHKEY_AGENT": "off", "LATCHKEY_ACCESS_GROUPS": AccessLogKeys.accessGroup]) {
                _,
                new in new
            }
        )
        #expect(inProcess.status == 0, "\(inProcess.stderr)")
        // … but no client of the agent reaches it: not by default, not by naming the group, not by a grant.
        let plain = try agent.latchkey([
            "find-generic-password", "-s", "latchkey.access-log", "-a", "private-key", "-w",
        ])
        #expect(plain.status == 44, "\(plain.stderr)")
        let named = try agent.latchkey(
            ["find-generic-password", "-s", "latchkey.access-log", "-a", "private-key", "-w"],
            extra: ["LATCHKEY_ACCESS_GROUPS": AccessLogKeys.accessGroup]
        )
        #expect(named.status != 0)
        #expect(named.stdout.isEmpty)
        let latchkey = BuiltExecutable.latchkeyGroup
        let grant = try agent.latchkey(["access", "grant", latchkey, AccessLogKeys.accessGroup])
        #expect(grant.status == 1)
        #expect(grant.stderr.contains("reserved for Latchkey itself"), "\(grant.stderr)")
        #expect(throws: KeychainError.self) { try AccessPolicy.validate(group: AccessLogKeys.accessGroup) }

        agent.stop()
        let files = AccessLogFiles(keychainPath: AgentLocation.canonical(agent.keychain.path))
        let bytes = try #require(FileManager.default.contents(atPath: files.currentPath))
        #expect(bytes.count > 0)
        for canary in canaries + [AgentHarness.passphrase] {
            #expect(bytes.range(of: Data(canary.utf8)) == nil, "\(canary) is in the log in plaintext")
        }
        var info = stat()
        #expect(stat(files.currentPath, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func rotationKeepsTwoFilesDropsTheOldestAndReadsTheNewest() throws {
        let agent = try AgentHarness(arguments: ["--pinentry", "none", "--access-log-limit", "1500"])
        try agent.unlock()
        for index in 0..<24 {
            let added = try agent.latchkey(["add-generic-password", "-s", "rotation", "-a", "acct-\(index)", "-w", "x"])
            #expect(added.status == 0, "\(added.stderr)")
        }
        #expect(try agent.latchkey(["find-generic-password", "-s", "rotation", "-a", "acct-23", "-w"]).status == 0)
        let passphrase = ["LATCHKEY_PASSPHRASE": AgentHarness.passphrase]
        let entries = try Self.waitForLog({ try agent.latchkey(["access", "log", "--json"], extra: passphrase) }) {
            $0.contains { $0.event == "read" && $0.items.first?["acct"] == "acct-23" }
        }
        #expect(!entries.contains { $0.items.first?["acct"] == "acct-0" }, "the oldest entries are dropped")
        #expect(entries.contains { $0.event == "write" && $0.items.first?["acct"] == "acct-22" })
        let directory = (AgentLocation.canonical(agent.keychain.path) as NSString).deletingLastPathComponent
        let name = (AgentLocation.canonical(agent.keychain.path) as NSString).lastPathComponent
        let logs = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasPrefix(name + ".access-log")
        }
        #expect(logs.sorted() == [name + ".access-log", name + ".access-log.1"])
        for file in logs {
            let size = try #require(FileManager.default.attributesOfItem(atPath: directory + "/" + file)[.size] as? Int)
            #expect(size <= 1500 + 400, "\(file): \(size) bytes")
        }
    }

    @Test func aTruncatedTailIsReportedAndTheRestRead() throws {
        let agent = try AgentHarness(arguments: ["--pinentry", "none"])
        try agent.unlock()
        #expect(try agent.latchkey(["add-generic-password", "-s", "tail", "-a", "first", "-w", "x"]).status == 0)
        #expect(try agent.latchkey(["add-generic-password", "-s", "tail", "-a", "second", "-w", "x"]).status == 0)
        #expect(try agent.latchkey(["find-generic-password", "-s", "tail", "-a", "second", "-w"]).status == 0)
        let passphrase = ["LATCHKEY_PASSPHRASE": AgentHarness.passphrase]
        _ = try Self.waitForLog({ try agent.latchkey(["access", "log", "--json"], extra: passphrase) }) {
            $0.contains { $0.event == "read" }
        }
        agent.stop()
        let path = AccessLogFiles(keychainPath: AgentLocation.canonical(agent.keychain.path)).currentPath
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes.removeLast(7)  // a crash in the middle of the last write
        try bytes.write(to: URL(fileURLWithPath: path))
        let cut = try agent.latchkey(["access", "log", "--json"], extra: passphrase)
        #expect(cut.status == 65, "\(cut.stderr)")
        #expect(cut.stderr.contains("damaged: an incomplete record at the end of the file"), "\(cut.stderr)")
        let lines = cut.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains("\"event\":\"write\"") })

        // A changed byte in the first entry is reported as tampered; the others still read.
        let header = 5 + 101
        bytes[bytes.startIndex + header + 20] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let changed = try agent.latchkey(["access", "log"], extra: passphrase)
        #expect(changed.status == 65)
        #expect(changed.stderr.contains("tampered: entry 0"), "\(changed.stderr)")
        #expect(changed.stdout.contains("acct=second"))
        #expect(!changed.stdout.contains("acct=first"))
    }
}
