import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// An item stored with an access-control constraint (user presence): the CLI reads its secret only after
/// the keychain passphrase is typed on the terminal, and refuses at once without a terminal.
struct CLIUserPresenceTests {
    func protectedItem(_ keychain: TemporaryKeychain) throws {
        let control = AccessControlRecord(
            protection: Accessibility.whenUnlocked.rawValue,
            flags: AccessControlRecord.userPresence
        )
        try keychain.open().add(
            .genericPassword,
            attributes: [.service: .string("guarded"), .accessControl: .data(control.serialized)],
            data: SecretData(string: "guarded-value")
        )
    }

    /// Runs `find-generic-password -w` for the protected item on a pseudo-terminal and answers the prompt.
    func readOnATerminal(typing answer: String) throws -> PseudoTerminalSession.Finished {
        let keychain = try CLIRunner.keychain()
        try protectedItem(keychain)
        let session = try PseudoTerminalSession(
            executable: BuiltExecutable.latchkey,
            arguments: ["find-generic-password", "-s", "guarded", "-w"],
            environment: CLIRunner.environment(keychain)
        )
        #expect(session.waitFor("confirm it is you: "))
        session.send(answer + "\n")
        return session.finish()
    }

    @Test func theSecretIsPrintedOnlyAfterThePassphraseIsTyped() throws {
        let finished = try readOnATerminal(typing: "correct horse battery staple")
        #expect(finished.status == 0, "\(finished.transcript)")
        #expect(finished.transcript.contains("guarded-value"))
        #expect(!finished.transcript.contains("correct horse"), "no echo: \(finished.transcript)")
    }

    @Test func aWrongPassphraseReadsNothing() throws {
        let finished = try readOnATerminal(typing: "not the passphrase")
        #expect(finished.status != 0)
        #expect(finished.transcript.contains("-25293"), "\(finished.transcript)")
        #expect(!finished.transcript.contains("guarded-value"))
    }

    @Test func withoutATerminalTheSecretIsRefusedButAttributesAreShown() throws {
        let keychain = try CLIRunner.keychain()
        try protectedItem(keychain)
        let environment = CLIRunner.environment(keychain)
        let refused = try CLIRunner.run(
            "/usr/bin/setsid",
            ["-w", BuiltExecutable.latchkey, "find-generic-password", "-s", "guarded", "-w"],
            environment: environment,
            timeout: 20
        )
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("-25308"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("guarded-value"))
        let attributes = try CLIRunner.latchkey(["find-generic-password", "-s", "guarded"], environment: environment)
        #expect(attributes.status == 0, "attributes need no authentication: \(attributes.stderr)")
    }
}
