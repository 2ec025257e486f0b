import Foundation
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import LatchkeySecretService

/// The agent offers the import of gnome-keyring's keyrings at an unlock by passphrase (the login password at
/// the first login), as oo7 does: keyrings written by the real gnome-keyring-daemon (a peer).
@Suite("Agent: gnome-keyring's keyrings imported at the first unlock")
struct GnomeKeyringFirstUnlockTests {
    static let password = "the login password"

    @Test("the first unlock with the login password imports the login keyring; the next unlocks import nothing")
    func theFirstUnlockImportsTheLoginKeyring() throws {
        let peer = try GnomeKeyringPeer(password: Self.password)
        for (service, secret) in [("mail.example", "m-secret"), ("chat.example", "c-secret")] {
            let stored = try peer.secretTool(
                ["store", "--label", "L \(service)", "service", service, "username", "alice"],
                input: secret
            )
            try #require(stored.status == 0, "\(stored.stderr)")
        }
        peer.stop()
        let originals = try peer.hashes()

        let harness = try SecretServiceHarness(
            unlock: false,
            agentArguments: ["--kdf-cost", "testing"],
            keychainExists: false,
            beforeAgent: { environment in
                let data = try #require(environment["XDG_DATA_HOME"])
                try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: peer.keyrings, toPath: data + "/keyrings")
            }
        )
        let unlocked = try harness.latchkey(["unlock", "--passphrase-stdin"], input: Self.password)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(
            harness.agent.waitForStandardError(containing: "agent: imported 2 items", timeout: 120),
            "the agent did not import gnome-keyring's login keyring"
        )
        // Imported items belong to the user, as gnome-keyring's did to the session: a confined secret-tool
        // reads them once granted the user's group.
        let userGroup = SecretServiceApplications.group(ofOwner: SecretCollections.userOwner)
        let granted = try harness.latchkey(["access", "grant", harness.secretToolPath, userGroup])
        try #require(granted.status == 0, "\(granted.stderr)")
        let mail = try harness.secretTool(["lookup", "service", "mail.example", "username", "alice"])
        #expect(mail.stdout == "m-secret", "\(mail.stderr)")
        let chat = try harness.secretTool(["lookup", "service", "chat.example", "username", "alice"])
        #expect(chat.stdout == "c-secret", "\(chat.stderr)")

        // The next unlock finds the marker: nothing is imported twice.
        #expect(try harness.latchkey(["lock"]).status == 0)
        let again = try harness.latchkey(["unlock", "--passphrase-stdin"], input: Self.password)
        #expect(again.status == 0, "\(again.stderr)")
        let found = try harness.secretTool(["search", "--all", "username", "alice"])
        #expect(found.stdout.components(separatedBy: "secret = ").count - 1 == 2, "\(found.stdout)")
        #expect(try peer.hashes() == originals, "gnome-keyring's files must stay as they were")
    }
}
