import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The built `latchkey` binary end to end: exit codes, messages and secrets as a shell script sees them.
struct CLIBasicsTests {
    /// How long any single CLI invocation may take before the test calls it a hang.
    static let timeout: TimeInterval = 60

    /// Runs the CLI and fails the test if it does not finish in time.
    func latchkey(
        _ arguments: [String],
        environment: [String: String],
        input: String? = nil,
        timeout: TimeInterval = timeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ChildProcess.Finished {
        let finished = try BuiltExecutable.spawn(arguments, environment: environment, input: input)
            .waitForExit(timeout: timeout)
        #expect(
            !finished.timedOut,
            "latchkey \(arguments.first ?? "") did not finish in \(timeout) s",
            sourceLocation: sourceLocation
        )
        #expect(
            finished.signal == nil,
            "latchkey \(arguments.first ?? "") crashed: \(finished.stderr)",
            sourceLocation: sourceLocation
        )
        return finished
    }

    /// A temporary keychain created through the CLI with the cheap test KDF.
    func createdKeychain() throws -> TemporaryKeychain {
        let keychain = TemporaryKeychain()
        let created = try latchkey(["create-keychain", "--kdf-cost", "testing"], environment: keychain.environment())
        try #require(created.status == 0, "create-keychain failed: \(created.stderr)")
        #expect(FileManager.default.fileExists(atPath: keychain.path))
        return keychain
    }

    @Test func addedPasswordIsPrintedByFindWithW() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let added = try latchkey(
            ["add-generic-password", "-s", "api.example.com", "-a", "alice", "-w", "s3cret pass"],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.isEmpty)

        let found = try latchkey(
            ["find-generic-password", "-s", "api.example.com", "-a", "alice", "-w"],
            environment: environment
        )
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "s3cret pass\n")

        let item = try keychain.open().findOne(
            ItemQuery(
                .genericPassword,
                attributes: [.service: .string("api.example.com"), .account: .string("alice")]
            ),
            withData: true
        )
        #expect(item.data == SecretData(string: "s3cret pass"))
    }

    @Test func findWithoutWPrintsAttributesButNotTheSecret() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let added = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "bob", "-w", "hunter2"],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")

        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "bob"], environment: environment)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("\"acct\"=<blob>=\"bob\""))
        #expect(found.stdout.contains("\"svce\"=<blob>=\"svc\""))
        #expect(!found.stdout.contains("hunter2"))
    }

    @Test func duplicateAddExitsOneWithDuplicateItemStatus() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let arguments = ["add-generic-password", "-s", "svc", "-a", "alice", "-w", "first"]
        let first = try latchkey(arguments, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")

        let second = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice", "-w", "second"],
            environment: environment
        )
        #expect(second.status == 1)
        #expect(second.stderr.contains("-25299"), "stderr: \(second.stderr)")
        #expect(second.stderr.contains("already exists"), "stderr: \(second.stderr)")
        #expect(!second.stderr.contains("second"), "the secret must never appear in a message")

        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "alice", "-w"], environment: environment)
        #expect(found.stdout == "first\n", "a failed duplicate add must not change the stored secret")
    }

    @Test func addWithUUpdatesTheExistingItem() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let first = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice", "-w", "old"],
            environment: environment
        )
        #expect(first.status == 0, "\(first.stderr)")

        let updated = try latchkey(
            ["add-generic-password", "-U", "-s", "svc", "-a", "alice", "-w", "new", "-l", "Alice's login"],
            environment: environment
        )
        #expect(updated.status == 0, "\(updated.stderr)")

        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "alice", "-w"], environment: environment)
        #expect(found.stdout == "new\n")
        let items = try keychain.open().find(
            ItemQuery(.genericPassword, attributes: [.service: .string("svc")]),
            limit: .all,
            withData: true
        )
        #expect(items.count == 1, "-U must update in place, not add a second item")
        #expect(items.first?.attributes[.label] == .string("Alice's login"))
    }

    @Test func addWithUCreatesAMissingItem() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let added = try latchkey(
            ["add-generic-password", "-U", "-s", "svc", "-a", "carol", "-w", "pw"],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "carol", "-w"], environment: environment)
        #expect(found.stdout == "pw\n")
    }

    @Test func findOfAMissingItemExits44() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let found = try latchkey(
            ["find-generic-password", "-s", "svc", "-a", "nobody", "-w"],
            environment: environment
        )
        #expect(found.status == 44)
        #expect(found.stdout.isEmpty)
        #expect(found.stderr.contains("-25300"), "stderr: \(found.stderr)")
    }

    @Test func deletedItemIsNoLongerFound() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        _ = try latchkey(["add-generic-password", "-s", "svc", "-a", "dave", "-w", "pw"], environment: environment)

        let deleted = try latchkey(["delete-generic-password", "-s", "svc", "-a", "dave"], environment: environment)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "dave", "-w"], environment: environment)
        #expect(found.status == 44)
        let again = try latchkey(["delete-generic-password", "-s", "svc", "-a", "dave"], environment: environment)
        #expect(again.status == 44)
    }

    @Test func wrongPassphraseExitsNonZeroWithAuthFailed() throws {
        let keychain = try createdKeychain()
        let added = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice", "-w", "pw"],
            environment: keychain.environment()
        )
        #expect(added.status == 0, "\(added.stderr)")

        let wrong = keychain.environment(extra: ["LATCHKEY_PASSPHRASE": "not the passphrase"])
        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "alice", "-w"], environment: wrong)
        #expect(found.status != 0)
        #expect(found.status != 44, "a wrong passphrase is not 'item not found'")
        #expect(found.stdout.isEmpty)
        #expect(found.stderr.contains("-25293"), "stderr: \(found.stderr)")
        #expect(!found.stderr.contains("not the passphrase"))

        let add = try latchkey(["add-generic-password", "-s", "svc", "-a", "eve", "-w", "pw"], environment: wrong)
        #expect(add.status != 0)
        #expect(add.stderr.contains("-25293"), "stderr: \(add.stderr)")
        let lookup = #expect(throws: KeychainError.self) {
            try keychain.open().findOne(ItemQuery(.genericPassword, attributes: [.account: .string("eve")]))
        }
        #expect(lookup?.code == .itemNotFound, "nothing may be added with a wrong passphrase")
    }

    @Test func missingKeychainWithoutCredentialsFailsQuicklyWithoutTerminal() throws {
        let keychain = TemporaryKeychain()
        var environment = keychain.environment()
        for name in ["LATCHKEY_PASSPHRASE", "LATCHKEY_PASSPHRASE_FILE", "LATCHKEY_KEY_FILE"] { environment[name] = nil }
        environment["HOME"] = keychain.directory
        let found = try latchkey(
            ["find-generic-password", "-s", "svc", "-a", "alice", "-w"],
            environment: environment,
            timeout: 20
        )
        #expect(!found.timedOut, "it fails at once instead of waiting for a passphrase")
        #expect(found.status == 1, "stderr: \(found.stderr)")
        #expect(found.stderr.contains("-25294"), "a read never creates the keychain: \(found.stderr)")
        #expect(found.stderr.contains("latchkey create-keychain"), "the message says how: \(found.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: keychain.path),
            "no keychain may be created without a credential"
        )

        let add = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice", "-w", "pw"],
            environment: environment,
            timeout: 20
        )
        #expect(add.status == 1, "stderr: \(add.stderr)")
        #expect(add.stderr.contains("-25308"), "stderr: \(add.stderr)")
        #expect(add.stderr.contains("LATCHKEY_"), "the message should say how to give a credential: \(add.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keychain.path))
    }

    @Test func lockedKeychainWithoutCredentialsFailsQuicklyWithoutTerminal() throws {
        let keychain = try createdKeychain()
        let added = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice", "-w", "pw"],
            environment: keychain.environment()
        )
        #expect(added.status == 0, "\(added.stderr)")
        var environment = keychain.environment()
        environment["LATCHKEY_PASSPHRASE"] = nil

        let found = try latchkey(
            ["find-generic-password", "-s", "svc", "-a", "alice", "-w"],
            environment: environment,
            timeout: 20
        )
        #expect(found.status == 1, "stderr: \(found.stderr)")
        #expect(found.stdout.isEmpty)
        #expect(found.stderr.contains("-25308"), "stderr: \(found.stderr)")
    }

    @Test func passwordStdinReadsTheSecretFromStandardInput() throws {
        let keychain = try createdKeychain()
        let environment = keychain.environment()
        let added = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice", "--password-stdin"],
            environment: environment,
            input: "from stdin with spaces\n"
        )
        #expect(added.status == 0, "\(added.stderr)")

        let found = try latchkey(["find-generic-password", "-s", "svc", "-a", "alice", "-w"], environment: environment)
        #expect(found.stdout == "from stdin with spaces\n", "exactly one trailing newline is dropped")
        let item = try keychain.open().findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
            withData: true
        )
        #expect(item.data == SecretData(string: "from stdin with spaces"))
    }

    @Test func addWithoutPasswordAndWithoutTerminalFailsWithParam() throws {
        let keychain = try createdKeychain()
        let added = try latchkey(
            ["add-generic-password", "-s", "svc", "-a", "alice"],
            environment: keychain.environment(),
            timeout: 20
        )
        #expect(added.status == 1, "stderr: \(added.stderr)")
        #expect(added.stderr.contains("-50"), "stderr: \(added.stderr)")
        #expect(added.stderr.contains("--password-stdin"), "stderr: \(added.stderr)")
    }
}
