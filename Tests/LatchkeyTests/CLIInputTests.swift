import Foundation
import Latchkey
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

// The pseudo-terminal calls are not in Swift's Glibc module (they need _XOPEN_SOURCE); they are plain C functions.
@_silgen_name("posix_openpt") private func openPseudoTerminal(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname_r") private func pseudoTerminalName(
    _ descriptor: Int32,
    _ buffer: UnsafeMutablePointer<CChar>,
    _ length: Int
) -> Int32

/// A child process whose standard input, output and error are a pseudo-terminal's slave side; the test
/// holds the master side and sees exactly what a person at that terminal would see.
final class PseudoTerminalSession: @unchecked Sendable {
    // SAFETY: used from one test thread only.
    private let master: Int32
    private let process: Process
    private var output = Data()

    struct Finished {
        var status: Int32
        var transcript: String
    }

    init(executable: String, arguments: [String], environment: [String: String]) throws {
        let master = openPseudoTerminal(O_RDWR | O_NOCTTY)
        guard master >= 0, grantPseudoTerminal(master) == 0, unlockPseudoTerminal(master) == 0 else {
            throw POSIXError(.ENOTTY)
        }
        var name = [CChar](repeating: 0, count: 128)
        guard pseudoTerminalName(master, &name, name.count) == 0 else { throw POSIXError(.ENOTTY) }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        self.master = master
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try ProcessLaunch.run(process)
        close(slave)
        self.process = process
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(master)
    }

    /// Reads whatever arrives within `timeout` seconds; returns false at end of output.
    @discardableResult
    private func pump(timeout: TimeInterval) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { return false }
        output.append(contentsOf: buffer[0..<count])
        return true
    }

    /// Waits until the terminal shows `text` (or 30 s pass).
    func waitFor(_ text: String, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if String(decoding: output, as: UTF8.self).contains(text) { return true }
            if !pump(timeout: 0.1) { return String(decoding: output, as: UTF8.self).contains(text) }
        }
        return false
    }

    /// Types `text` at the terminal.
    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads the rest of the output and waits for the child to exit (killing it after `timeout`).
    func finish(timeout: TimeInterval = 30) -> Finished {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if !pump(timeout: 0.1) { break }
            if !process.isRunning {
                while pump(timeout: 0.05) && Date() < deadline {
                    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                    if poll(&descriptor, 1, 50) <= 0 { break }
                }
                break
            }
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return Finished(status: process.terminationStatus, transcript: String(decoding: output, as: UTF8.self))
    }
}
