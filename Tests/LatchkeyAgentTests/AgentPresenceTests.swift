import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// User presence through the agent: an item protected by `kSecAttrAccessControl` is read only after the
/// agent's own prompter (a scripted pinentry) took the keychain passphrase; the client's `.confirmed` is not
/// trusted; `LAContext`'s reuse duration is honoured on the agent's clock; Apple's codes without a prompter
/// (-25308), on cancel (-128) and for a wrong passphrase (-25293); the passphrase is never logged.
struct AgentPresenceTests {
    static let query = ItemQuery(.genericPassword, attributes: [.service: .string("protected")])

    /// An in-process agent (manual clock) with a scripted pinentry, unlocked, holding one protected item
    /// added by `client`.
    final class Setup {
        let keychain = TemporaryKeychain()
        let clock = ManualClock()
        let pinentry: ScriptedPinentry
        let server: AgentServer
        let client: AgentClient

        init(prompter: Bool = true, promptTimeout: TimeInterval = 60) throws {
            _ = try keychain.open()
            pinentry = try ScriptedPinentry(directory: keychain.directory)
            try FileManager.default.createDirectory(
                atPath: keychain.directory + "/run",
                withIntermediateDirectories: true
            )
            server = try AgentServer.start(
                AgentConfiguration(
                    keychainPath: keychain.path,
                    socketPath: keychain.directory + "/run/latchkey/agent.sock",
                    policyPath: keychain.directory + "/access.json",
                    stateDirectory: keychain.directory + "/state",
                    storeOptions: keychain.options(),
                    clock: clock,
                    pinentry: prompter ? pinentry.path : nil,
                    promptTimeout: promptTimeout
                )
            )
            client = try AgentClient.connect(socketPath: server.socketPath)
            _ = try client.perform(.unlock(.passphrase(keychain.passphrase)))
            let control = AccessControlRecord(protection: "ak", flags: AccessControlRecord.userPresence)
            try client.add(
                .genericPassword,
                attributes: [.service: .string("protected"), .accessControl: .data(control.serialized)],
                data: SecretData(string: "the protected secret")
            )
        }

        deinit { server.stop() }

        /// Reads the protected item's secret through the agent.
        func read(
            _ authentication: AuthenticationPolicy = .ask,
            reuse: TimeInterval? = nil
        ) throws(KeychainError) -> SecretData? {
            let request = FindRequest(
                AgentPresenceTests.query,
                withData: true,
                authentication: authentication,
                authenticationReuse: reuse
            )
            return try client.perform(.find(request)).items().first?.data
        }
    }

    static let secret = SecretData(string: "the protected secret")

    @Test func theRightPassphraseReadsTheItemAWrongOneAndACancelDoNot() throws {
        let setup = try Setup()
        let right = "PIN " + (setup.keychain.passphrase.utf8String ?? "")
        setup.pinentry.answer([right, "PIN not the passphrase", "CANCEL"])

        #expect(try setup.read() == Self.secret)
        #expect(setup.pinentry.commands(named: "GETPIN").count == 1)
        let description = try #require(setup.pinentry.commands(named: "SETDESC").first)
        #expect(description.contains("wants to use a protected item"), "\(description)")

        expectKeychainError(.authFailed, "a wrong passphrase") {
            _ = try setup.read(.confirmed)
        }
        #expect(setup.pinentry.commands(named: "GETPIN").count == 2, "a client's .confirmed is not trusted")
        expectKeychainError(.userCanceled, "cancel") { _ = try setup.read() }
        #expect(setup.pinentry.commands(named: "GETPIN").count == 3)

        expectKeychainError(.interactionNotAllowed, "kSecUseAuthenticationUIFail") {
            _ = try setup.read(.fail)
        }
        expectKeychainError(.itemNotFound, "kSecUseAuthenticationUISkip") {
            _ = try setup.read(.skip)
        }
        #expect(setup.pinentry.commands(named: "GETPIN").count == 3, "fail and skip never prompt")
    }

