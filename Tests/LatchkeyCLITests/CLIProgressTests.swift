import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The progress bar of `export`, `import`, `dump-keychain` and `verify-keychain`: on standard error when it is a
/// terminal (a real pseudo-terminal, opened by python3's `pty`), erased at the end, never on standard output,
/// never in a pipe, never with `--json`.
struct CLIProgressTests {
    /// Runs `latchkey` with standard error on a new pseudo-terminal and standard output in a pipe; returns what
    /// the terminal showed as `stderr`.
    static func onTerminal(_ arguments: [String], environment: [String: String]) throws -> CLIRunner.Result {
        let python = try Peer.require("python3", package: "python3")
        let script = """
            import os, pty, subprocess, sys, threading
            master, slave = pty.openpty()
            child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
            os.close(slave)
            collected = []
            reader = threading.Thread(target=lambda: collected.append(child.stdout.read()))
            reader.start()
            shown = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                shown += chunk
            reader.join()
            out = collected[0]
            status = child.wait()
            sys.stdout.buffer.write(out)
            sys.stderr.buffer.write(shown)
            sys.exit(status)
            """
        return try CLIRunner.run(
            python,
            ["-c", script, BuiltExecutable.latchkey] + arguments,
            environment: environment
        )
    }

    /// A keychain holding `count` generic passwords, filled by importing an archive.
    static func filledKeychain(_ count: Int) throws -> (TemporaryKeychain, [String: String]) {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let items = (0..<count).map { index in
            KeychainArchive.Item(
                itemClass: .genericPassword,
                attributes: [.service: .string("service-\(index)"), .account: .string("user\(index)")],
                data: SecretData(string: "secret-\(index)")
            )
        }
        let archive = keychain.directory + "/fill.archive"
        let sealed = try KeychainArchive(items: items).sealed(passphrase: SecretData(string: "fill"), cost: .testing)
        try sealed.write(to: URL(fileURLWithPath: archive))
        try "fill\n".write(toFile: keychain.directory + "/fill.pass", atomically: true, encoding: .utf8)
        let imported = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-file", keychain.directory + "/fill.pass"],
            environment: environment
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        return (keychain, environment)
    }

    /// The commands with a bar, each with the text its bar starts with.
    static func commands(_ keychain: TemporaryKeychain) throws -> [(arguments: [String], title: String)] {
        let pass = keychain.directory + "/archive.pass"
        try "archive pass\n".write(toFile: pass, atomically: true, encoding: .utf8)
        let archive = keychain.directory + "/out.archive"
        return [
            (["dump-keychain", "-d"], "dump-keychain  ["),
            (["verify-keychain"], "verify-keychain  ["),
            (["export", "-o", archive, "--force", "--passphrase-file", pass, "--kdf-cost", "testing"], "export  ["),
            (["import", archive, "--passphrase-file", pass], "import  ["),
        ]
    }

    @Test func onATerminalTheBarIsOnStandardErrorErasedAtTheEndAndStandardOutputIsUnchanged() throws {
        let (keychain, environment) = try Self.filledKeychain(600)
        for (arguments, title) in try Self.commands(keychain) {
            let piped = try CLIRunner.latchkey(arguments, environment: environment)
            #expect(piped.status == 0, "\(arguments): \(piped.stderr)")
            let shown = try Self.onTerminal(arguments, environment: environment)
            #expect(shown.status == 0, "\(arguments): \(shown.stderr)")
            #expect(shown.stderr.contains(title), "\(arguments) shows its bar: \(shown.stderr.debugDescription)")
            #expect(shown.stderr.hasSuffix("\r\u{1B}[2K"), "the bar is erased last: \(shown.stderr.debugDescription)")
            #expect(!shown.stdout.contains("\u{1B}["), "nothing of the bar on stdout")
            if arguments[0] == "dump-keychain" {
                #expect(shown.stdout == piped.stdout, "the same output with and without the bar")
                #expect(shown.stdout.contains("\"service-599\""))
            }
        }
    }

    @Test func inAPipeOrWithJSONNothingIsShown() throws {
        let (keychain, environment) = try Self.filledKeychain(50)
        for (arguments, _) in try Self.commands(keychain) {
            let piped = try CLIRunner.latchkey(arguments, environment: environment)
            #expect(piped.status == 0, "\(arguments): \(piped.stderr)")
            #expect(piped.stderr.isEmpty, "no bar in a pipe: \(piped.stderr.debugDescription)")
            let json = try Self.onTerminal(arguments + ["--json"], environment: environment)
            #expect(json.status == 0, "\(arguments): \(json.stderr)")
            #expect(
                !json.stderr.contains("["),
                "no bar with --json, even on a terminal: \(json.stderr.debugDescription)"
            )
            #expect(
                (try? JSONSerialization.jsonObject(with: json.stdoutData)) != nil,
                "stdout is JSON alone: \(json.stdout.prefix(200))"
            )
        }
    }
}
