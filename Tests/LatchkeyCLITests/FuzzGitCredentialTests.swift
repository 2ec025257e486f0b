import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Mutation fuzzing of the git credential-helper protocol parser through the built
/// `latchkey git-credential get|store|erase` (issue 14): random and mutated requests on standard input
/// never end the process by a signal, never hang, and never damage the keychain.
struct FuzzGitCredentialTests {
    /// Runs of the built binary (the operations take turns).
    static let runs = 200
    /// How long one run may take before it counts as a hang (a debug build on a loaded machine).
    static let timeout: TimeInterval = 60

    /// Valid requests as git writes them, including the attributes newer gits send.
    static let seeds: [[UInt8]] = [
        "protocol=https\nhost=example.com\nusername=alice\npassword=secret\n\n",
        "protocol=https\nhost=example.com:8443\npath=org/repo.git\nusername=bob\npassword=pw\n"
            + "password_expiry_utc=1700000000\noauth_refresh_token=rt\n\n",
        "url=https://carol@git.example.org/x.git\n\n",
        "capability[]=authtype\nprotocol=https\nhost=example.com\nwwwauth[]=Basic realm=\"x\"\n\n",
        "protocol=http\r\nhost=h\r\nusername=u\r\npassword=p\r\nephemeral=true\r\n\r\n",
    ].map { Array($0.utf8) }

    @Test func mutatedRequestsNeverCrashOrHangTheHelper() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let known = "protocol=https\nhost=known.example\nusername=keeper\npassword=kept secret\n\n"
        let stored = try CLIRunner.latchkey(["git-credential", "store"], environment: environment, input: known)
        try #require(stored.status == 0, "git-credential store: \(stored.stderr)")

        var mutator = ByteMutator(seed: 0x5EED_6173)
        let operations = ["get", "store", "erase"]
        var statuses: [Int32: Int] = [:]
        for run in 0..<Self.runs {
            let operation = operations[run % operations.count]
            // One run in eight is pure noise; the rest are mutated requests.
            let input: [UInt8] =
                run % 8 == 7
                ? (0..<mutator.below(512)).map { _ in UInt8(truncatingIfNeeded: mutator.next()) }
                : mutator.mutate(Self.seeds[run % Self.seeds.count], splicingWith: Self.seeds, textTokens: true)
            let child = try ChildProcess(
                BuiltExecutable.latchkey,
                ["git-credential", operation],
                environment: environment,
                input: Data(input)
            )
            let finished = child.waitForExit(timeout: Self.timeout)
            #expect(!finished.timedOut, "run \(run) (\(operation)) hung")
            #expect(finished.signal == nil, "run \(run) (\(operation)) ended by signal \(finished.status)")
            statuses[finished.status, default: 0] += 1
            if operation == "get" && finished.status == 0 {
                for line in finished.stdoutLines where !line.isEmpty {
                    #expect(line.contains("="), "run \(run): get wrote a line that is not key=value")
                }
            }
        }
        #expect(statuses.count > 1 || statuses[0] != nil, "statuses: \(statuses)")

        // The keychain is intact: the credential stored before the fuzzing is still found.
        let found = try CLIRunner.latchkey(
            ["git-credential", "get"],
            environment: environment,
            input: "protocol=https\nhost=known.example\nusername=keeper\n\n"
        )
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("password=kept secret\n"))
    }
}
