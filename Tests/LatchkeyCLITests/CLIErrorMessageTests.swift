import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Errors say what happened in the user's terms and the next step, and keep the OSStatus code for scripts;
/// Apple's text for a code comes first only where it names the cause (docs/cli.md, "Errors and exit status").
/// Each case is one a new user hit, run against the built binary.
struct CLIErrorMessageTests {
    /// Apple's texts that name the wrong cause in the cases below.
    private static let misleading = [
        "You may need to restart your computer", "The specified item already exists in the keychain",
    ]

    private static func firstLine(_ text: String) -> String {
        text.split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test func exportOntoAnExistingFileSaysSoFirst() throws {
        let keychain = TemporaryKeychain()
        let environment = CLIRunner.environment(keychain)
        #expect(
            try CLIRunner.latchkey(["add-generic-password", "-s", "s", "-a", "a", "-w", "p"], environment: environment)
                .status == 0
        )
        let archive = keychain.directory + "/out.archive"
        FileManager.default.createFile(atPath: archive, contents: Data("keep".utf8))
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive],
            environment: environment.merging(["LATCHKEY_EXPORT_PASSPHRASE": "archive pass"]) { _, new in new }
        )
        #expect(exported.status != 0)
        let first = Self.firstLine(exported.stderr)
        #expect(first.contains("already exists") && first.contains("--force"), "\(exported.stderr)")
        #expect(first.contains("(OSStatus -25299)"), "the code stays for scripts: \(exported.stderr)")
        #expect(!Self.misleading.contains { exported.stderr.contains($0) }, "\(exported.stderr)")
        #expect(try String(contentsOfFile: archive, encoding: .utf8) == "keep", "nothing is lost")
    }

    @Test func unlockWithoutAnAgentNamesTheMissingAgentNotARestart() throws {
        let keychain = TemporaryKeychain()
        var environment = CLIRunner.environment(keychain)
        let runtime = keychain.directory + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        environment["XDG_RUNTIME_DIR"] = runtime
        let unlocked = try CLIRunner.latchkey(["unlock", "--passphrase-stdin"], environment: environment, input: "x")
        #expect(unlocked.status != 0)
        #expect(Self.firstLine(unlocked.stderr).contains("No agent answers"), "\(unlocked.stderr)")
        #expect(unlocked.stderr.contains("-25291"))
        #expect(!Self.misleading.contains { unlocked.stderr.contains($0) }, "\(unlocked.stderr)")
    }

    @Test func aDirectoryGivenAsTheKeychainIsNamedAsSuch() throws {
        let keychain = TemporaryKeychain()
        let environment = CLIRunner.environment(keychain)
        let directory = keychain.directory + "/kc.keychain-db"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let found = try CLIRunner.latchkey(
            ["find-generic-password", "-k", directory, "-s", "s"],
            environment: environment
        )
        #expect(found.status != 0)
        #expect(found.stderr.contains("is a directory, not a keychain file"), "\(found.stderr)")
        #expect(!found.stderr.contains("chmod"), "a directory is not a permissions problem: \(found.stderr)")
    }

    @Test func aLockedKeychainNamesLatchkeyUnlock() throws {
        let agent = try AgentHarness()
        try agent.unlock()
        #expect(try agent.latchkey(["add-generic-password", "-s", "s", "-a", "a", "-w", "p"]).status == 0)
        #expect(try agent.latchkey(["lock"]).status == 0)
        let found = try agent.latchkey(["find-generic-password", "-s", "s", "-a", "a", "-w"])
        #expect(found.status != 0)
        #expect(found.stderr.contains("-25308"), "\(found.stderr)")
        #expect(found.stderr.contains("latchkey unlock"), "the next step is named: \(found.stderr)")
        #expect(!found.stderr.contains("neverUnlocked"))
        let info = try agent.latchkey(["show-keychain-info"])
        #expect(info.stdout.hasPrefix("Keychain \"") && info.stdout.contains("\" locked\n"), "\(info.stdout)")
    }

    @Test func aMissingEntitlementNamesTheGroupsAndTheCommandsThatGrantThem() throws {
        let agent = try AgentHarness(arguments: ["--pinentry", "none"])
        try agent.unlock()
        let refused = try agent.latchkey(
            ["find-generic-password", "-s", "s"],
            extra: ["LATCHKEY_ACCESS_GROUPS": "com.example.one,com.example.two"]
        )
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("-34018"))
        #expect(!refused.stderr.contains("<group>"), "no placeholder: \(refused.stderr)")
        let program = BuiltExecutable.latchkeyGroup
        #expect(refused.stderr.contains("latchkey access grant \(program) com.example.one"), "\(refused.stderr)")
        #expect(refused.stderr.contains("latchkey access grant \(program) com.example.two"), "\(refused.stderr)")
    }

    @Test func showKeychainInfoSpeaksOfANeverUnlockedKeychainInWords() throws {
        let agent = try AgentHarness()
        let info = try agent.latchkey(["show-keychain-info"])
        #expect(info.stdout.contains("\" never unlocked\n"), "\(info.stdout)")
        #expect(!info.stdout.contains("neverUnlocked"))
    }
}
