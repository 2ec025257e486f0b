import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The identity of a client run by an interpreter is its script: from the interpreter's arguments (its
/// options skipped), resolved against its working directory, absolute and symlink-free; inline code and
/// standard input leave the interpreter as the identity. Proven on argument vectors, on a real `python3`
/// process, and end to end with a Python client of a real agent.
struct AgentScriptIdentityTests {
    /// A directory with `script.py`, `run.sh` and a symbolic link `link.py` to `script.py`.
    final class Scripts {
        let keychain = TemporaryKeychain()
        var directory: String { AgentLocation.canonical(keychain.directory) }
        var script: String { directory + "/script.py" }

        init() throws {
            for name in ["script.py", "run.sh"] {
                _ = FileManager.default.createFile(atPath: keychain.directory + "/" + name, contents: Data("#\n".utf8))
            }
            try FileManager.default.createSymbolicLink(
                atPath: keychain.directory + "/link.py",
                withDestinationPath: keychain.directory + "/script.py"
            )
        }
    }

    @Test(
        arguments: [
            ("/usr/bin/python3.11", ["python3", "script.py", "-c", "x"], "script.py"),
            ("/usr/bin/python3", ["python3", "-u", "-W", "ignore", "-X", "dev", "script.py"], "script.py"),
            ("/usr/bin/python3", ["python3", "-Wignore", "-B", "--", "script.py"], "script.py"),
            ("/usr/bin/python3", ["/usr/bin/python3", "link.py"], "script.py"),
            ("/usr/bin/python3", ["python3", "-c", "print(1)", "script.py"], nil),
            ("/usr/bin/python3", ["python3", "-m", "http.server"], nil),
            ("/usr/bin/python3", ["python3", "-"], nil),
            ("/usr/bin/python3", ["python3"], nil),
            ("/usr/bin/python3", ["python3", "missing.py"], nil),
            ("/usr/bin/bash", ["bash", "-e", "-o", "pipefail", "run.sh"], "run.sh"),
            ("/usr/bin/dash", ["sh", "-c", "echo run.sh"], nil),
            ("/usr/bin/bash", ["bash", "-s", "run.sh"], nil),
            ("/usr/bin/perl", ["perl", "-w", "script.py"], "script.py"),
            ("/usr/bin/perl", ["perl", "-e", "print 1", "script.py"], nil),
            ("/usr/bin/ruby3.1", ["ruby", "-I", "lib", "script.py"], "script.py"),
            ("/usr/bin/node", ["node", "--require", "x", "script.py"], "script.py"),
            ("/usr/bin/node", ["node", "-e", "1"], nil),
            ("/usr/local/bin/tool", ["tool", "script.py"], nil),
        ] as [(String, [String], String?)]
    )
    func theScriptIsFoundAfterTheInterpretersOptions(executable: String, arguments: [String], expected: String?) throws
    {
        let scripts = try Scripts()
        // The family by name: whether `executable` is installed here is `SystemInterpreter.family(of:)`'s
        // question (AgentIdentityTests).
        let found = SystemInterpreter.family(named: (executable as NSString).lastPathComponent).flatMap {
            ScriptIdentity.script(arguments: arguments, family: $0, workingDirectory: scripts.keychain.directory)
        }
        #expect(found == expected.map { scripts.directory + "/" + $0 })
    }

    @Test func aRunningPythonProcessIsIdentifiedByItsScriptResolvedAgainstItsWorkingDirectory() throws {
        let python = try Peer.require("/usr/bin/python3", package: "python3")
        let shell = try Peer.require("sh", package: "dash")
        let scripts = try Scripts()
        let waiting = "import signal\nprint('ready', flush=True)\nsignal.pause()\n"
        try Data(waiting.utf8).write(to: URL(fileURLWithPath: scripts.script))
        let process = try BuiltExecutable.spawn(
            ["-c", "cd \"$1\" && exec \"$2\" -u ./link.py", "sh", scripts.keychain.directory, python],
            environment: ProcessInfo.processInfo.environment,
            executable: shell
        )
        defer {
            process.kill(SIGKILL)
            _ = process.waitForExit(timeout: 60)
        }
        #expect(process.waitForLines(1, timeout: 60))
        let executable = try #require(PeerIdentity.executable(of: process.pid))
        #expect(ScriptIdentity.isInterpreter(executable), "\(executable)")
        #expect(ScriptIdentity.script(ofProcess: process.pid, executable: executable) == scripts.script)

        let inline = try BuiltExecutable.spawn(["-c", waiting], environment: [:], executable: python)
        defer {
            inline.kill(SIGKILL)
            _ = inline.waitForExit(timeout: 60)
        }
        #expect(inline.waitForLines(1, timeout: 60))
        let inlineExecutable = try #require(PeerIdentity.executable(of: inline.pid))
        #expect(ScriptIdentity.script(ofProcess: inline.pid, executable: inlineExecutable) == nil, "python3 -c")
    }

    @Test func aPythonClientGetsItsScriptsIdentityAndGroupsFromTheAgent() throws {
        let python = try Peer.require("/usr/bin/python3", package: "python3")
        let agent = try AgentHarness(arguments: ["--pinentry", "none"])
        let client = """
            import json, os, socket, struct, sys
            groups = json.loads(sys.argv[1]) if len(sys.argv) > 1 else None
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(os.environ["XDG_RUNTIME_DIR"] + "/latchkey/agent.sock")
            hello = json.dumps({"version": \(AgentHandshake.version), "accessGroups": groups}).encode()
            s.sendall(struct.pack(">I", len(hello)) + hello)
            def exact(n):
                data = b""
                while len(data) < n:
                    chunk = s.recv(n - len(data))
                    if not chunk:
                        raise SystemExit("closed")
                    data += chunk
                return data
            (length,) = struct.unpack(">I", exact(4))
            print(exact(length).decode())

            """
        let script = AgentLocation.canonical(agent.keychain.directory) + "/client.py"
        try Data(client.utf8).write(to: URL(fileURLWithPath: script))
        // The interpreter as the kernel names it (`python3` on PATH may be a shim, such as pyenv's, that
        // executes the real one).
        let real = try agent.run(python, ["-c", "import os; print(os.path.realpath('/proc/self/exe'))"])
        let interpreter = real.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        func hello(_ arguments: [String]) throws -> AgentHandshake.Reply {
            let result = try agent.run(python, arguments)
            #expect(result.status == 0, "\(result.stderr)")
            return try AgentHandshake.decode(AgentHandshake.Reply.self, from: Data(result.stdout.utf8))
        }

        let welcome = try #require(try hello([script]).welcome)
        #expect(welcome.executable == script, "the script is the identity")
        #expect(welcome.interpreter == interpreter)
        #expect(welcome.accessGroups == [script], "its default group is its path")

        let inline = try #require(try hello(["-c", client]).welcome)
        #expect(inline.executable == interpreter, "python3 -c has no script: the interpreter is the identity")
        #expect(inline.interpreter == nil)

        let refused = try hello([script, "[\"com.example.shared\"]"])
        #expect(refused.code == KeychainError.Code.missingEntitlement.rawValue)
        #expect(try agent.latchkey(["access", "grant", script, "com.example.shared"]).status == 0)
        let granted = try #require(try hello([script, "[\"com.example.shared\"]"]).welcome)
        #expect(granted.accessGroups == ["com.example.shared"], "a grant to the script's path applies")
        let other = try #require(try hello(["-c", client, "[]"]).welcome)
        #expect(!other.accessGroups.contains("com.example.shared"), "not to the interpreter")
    }
}
