import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The Secret Service identifies its callers as the agent's socket does (`ApplicationIdentity`): a program
/// named like an interpreter is not one, so a copy of `secret-tool` saved as `sh` beside a link named like its
/// first argument is its own application, not the program the link points to. Real `secret-tool` on a private
/// bus against the real agent.
struct SecretServiceIdentityTests {
    @Test func aCopyOfSecretToolNamedShIsAskedLikeAnyOtherApplication() throws {
        let shell = try Peer.require("/bin/sh", package: "dash")
        let harness = try SecretServiceHarness()
        let stored = try harness.secretTool(
            ["store", "--label", "Owned", "service", "identity.example", "username", "alice"],
            input: "owner-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")

        // `./sh lookup ...` with `lookup` a link to the real secret-tool: read by file name, `sh` would be an
        // interpreter running "the script" `lookup`, which resolves to secret-tool itself.
        let directory = AgentLocation.canonical(harness.keychain.directory) + "/fake"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: harness.secretToolPath, toPath: directory + "/sh")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/lookup",
            withDestinationPath: AgentLocation.canonical(harness.secretToolPath)
        )
        #expect(SystemInterpreter.family(of: directory + "/sh") == nil)
        harness.pinentry.answer(["CANCEL"])
        let attempt = try harness.run(
            shell,
            ["-c", "cd \"$1\" && exec ./sh lookup service identity.example username alice", "sh", directory]
        )
        #expect(attempt.stdout.isEmpty, "the fake interpreter read the owner's secret: \(attempt.stdout)")
        let questions = harness.pinentry.commands(named: "SETDESC")
        #expect(!questions.isEmpty, "the copy is asked, as another application")
        #expect(questions.first?.contains(directory + "/sh") == true, "\(questions)")

        // The owner itself still reads without a question.
        #expect(
            try harness.secretTool(["lookup", "service", "identity.example", "username", "alice"]).stdout
                == "owner-secret"
        )
        #expect(harness.pinentry.commands(named: "SETDESC").count == questions.count, "the owner is not asked")
    }
}
