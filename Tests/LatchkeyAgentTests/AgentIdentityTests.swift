import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// An application is its executable's resolved path (or a system interpreter's script), decided from the
/// running image (docs/agent.md, "Identity and access groups"). Each test is an attack a hostile program of
/// the same user made on the name-based identity, driven with real processes against a real agent: a copy
/// or a script with the same file name, a grant pinned to a file that was swapped back after the process
/// started, programs named like interpreters, and the dynamic loader.
struct AgentIdentityTests {
    /// A directory inside the harness's temporary directory, made if missing, absolute and symlink-free.
    private static func directory(_ name: String, in agent: AgentHarness) throws -> String {
        let path = agent.keychain.directory + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return AgentLocation.canonical(path)
    }

    /// Copies `source` to `path` (mode 0755), with `extra` bytes appended (another file content, still runnable).
    private static func copy(_ source: String, to path: String, appending extra: String = "") throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        bytes.append(Data(extra.utf8))
        try bytes.write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    /// Unlocks the agent and makes `apps/deploy`, a copy of `latchkey` granted `com.example.ci` pinned to its
    /// content; returns the directory and the program.
    private static func pinnedProgram(in agent: AgentHarness) throws -> (directory: String, program: String) {
        try agent.unlock()
        let directory = try Self.directory("apps", in: agent)
        let granted = directory + "/deploy"
        try Self.copy(BuiltExecutable.latchkey, to: granted)
        let pinned = try agent.latchkey(["access", "grant", "--pin-content", granted, "com.example.ci"])
        #expect(pinned.status == 0, "\(pinned.stderr)")
        return (directory, granted)
    }

    @Test func aCopyOrAScriptWithTheSameFileNameIsAnotherApplication() throws {
        let python = try Peer.require("/usr/bin/python3", package: "python3")
        let agent = try AgentHarness()
        try agent.unlock()
        #expect(try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "a", "-w", "real-secret"]).status == 0)
        #expect(try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "a", "-w"]).stdout == "real-secret\n")

        // A copy of `latchkey` in another directory: same file name, another application.
        let copy = try Self.directory("elsewhere", in: agent) + "/latchkey"
        try Self.copy(BuiltExecutable.latchkey, to: copy)
        let stolen = try agent.run(copy, ["find-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(stolen.status == 44, "the copy does not see the real latchkey's item: \(stolen.stdout)")
        #expect(!stolen.stdout.contains("real-secret"))
        let own = try agent.run(copy, ["add-generic-password", "-s", "svc", "-a", "b", "-w", "copy-secret"])
        #expect(own.status == 0, "\(own.stderr)")
        let attributes = try agent.run(copy, ["find-generic-password", "-s", "svc", "-a", "b"])
        #expect(
            attributes.stdout.contains("\"agrp\"=<blob>=\"\(copy)\""),
            "its group is its path: \(attributes.stdout)"
        )

        // A Python script saved as `latchkey`: the system interpreter runs it, its path is the identity.
        let scripted = try Self.directory("script", in: agent) + "/latchkey"
        let client = """
            #!\(python)
            import json, os, socket, struct
            \(PythonAgentHello.function)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(os.environ["XDG_RUNTIME_DIR"] + "/latchkey/agent.sock")
            print(hello(s))

            """
        try Data(client.utf8).write(to: URL(fileURLWithPath: scripted))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scripted)
        let answered = try agent.run(scripted, [])
        #expect(answered.status == 0, "\(answered.stderr)")
        let reply = try AgentHandshake.decode(AgentHandshake.Reply.self, from: Data(answered.stdout.utf8))
        let welcome = try #require(reply.welcome, "\(answered.stdout)")
        #expect(welcome.executable == scripted)
        #expect(welcome.accessGroups == [scripted], "not the real latchkey's group")
        #expect(welcome.interpreter != nil)
    }

