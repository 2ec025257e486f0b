import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// `latchkey sync …` as a user runs it: two machines' keychains, the built `latchkey`, no agent, a real PostgreSQL.
@Suite struct SyncCommandTests {
    /// The environment of a machine's `latchkey` (in process: sync works without an agent).
    static func environment(_ keychain: TemporaryKeychain) -> [String: String] {
        CLIRunner.environment(keychain, extra: ["LATCHKEY_AGENT": "off"])
    }

    @Test func setUpJoinAddSyncAndFindAcrossTwoMachines() async throws {
        try await PostgresServer.with { server, _ in
            let first = try CLIRunner.keychain()
            let second = try CLIRunner.keychain()
            let a = Self.environment(first)
            let b = Self.environment(second)
            // The server trusts its socket, so any password is accepted: this one must never be shown again.
            let url = server.url.replacingOccurrences(of: "postgres@", with: "postgres:hunter2-db-password@")
            let setup = try CLIRunner.latchkey(["sync", "setup", url, "--json"], environment: a)
            #expect(setup.status == 0, "\(setup.stderr)")
            let secrets = try #require(try JSONSerialization.jsonObject(with: setup.stdoutData) as? [String: Any])
            let enrollment = try #require(secrets["enrollmentSecret"] as? String)
            #expect((secrets["recoverySecret"] as? String)?.hasPrefix("LKR1-") == true)
            let added = try CLIRunner.latchkey(
                [
                    "add-generic-password", "-a", "deploy", "-s", "registry.example.com", "--synchronizable",
                    "--password-stdin",
                ],
                environment: a,
                input: "token-1"
            )
            #expect(added.status == 0, "\(added.stderr)")
            let local = try CLIRunner.latchkey(
                ["add-generic-password", "-a", "local", "-s", "registry.example.com", "--password-stdin"],
                environment: a,
                input: "stays here"
            )
            #expect(local.status == 0, "\(local.stderr)")
            let sent = try CLIRunner.latchkey(["sync", "now", "--json"], environment: a)
            #expect(sent.status == 0, "\(sent.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: sent.stdoutData) as? [String: Any])
            #expect(report["sent"] as? Int == 1)
            let joined = try CLIRunner.latchkey(
                ["sync", "join", server.url, "--enrollment-secret-stdin"],
                environment: b,
                input: enrollment + "\n"
            )
            #expect(joined.status == 0, "\(joined.stderr)")
            let found = try CLIRunner.latchkey(
                ["find-generic-password", "-a", "deploy", "-s", "registry.example.com", "--synchronizable", "-w"],
                environment: b
            )
            #expect(found.stdout == "token-1\n", "\(found.stderr)")
            // Without --synchronizable a find matches only items that are not synchronizable, as SecItemCopyMatching.
            let hidden = try CLIRunner.latchkey(
                ["find-generic-password", "-a", "deploy", "-s", "registry.example.com", "-w"],
                environment: b
            )
            #expect(hidden.status == 44)
            let notSent = try CLIRunner.latchkey(
                ["find-generic-password", "-a", "local", "-s", "registry.example.com", "-w"],
                environment: b
            )
            #expect(notSent.status == 44)
            let status = try CLIRunner.latchkey(["sync", "status", "--json"], environment: b)
            let fields = try #require(try JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])
            #expect(fields["enabled"] as? Bool == true)
            #expect(fields["queued"] as? Int == 0)
            let statusA = try CLIRunner.latchkey(["sync", "status"], environment: a)
            #expect(statusA.stdout.contains("postgres:***@"), "\(statusA.stdout)")
            #expect(!statusA.stdout.contains("hunter2-db-password"))
            #expect(!status.stdout.contains("hunter2-db-password"))
            let machines = try CLIRunner.latchkey(["sync", "machines"], environment: b)
            #expect(machines.stdout.split(separator: "\n").count == 2, "\(machines.stderr)")
            let left = try CLIRunner.latchkey(["sync", "leave"], environment: b)
            #expect(left.status == 0, "\(left.stderr)")
            let after = try CLIRunner.latchkey(
                ["find-generic-password", "-a", "deploy", "-s", "registry.example.com", "--synchronizable", "-w"],
                environment: b
            )
            #expect(after.stdout == "token-1\n", "leaving keeps the items")
        }
    }

    @Test func aWrongSecretAndAMissingSetUpGiveClearErrors() async throws {
        try await PostgresServer.with { server, _ in
            let keychain = try CLIRunner.keychain()
            let environment = Self.environment(keychain)
            let now = try CLIRunner.latchkey(["sync", "now"], environment: environment)
            #expect(now.status == 1)
            #expect(now.stderr.contains("latchkey sync setup"), "\(now.stderr)")
            let joined = try CLIRunner.latchkey(
                ["sync", "join", server.url, "--recovery-secret-stdin"],
                environment: environment,
                input: "LKR1-AAAA\n"
            )
            #expect(joined.status == 1)
            #expect(joined.stderr.contains("recovery secret"), "\(joined.stderr)")
            let badURL = try CLIRunner.latchkey(["sync", "setup", "mysql://x@y/z"], environment: environment)
            #expect(badURL.stderr.contains("not a PostgreSQL URL"), "\(badURL.stderr)")
        }
    }
}
