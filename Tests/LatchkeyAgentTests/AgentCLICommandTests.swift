import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The keychain-wide CLI commands through a real agent (`LATCHKEY_AGENT=required`, no credential in the
/// environment): their output is byte for byte the output of the same command run in process
/// (`LATCHKEY_AGENT=off` with the passphrase) on the same items.
struct AgentCLICommandTests {
    /// Runs through the agent only: no credential in the environment, no fallback to the file.
    static let throughAgent = ["LATCHKEY_AGENT": "required"]
    /// Runs in process, unlocking with the keychain's passphrase.
    static let inProcess = ["LATCHKEY_AGENT": "off", "LATCHKEY_PASSPHRASE": AgentHarness.passphrase]

    /// An unlocked agent whose keychain holds one item of each storable class in the CLI's group
    /// (`latchkey`), with binary, ThisDeviceOnly and synchronizable items, written through the agent.
    static func filledAgent() throws -> AgentHarness {
        // No access log: its key pair lives in the keychain (in a group no client holds), so an unscoped
        // in-process report would count two more items than the agent shows this client.
        let harness = try AgentHarness(arguments: ["--access-log", "off"])
        try harness.unlock()
        let probe = try AgentClient.connect(socketPath: harness.socketPath)
        let granted = try harness.latchkey(["access", "grant", probe.welcome.executable, BuiltExecutable.latchkeyGroup])
        #expect(granted.status == 0, "\(granted.stderr)")
        let client = try AgentClient.connect(
            socketPath: harness.socketPath,
            accessGroups: [BuiltExecutable.latchkeyGroup]
        )
        let group: [AttributeName: AttributeValue] = [.accessGroup: .string(BuiltExecutable.latchkeyGroup)]
        let items: [(ItemClass, [AttributeName: AttributeValue], SecretData)] = [
            (
                .genericPassword,
                [
                    .service: .string("svc"), .account: .string("alice"), .label: .string("Alice"),
                    .comment: .string("c"), .generic: .data(Data([0, 1, 2])),
                ],
                SecretData(string: "generic secret")
            ),
            (
                .genericPassword, [.service: .string("svc"), .account: .string("binary"), .accessible: .string("ck")],
                SecretData(Data([0, 255, 10, 13, 0]))
            ),
            (
                .internetPassword,
                [
                    .server: .string("example.com"), .protocol: .string("htps"), .port: .number(443),
                    .path: .string("/a"), .account: .string("bob"),
                ],
                SecretData(string: "inet secret")
            ),
            (
                .certificate,
                [
                    .label: .string("cert"), .certificateType: .number(1), .issuer: .data(Data("i".utf8)),
                    .serialNumber: .data(Data([7])),
                ],
                SecretData(Data([0x30, 0x00]))
            ),
            (
                .key, [.label: .string("key"), .keyClass: .number(2), .applicationTag: .data(Data("tag".utf8))],
                SecretData(Data(repeating: 9, count: 32))
            ),
            (
                .genericPassword,
                [
                    .service: .string("device"), .account: .string("local"),
                    .accessible: .string(Accessibility.whenUnlockedThisDeviceOnly.rawValue),
                ],
                SecretData(string: "stays here")
            ),
            (.genericPassword, [.service: .string("synced"), .synchronizable: .number(1)], SecretData(string: "sync")),
        ]
        for (itemClass, attributes, data) in items {
            try client.add(itemClass, attributes: attributes.merging(group) { $1 }, data: data)
        }
        return harness
    }

    /// Runs `arguments` through the agent and in process and expects the same status, stdout and stderr.
    static func expectSameOutput(
        _ harness: AgentHarness,
        _ arguments: [String],
        input: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIRunner.Result {
        let agent = try harness.latchkey(arguments, input: input, extra: throughAgent)
        let local = try harness.latchkey(arguments, input: input, extra: inProcess)
        #expect(agent.status == 0, "\(arguments) through the agent: \(agent.stderr)", sourceLocation: sourceLocation)
        #expect(agent.status == local.status, sourceLocation: sourceLocation)
        #expect(agent.stdoutData == local.stdoutData, "\(arguments): stdout differs", sourceLocation: sourceLocation)
        #expect(agent.stderr == local.stderr, sourceLocation: sourceLocation)
        return agent
    }

    @Test func dumpKeychainThroughTheAgentEqualsTheInProcessOutput() throws {
        let harness = try Self.filledAgent()
        let plain = try Self.expectSameOutput(harness, ["dump-keychain"])
        #expect(plain.stdout.contains("\"svce\"=<blob>=\"svc\""), "\(plain.stdout)")
        #expect(!plain.stdout.contains("generic secret"))
        let secrets = try Self.expectSameOutput(harness, ["dump-keychain", "-d"])
        #expect(secrets.stdout.contains("generic secret"))
        let json = try Self.expectSameOutput(harness, ["dump-keychain", "-d", "--json"])
        #expect(json.stdout.hasPrefix("["))
    }

    @Test func exportAndImportThroughTheAgent() throws {
        let harness = try Self.filledAgent()
        let directory = harness.keychain.directory
        let archive = directory + "/agent.lkbackup"
        let passphrase = "archive passphrase\n"
        let exported = try harness.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            input: passphrase,
            extra: Self.throughAgent
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        let local = try harness.latchkey(
            ["export", "-o", directory + "/local.lkbackup", "--passphrase-stdin", "--kdf-cost", "testing"],
            input: passphrase,
            extra: Self.inProcess
        )
        #expect(
            exported.stdout == local.stdout.replacingOccurrences(of: "local.lkbackup", with: "agent.lkbackup"),
            "the same summary: \(exported.stdout) / \(local.stdout)"
        )
        #expect(exported.stdout.contains("exported 6 items"))

        // Delete an item through the agent, import the archive through the agent: only that one comes back.
        let deleted = try harness.latchkey(["delete-generic-password", "-s", "svc", "-a", "alice"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let imported = try harness.latchkey(
            ["import", archive, "--passphrase-stdin"],
            input: passphrase,
            extra: Self.throughAgent
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("imported 1 items, 5 duplicates left alone\n"), "\(imported.stdout)")
        let back = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "alice", "-w"])
        #expect(back.stdout == "generic secret\n")

        // Importing again: every item is a duplicate, the same report in process and through the agent.
        _ = try Self.expectSameOutput(harness, ["import", archive, "--passphrase-stdin"], input: passphrase)
    }

    @Test func lockAndUnlockKeychainActOnTheAgent() throws {
        let harness = try AgentHarness()
        try harness.unlock()
        let client = try AgentClient.connect(socketPath: harness.socketPath)
        let locked = try harness.latchkey(["lock-keychain"], extra: Self.throughAgent)
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(try client.perform(.lockState) == .lockState(.locked))

        let wrong = try harness.latchkey(
            ["unlock-keychain", "--passphrase-stdin"],
            input: "not the passphrase",
            extra: Self.throughAgent
        )
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("-25293"), "\(wrong.stderr)")
        #expect(try client.perform(.lockState) == .lockState(.locked))

        let unlocked = try harness.latchkey(
            ["unlock-keychain", "--passphrase-stdin"],
            input: AgentHarness.passphrase,
            extra: Self.throughAgent
        )
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(try client.perform(.lockState) == .lockState(.unlocked), "the agent keeps the unlock for every client")

        let all = try harness.latchkey(["lock-keychain", "-a"], extra: Self.throughAgent)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try client.perform(.lockState) == .lockState(.locked))
    }

    @Test func verifyKeychainThroughTheAgentEqualsTheInProcessOutput() throws {
        let harness = try Self.filledAgent()
        let summary = try Self.expectSameOutput(harness, ["verify-keychain"])
        #expect(summary.stdout.hasSuffix("sound\n"), "\(summary.stdout)")
        _ = try Self.expectSameOutput(harness, ["verify-keychain", "--json"])
    }

    @Test func setKeychainPasswordThroughTheAgentThenUnlockWithTheNewOne() throws {
        let harness = try AgentHarness()
        try harness.unlock()
        let added = try harness.latchkey(["add-generic-password", "-s", "svc", "-a", "a", "-w", "kept"])
        #expect(added.status == 0, "\(added.stderr)")
        let arguments = ["set-keychain-password", "--old-passphrase-stdin", "--new-passphrase-stdin"]
        let newPassphrase = "the new agent passphrase"

        let wrong = try harness.latchkey(arguments, input: "not it\n\(newPassphrase)\n", extra: Self.throughAgent)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("-25293"), "the current passphrase is checked: \(wrong.stderr)")

        let changed = try harness.latchkey(
            arguments,
            input: "\(AgentHarness.passphrase)\n\(newPassphrase)\n",
            extra: Self.throughAgent
        )
        #expect(changed.status == 0, "\(changed.stderr)")
        let served = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(served.stdout == "kept\n", "the agent keeps serving after the change: \(served.stderr)")

        #expect(try harness.latchkey(["lock"]).status == 0)
        let old = try harness.latchkey(["unlock", "--passphrase-stdin"], input: AgentHarness.passphrase)
        #expect(old.status == 1, "the old passphrase no longer unlocks")
        let new = try harness.latchkey(["unlock", "--passphrase-stdin"], input: newPassphrase)
        #expect(new.status == 0, "\(new.stderr)")
        let read = try harness.latchkey(["find-generic-password", "-s", "svc", "-a", "a", "-w"])
        #expect(read.stdout == "kept\n")
        let inProcess = try harness.latchkey(
            ["find-generic-password", "-s", "svc", "-a", "a", "-w"],
            extra: ["LATCHKEY_AGENT": "off", "LATCHKEY_PASSPHRASE": newPassphrase]
        )
        #expect(inProcess.stdout == "kept\n", "the file itself has the new passphrase: \(inProcess.stderr)")
    }

    @Test func aDamagedItemIsNamedThroughTheAgentAsInProcess() throws {
        let harness = try AgentHarness(arguments: ["--access-log", "off"])  // only the three items below in genp
        try harness.unlock()
        for name in ["alice", "bob", "carol"] {
            let added = try harness.latchkey(["add-generic-password", "-s", "svc", "-a", name, "-w", "\(name)-secret"])
            try #require(added.status == 0, "\(added.stderr)")
        }
        // One byte of bob's stored secret flipped behind the agent's back (another SQLite connection).
        let database = harness.keychain.path
        let rows = try SQLiteShell.run(
            database,
            "SELECT id, hex(persistref), hex(secret) FROM genp ORDER BY id"
        )
        .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        try #require(rows.count == 3 && rows[1].count == 3, "\(rows)")
        var secret = Array(rows[1][2])
        let nibble = try #require(Int(String(secret[secret.count / 2]), radix: 16))
        secret[secret.count / 2] = Character(String(nibble ^ 1, radix: 16, uppercase: true))
        _ = try SQLiteShell.run(
            database,
            "UPDATE genp SET secret = X'\(String(secret))' WHERE id = \(rows[1][0])"
        )
        let reference = "67656e70" + rows[1][1].lowercased()

        for arguments in [["dump-keychain", "-d"], ["dump-keychain", "-d", "--skip-damaged"]] {
            let agent = try harness.latchkey(arguments, extra: Self.throughAgent)
            let local = try harness.latchkey(arguments, extra: Self.inProcess)
            #expect(agent.status == (arguments.count == 2 ? 1 : 65), "\(arguments): \(agent.stderr)")
            #expect(agent.stderr.contains(reference), "the agent names the damaged item: \(agent.stderr)")
            #expect(agent.status == local.status && agent.stderr == local.stderr, "\(agent.stderr) / \(local.stderr)")
            #expect(agent.stdoutData == local.stdoutData)
        }
    }
}
