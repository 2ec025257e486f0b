import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// What a program of the same user can still do against the agent's confinement (docs/threat-model.md,
/// "Attacker 4"), each shown with real processes so that the documented limit stays true: these tests pass
/// while the limit holds, and tell us when a change closes one (then the docs must change too).
struct AgentLimitsTests {
    /// Connect-then-exec: a process connects, then a forked child keeps the connection while the process
    /// replaces itself with a granted program. The kernel's peer credentials name the process that connected,
    /// so the agent sees the granted program.
    @Test func aConnectionMadeBeforeExecIsSeenAsTheProgramExecuted() throws {
        let python = try Peer.require("/usr/bin/python3", package: "python3")
        let agent = try AgentHarness()
        try agent.unlock()
        let granted = AgentLocation.canonical(BuiltExecutable.latchkey)
        let script = """
            import json, os, socket, struct, sys
            \(PythonAgentHello.function)
            granted, path = sys.argv[1], sys.argv[2]
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            r, w = os.pipe()
            if os.fork() == 0:
                os.close(r)
                parent = os.getppid()
                while os.path.realpath("/proc/%d/exe" % parent) != granted:
                    pass
                sys.stdout.write(hello(s) + "\\n")
                sys.stdout.flush()
                os._exit(0)
            s.close()
            os.close(w)
            os.dup2(r, 0)
            os.execv(granted, [granted, "git-credential", "get"])

            """
        let file = agent.keychain.directory + "/connect-then-exec.py"
        try Data(script.utf8).write(to: URL(fileURLWithPath: file))
        let result = try agent.run(python, [file, granted, agent.socketPath])
        let line = try #require(result.stdout.split(separator: "\n").first, "\(result.stderr)")
        let reply = try AgentHandshake.decode(AgentHandshake.Reply.self, from: Data(line.utf8))
        let welcome = try #require(reply.welcome)
        #expect(welcome.executable == granted, "the limit: the connection is latchkey's to the agent")
    }

    /// `LD_PRELOAD`: code injected into a program at start runs inside it, and the agent answers that program
    /// (the identity is the executable, not the libraries the loader adds).
    @Test func codePreloadedIntoAProgramRunsWhereItsSecretsArrive() throws {
        let compiler = try Peer.require("gcc", package: "gcc")
        let agent = try AgentHarness()
        try agent.unlock()
        #expect(
            try agent.latchkey(["add-generic-password", "-s", "svc", "-a", "a", "-w", "preload-secret"]).status == 0
        )
        let source = agent.keychain.directory + "/inject.c"
        let library = agent.keychain.directory + "/inject.so"
        let mark = agent.keychain.directory + "/injected"
        let code = """
            #include <stdio.h>
            #include <stdlib.h>
            __attribute__((constructor)) static void injected(void) {
                const char *path = getenv("INJECTED_MARK");
                FILE *file = path ? fopen(path, "w") : NULL;
                if (file) { fputs("injected\\n", file); fclose(file); }
            }

            """
        try Data(code.utf8).write(to: URL(fileURLWithPath: source))
        let built = try agent.run(compiler, ["-shared", "-fPIC", "-o", library, source])
        try #require(built.status == 0, "\(built.stderr)")
        let found = try agent.latchkey(
            ["find-generic-password", "-s", "svc", "-a", "a", "-w"],
            extra: ["LD_PRELOAD": library, "INJECTED_MARK": mark]
        )
        #expect(found.stdout == "preload-secret\n", "\(found.stderr)")
        #expect(FileManager.default.fileExists(atPath: mark), "the limit: the injected code ran in that process")
    }
}