    @Test func aSecondReadWithinTheReuseDurationIsNotPromptedOnTheAgentsClock() throws {
        let setup = try Setup()
        let right = "PIN " + (setup.keychain.passphrase.utf8String ?? "")
        setup.pinentry.answer([right, right])

        #expect(try setup.read(reuse: 60) == Self.secret)
        #expect(setup.pinentry.commands(named: "GETPIN").count == 1)
        setup.clock.advance(by: 59)
        #expect(try setup.read(reuse: 60) == Self.secret)
        #expect(setup.pinentry.commands(named: "GETPIN").count == 1, "within 60 s on the agent's clock: not asked")
        setup.clock.advance(by: 2)
        #expect(try setup.read(reuse: 60) == Self.secret)
        #expect(setup.pinentry.commands(named: "GETPIN").count == 2, "61 s later: asked again")
    }

    @Test func withoutAPrompterAProtectedItemFailsWithInteractionNotAllowed() throws {
        let setup = try Setup(prompter: false)
        expectKeychainError(.interactionNotAllowed, "no prompter") {
            _ = try setup.read()
        }
        expectKeychainError(.interactionNotAllowed, "a claimed confirmation") {
            _ = try setup.read(.confirmed)
        }
        #expect(setup.pinentry.log.isEmpty)
    }

    @Test func aPromptWithoutAnAnswerTimesOutAsACancel() throws {
        // Long enough for the scripted pinentry to start and log GETPIN on a loaded machine (at 0.5 s the agent
        // sometimes gave up before the script had read its first command), short enough to keep the test quick.
        let setup = try Setup(promptTimeout: 3)
        setup.pinentry.answer(["HANG"])
        expectKeychainError(.userCanceled, "no answer") { _ = try setup.read() }
        #expect(setup.pinentry.commands(named: "GETPIN").count == 1)
        #expect(setup.pinentry.commands(named: "SETTIMEOUT") == ["SETTIMEOUT 3"])
    }

    @Test func theCLIReadsAProtectedItemThroughTheAgentsPrompterAndThePassphraseIsNeverLogged() throws {
        let scratch = TemporaryKeychain()
        let pinentry = try ScriptedPinentry(directory: scratch.directory)
        let agent = try AgentHarness(arguments: ["--pinentry", pinentry.path])
        try agent.unlock()
        // This test process writes the protected item into the CLI's group `latchkey`, granted to it.
        let probe = try AgentClient.connect(socketPath: agent.socketPath)
        let granted = try agent.latchkey(["access", "grant", probe.welcome.executable, BuiltExecutable.latchkeyGroup])
        #expect(granted.status == 0, "\(granted.stderr)")
        let writer = try AgentClient.connect(
            socketPath: agent.socketPath,
            accessGroups: [BuiltExecutable.latchkeyGroup]
        )
        let control = AccessControlRecord(protection: "ak", flags: AccessControlRecord.userPresence)
        try writer.add(
            .genericPassword,
            attributes: [.service: .string("protected"), .accessControl: .data(control.serialized)],
            data: Self.secret
        )

        pinentry.answer(["PIN " + AgentHarness.passphrase, "PIN wrong"])
        let read = try agent.latchkey(["find-generic-password", "-s", "protected", "-w"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "the protected secret\n")
        let wrong = try agent.latchkey(["find-generic-password", "-s", "protected", "-w"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("-25293"), "\(wrong.stderr)")
        #expect(pinentry.commands(named: "GETPIN").count == 2)

        let stopped = agent.stop()
        #expect(stopped.stderr.contains("user presence confirmed"), "the agent logs the confirmation")
        #expect(!stopped.stderr.contains(AgentHarness.passphrase), "the passphrase is never logged")
        #expect(!stopped.stderr.contains("the protected secret"))
    }
}