    @Test func aPinnedGrantIsNotGivenToAProcessWhoseExecutableWasSwappedAfterItStarted() throws {
        let shell = try Peer.require("sh", package: "dash")
        let agent = try AgentHarness()
        let (directory, granted) = try Self.pinnedProgram(in: agent)
        let credential = "protocol=https\nhost=git.example.com\nusername=ci\npassword=pinned-secret\n\n"
        let stored = try agent.run(
            granted,
            ["git-credential", "store"],
            extra: ["LATCHKEY_ACCESS_GROUPS": "com.example.ci"],
            input: credential
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let query = "protocol=https\nhost=git.example.com\n\n"
        let genuine = try agent.run(granted, ["git-credential", "get"], input: query)
        #expect(genuine.stdout.contains("password=pinned-secret"), "the pinned program itself: \(genuine.stderr)")

        // Another program at the granted path starts and waits on its standard input (a FIFO)...
        let saved = directory + "/deploy.saved"
        #expect(rename(granted, saved) == 0)
        try Self.copy(BuiltExecutable.latchkey, to: granted, appending: "another program")
        let fifo = directory + "/input"
        #expect(mkfifo(fifo, 0o600) == 0)
        let impostor = try BuiltExecutable.spawn(
            ["-c", "exec \"$1\" git-credential get < \"$2\"", "sh", granted, fifo],
            environment: agent.environment,
            executable: shell
        )
        defer {
            impostor.kill(SIGKILL)
            _ = impostor.waitForExit(timeout: 60)
        }
        let writer = open(fifo, O_WRONLY)  // returns once the shell opened it for the impostor
        #expect(writer >= 0)
        let deadline = Date(timeIntervalSinceNow: 30)
        while PeerIdentity.executable(of: impostor.pid) != granted, Date() < deadline { sched_yield() }
        #expect(PeerIdentity.executable(of: impostor.pid) == granted, "the impostor runs from the granted path")

        // ...then its file is removed and the granted file renamed back before it connects.
        #expect(unlink(granted) == 0)
        #expect(rename(saved, granted) == 0)
        _ = query.withCString { write(writer, $0, strlen($0)) }
        close(writer)
        let finished = impostor.waitForExit(timeout: 60)
        #expect(!finished.stdout.contains("pinned-secret"), "the impostor got the pinned grant: \(finished.stdout)")
        #expect(finished.stderr.contains("deleted or replaced"), "\(finished.stderr)")

        // The granted program, back at its path, still holds its grant.
        let again = try agent.run(granted, ["git-credential", "get"], input: query)
        #expect(again.stdout.contains("password=pinned-secret"), "\(again.stderr)")
    }

    @Test func aProgramNamedLikeAnInterpreterIsNotOne() throws {
        let shell = try Peer.require("sh", package: "dash")
        let agent = try AgentHarness()
        let (_, granted) = try Self.pinnedProgram(in: agent)
        let stored = try agent.run(
            granted,
            ["add-generic-password", "-s", "ci", "-a", "deploy", "-w", "ci-secret"],
            extra: ["LATCHKEY_ACCESS_GROUPS": "com.example.ci"]
        )
        #expect(stored.status == 0, "\(stored.stderr)")

        // The same bytes saved as `python3` beside a link named like its first argument to the granted file:
        // by name, it would be an interpreter running "the script" `deploy`.
        let fake = try Self.directory("fake", in: agent)
        try Self.copy(BuiltExecutable.latchkey, to: fake + "/python3")
        try FileManager.default.createSymbolicLink(
            atPath: fake + "/find-generic-password",
            withDestinationPath: granted
        )
        #expect(SystemInterpreter.family(of: fake + "/python3") == nil)
        let attempt = try agent.run(
            shell,
            ["-c", "cd \"$1\" && exec ./python3 find-generic-password -s ci -a deploy -w", "sh", fake]
        )
        #expect(!attempt.stdout.contains("ci-secret"), "a fake interpreter took the pinned grant")
        #expect(attempt.status == 44, "\(attempt.stderr)")

        // The system's own interpreters are still interpreters.
        let python = try Peer.require("/usr/bin/python3", package: "python3")
        let real = try agent.run(python, ["-c", "import os; print(os.path.realpath('/proc/self/exe'))"])
        #expect(SystemInterpreter.family(of: real.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == .python)
        #expect(SystemInterpreter.family(of: AgentLocation.canonical(shell)) == .shell)
    }

    @Test func aProgramStartedThroughTheDynamicLoaderIsRefused() throws {
        let loader = "/lib64/ld-linux-x86-64.so.2"
        try #require(FileManager.default.fileExists(atPath: loader), "the x86-64 dynamic loader")
        let agent = try AgentHarness()
        try agent.unlock()
        #expect(
            try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "a", "-w", "loader-secret"]).status == 0
        )
        let loaded = try agent.run(loader, [BuiltExecutable.latchkey, "find-generic-password", "-s", "svc", "-w"])
        #expect(!loaded.stdout.contains("loader-secret"))
        #expect(loaded.status != 0)
        #expect(loaded.stderr.contains("dynamic loader"), "\(loaded.stderr)")
        #expect(loaded.stderr.contains("-34018"), "\(loaded.stderr)")
    }

    @Test func itemsOfTheNameBasedGroupStayWithTheFirstProgramThatClaimsThem() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        // Items stored by an earlier version: in the group named after the executable's file name.
        let legacy = ["LATCHKEY_AGENT": "off", "LATCHKEY_PASSPHRASE": AgentHarness.passphrase]
        let old = try agent.latchkey(
            ["add-generic-password", "-s", "svc", "-a", "old", "-w", "legacy-secret"],
            extra: legacy.merging(["LATCHKEY_ACCESS_GROUPS": "latchkey"]) { _, new in new }
        )
        #expect(old.status == 0, "\(old.stderr)")

        // The real latchkey connects first and adopts the group; the adoption is in the policy.
        let found = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "old", "-w"])
        #expect(found.stdout == "legacy-secret\n", "\(found.stderr)")
        let policy = try String(
            contentsOfFile: agent.keychain.directory + "/config/latchkey/access.json",
            encoding: .utf8
        )
        #expect(policy.contains("\"latchkey\" : \"\(AgentLocation.canonical(BuiltExecutable.latchkey))\""), "\(policy)")
        let listed = try agent.latchkey(["access", "list"])
        #expect(listed.stdout == "\(AgentLocation.canonical(BuiltExecutable.latchkey)): latchkey [adopted]\n")

        // A same-named copy elsewhere does not get it.
        let copy = try Self.directory("elsewhere", in: agent) + "/latchkey"
        try Self.copy(BuiltExecutable.latchkey, to: copy)
        #expect(try agent.run(copy, ["find-generic-password", "-s", "svc", "-a", "old", "-w"]).status == 44)
        // In process, where a program chooses its own groups, the old group stays readable too.
        let inProcess = try agent.latchkey(["find-generic-password", "-s", "svc", "-a", "old", "-w"], extra: legacy)
        #expect(inProcess.stdout == "legacy-secret\n", "\(inProcess.stderr)")
    }
}
