import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// How secrets reach the CLI: standard input, no-echo prompts on a pseudo-terminal, and fast, clear failures
/// when there is no terminal and no input source.
struct CLIInputTests {
    // MARK: No terminal

    @Test func wAloneWithoutATerminalFailsAtOnce() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        for arguments in [
            ["add-generic-password", "-s", "svc", "-a", "a", "-w"],
            ["add-generic-password", "-s", "svc", "-w", "-a", "a"],
            ["add-internet-password", "-s", "host", "-a", "a", "-w"],
        ] {
            let result = try CLIRunner.latchkey(arguments, environment: environment, timeout: 20)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("-25308"), "\(result.stderr)")
            #expect(result.stderr.contains("--password-stdin"), "the message says what to do: \(result.stderr)")
            #expect(!result.timedOut, "it fails at once instead of waiting for input")
        }
        #expect(throws: KeychainError.self) {
            try keychain.open().findOne(ItemQuery(.genericPassword, attributes: [.service: .string("svc")]))
        }
    }

    @Test func passwordStdinWorksForInternetPasswordsAndKeepsInnerNewlines() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let added = try CLIRunner.latchkey(
            ["add-internet-password", "-s", "host", "-a", "a", "--password-stdin"],
            environment: environment,
            input: "line one\nline two\n"
        )
        #expect(added.status == 0, "\(added.stderr)")
        let item = try keychain.open().findOne(ItemQuery(.internetPassword), withData: true)
        #expect(item.data == SecretData(string: "line one\nline two"))
    }

    @Test func explicitPasswordValueIsAcceptedWhenTheUserInsists() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-w", "-dash-leading", "-a", "x"],
            environment: environment
        )
        #expect(added.status != 0, "a value that looks like an option is not taken as the password")
        let plain = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-w", "on the command line", "-a", "x"],
            environment: environment
        )
        #expect(plain.status == 0, "\(plain.stderr)")
        let found = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-w"], environment: environment)
        #expect(found.stdout == "on the command line\n")
    }

    @Test func passwordGivenTwoWaysIsAUsageError() throws {
        let keychain = try CLIRunner.keychain()
        let result = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-w", "x", "--password-stdin"],
            environment: CLIRunner.environment(keychain),
            input: "y"
        )
        #expect(result.status == 64)
    }

    @Test func archivePassphraseWithoutTerminalOrSourceFailsAtOnce() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let archive = keychain.directory + "/backup.lkar"
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--kdf-cost", "testing"],
            environment: environment,
            timeout: 20
        )
        #expect(exported.status == 1)
        #expect(
            exported.stderr.contains("-25308") && exported.stderr.contains("--passphrase-stdin"),
            "\(exported.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: archive))
        let imported = try CLIRunner.latchkey(["import", archive], environment: environment, timeout: 20)
        #expect(imported.status == 1)
    }

    @Test func gitHelperWithLockedKeychainAndNoTerminalFailsAtOnce() throws {
        let keychain = try CLIRunner.keychain()
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        environment["GIT_TERMINAL_PROMPT"] = nil
        // setsid: a new session has no controlling terminal, so /dev/tty cannot be opened.
        let result = try CLIRunner.run(
            "/usr/bin/setsid",
            ["-w", BuiltExecutable.latchkey, "git-credential", "get"],
            environment: environment,
            input: Data("protocol=https\nhost=example.com\n\n".utf8),
            timeout: 20
        )
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("-25308"), "\(result.stderr)")
        #expect(!result.timedOut, "it fails at once instead of waiting for input")
    }

    // MARK: Pseudo-terminal

    @Test func pseudoTerminalDriverSeesEchoWhenItIsOn() throws {
        let session = try PseudoTerminalSession(
            executable: "/bin/sh",
            arguments: ["-c", "printf 'ready> '; read answer; echo done"],
            environment: [:]
        )
        #expect(session.waitFor("ready> "))
        session.send("visible-input\n")
        let finished = session.finish()
        #expect(
            finished.transcript.contains("visible-input"),
            "a terminal with echo on shows what is typed: \(finished.transcript)"
        )
    }

    @Test func wAlonePromptsTwiceWithoutEchoOnATerminal() throws {
        let keychain = try CLIRunner.keychain()
        let session = try PseudoTerminalSession(
            executable: BuiltExecutable.latchkey,
            arguments: ["add-generic-password", "-s", "tty", "-a", "alice", "-w"],
            environment: CLIRunner.environment(keychain)
        )
        #expect(session.waitFor("password data for new item: "))
        session.send("typed-secret-1\n")
        #expect(session.waitFor("retype password for new item: "))
        session.send("typed-secret-1\n")
        let finished = session.finish()
        #expect(finished.status == 0, "\(finished.transcript)")
        #expect(
            !finished.transcript.contains("typed-secret-1"),
            "the secret must not be echoed: \(finished.transcript)"
        )
        let item = try keychain.open().findOne(
            ItemQuery(.genericPassword, attributes: [.service: .string("tty")]),
            withData: true
        )
        #expect(item.data == SecretData(string: "typed-secret-1"))
    }

    @Test func mismatchedRetypeIsRejected() throws {
        let keychain = try CLIRunner.keychain()
        let session = try PseudoTerminalSession(
            executable: BuiltExecutable.latchkey,
            arguments: ["add-generic-password", "-s", "tty", "-a", "bob", "-w"],
            environment: CLIRunner.environment(keychain)
        )
        #expect(session.waitFor("password data for new item: "))
        session.send("one\n")
        #expect(session.waitFor("retype password for new item: "))
        session.send("two\n")
        let finished = session.finish()
        #expect(finished.status == 1)
        #expect(finished.transcript.contains("-50"))
    }

    @Test func lockedKeychainPromptsForThePassphraseWithoutEcho() throws {
        let keychain = try CLIRunner.keychain()
        try keychain.open().add(
            .genericPassword,
            attributes: [.service: .string("svc")],
            data: SecretData(string: "stored-value")
        )
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        let session = try PseudoTerminalSession(
            executable: BuiltExecutable.latchkey,
            arguments: ["find-generic-password", "-s", "svc", "-w"],
            environment: environment
        )
        #expect(session.waitFor("Passphrase for \(keychain.path): "))
        session.send("correct horse battery staple\n")
        let finished = session.finish()
        #expect(finished.status == 0, "\(finished.transcript)")
        #expect(finished.transcript.contains("stored-value"))
        #expect(
            !finished.transcript.contains("correct horse"),
            "the passphrase must not be echoed: \(finished.transcript)"
        )
    }
}
