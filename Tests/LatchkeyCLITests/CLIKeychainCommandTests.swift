import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The keychain commands of the built binary: create, delete, list, default, lock, unlock, passphrase, info.
struct CLIKeychainCommandTests {
    /// A fresh directory with an environment that names no keychain: commands fall back to the data directory.
    func bareEnvironment(_ keychain: TemporaryKeychain) -> [String: String] {
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_KEYCHAIN"] = nil
        return environment
    }

    @Test func createKeychainMakesAFileAndListsIt() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        let created = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "work"],
            environment: environment
        )
        #expect(created.status == 0, "\(created.stderr)")
        let path = keychain.directory + "/data/latchkey/work.keychain-db"
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(created.stdout == "created \(path)\n")

        let listed = try CLIRunner.latchkey(["list-keychains", "--json"], environment: environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        let paths = try JSONSerialization.jsonObject(with: listed.stdoutData) as? [String]
        #expect(paths == [path], "the login keychain does not exist, so only work is listed")

        let human = try CLIRunner.latchkey(["list-keychains"], environment: environment)
        #expect(human.stdout == "    \"\(path)\"\n")

        let again = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "work"],
            environment: environment
        )
        #expect(again.status == 1)
        #expect(again.stderr.contains("-25299"), "\(again.stderr)")
    }

    @Test func createKeychainWithoutCredentialOrTerminalFailsAtOnce() throws {
        let keychain = TemporaryKeychain()
        var environment = bareEnvironment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        let created = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "x"],
            environment: environment,
            timeout: 20
        )
        #expect(created.status == 1)
        #expect(created.stderr.contains("-25308"), "\(created.stderr)")
        #expect(
            created.stderr.contains("User interaction is not allowed."),
            "the OSStatus text comes first: \(created.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: keychain.directory + "/data/latchkey/x.keychain-db"))
    }

    @Test func createKeychainWithPassphraseOnStdinAndKeyFile() throws {
        let keychain = TemporaryKeychain()
        var environment = bareEnvironment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        let keyFile = keychain.directory + "/key"
        let created = try CLIRunner.latchkey(
            [
                "create-keychain", "--kdf-cost", "testing", "--passphrase-stdin", "--new-key-file", keyFile, "-k",
                keychain.path,
            ],
            environment: environment,
            input: "stdin passphrase\n"
        )
        #expect(created.status == 0, "\(created.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        var withKey = environment
        withKey["LATCHKEY_KEYCHAIN"] = keychain.path
        withKey["LATCHKEY_KEY_FILE"] = keyFile
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "s", "-a", "a", "--password-stdin"],
            environment: withKey,
            input: "pw"
        )
        #expect(added.status == 0, "\(added.stderr)")
        var withPassphrase = environment
        withPassphrase["LATCHKEY_KEYCHAIN"] = keychain.path
        withPassphrase["LATCHKEY_PASSPHRASE"] = "stdin passphrase"
        let found = try CLIRunner.latchkey(["find-generic-password", "-s", "s", "-w"], environment: withPassphrase)
        #expect(found.stdout == "pw\n", "\(found.stderr)")
    }

    @Test func defaultKeychainIsSetInTheConfigButTheEnvironmentWins() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        let login = keychain.directory + "/data/latchkey/login.keychain-db"
        let shown = try CLIRunner.latchkey(["default-keychain", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: String])
        #expect(object == ["keychain": login, "source": "login"])

        _ = try CLIRunner.latchkey(["create-keychain", "--kdf-cost", "testing", "other"], environment: environment)
        let set = try CLIRunner.latchkey(["default-keychain", "-s", "other"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        let other = keychain.directory + "/data/latchkey/other.keychain-db"
        let human = try CLIRunner.latchkey(["default-keychain"], environment: environment)
        #expect(human.stdout == "    \"\(other)\"\n")

        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-a", "x", "-w", "in-other"],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        let item = try KeychainStore.open(
            path: other,
            credentials: [.passphrase(keychain.passphrase)],
            createIfMissing: false,
            options: keychain.options()
        ).findOne(ItemQuery(.genericPassword, attributes: [.service: .string("svc")]), withData: true)
        #expect(item.data == SecretData(string: "in-other"), "commands without -k use the configured default")

        var overridden = environment
        overridden["LATCHKEY_KEYCHAIN"] = keychain.path
        let fromEnvironment = try CLIRunner.latchkey(["default-keychain", "--json"], environment: overridden)
        let overriddenObject = try #require(
            try JSONSerialization.jsonObject(with: fromEnvironment.stdoutData) as? [String: String]
        )
        #expect(overriddenObject == ["keychain": keychain.path, "source": "environment"])
        let warned = try CLIRunner.latchkey(["default-keychain", "-s", "other"], environment: overridden)
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("LATCHKEY_KEYCHAIN"))
    }

    @Test func listKeychainsSetReplacesTheList() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        for name in ["a", "b"] {
            let created = try CLIRunner.latchkey(
                ["create-keychain", "--kdf-cost", "testing", name],
                environment: environment
            )
            #expect(created.status == 0, "\(created.stderr)")
        }
        let set = try CLIRunner.latchkey(["list-keychains", "-s", "b"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        let listed = try CLIRunner.latchkey(["list-keychains", "--json"], environment: environment)
        let paths = try JSONSerialization.jsonObject(with: listed.stdoutData) as? [String]
        #expect(paths == [keychain.directory + "/data/latchkey/b.keychain-db"])
    }

    @Test func deleteKeychainRemovesTheFileAndForgetsIt() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        _ = try CLIRunner.latchkey(["create-keychain", "--kdf-cost", "testing", "gone"], environment: environment)
        let path = keychain.directory + "/data/latchkey/gone.keychain-db"
        _ = try CLIRunner.latchkey(
            ["add-generic-password", "-k", "gone", "-s", "s", "-w", "x"],
            environment: environment
        )

        let deleted = try CLIRunner.latchkey(["delete-keychain", "gone"], environment: environment)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        for suffix in ["", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: path + suffix)) }
        let listed = try CLIRunner.latchkey(["list-keychains", "--json"], environment: environment)
        #expect((try JSONSerialization.jsonObject(with: listed.stdoutData) as? [String]) == [])

        let again = try CLIRunner.latchkey(["delete-keychain", "gone"], environment: environment)
        #expect(again.status == 1)
        #expect(again.stderr.contains("-25294"), "\(again.stderr)")
    }

    @Test func deleteKeychainLeavesOtherFilesAlone() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        let victim = keychain.directory + "/notes.txt"
        try Data("not a keychain, long enough to look like a file".utf8).write(to: URL(fileURLWithPath: victim))
        chmod(victim, 0o600)
        let refused = try CLIRunner.latchkey(["delete-keychain", victim], environment: environment)
        #expect(refused.status == 1)
        #expect(FileManager.default.fileExists(atPath: victim), "a file that is not a keychain is never removed")

        let unnamed = try CLIRunner.latchkey(["delete-keychain"], environment: environment)
        #expect(unnamed.status == 1)
        #expect(unnamed.stderr.contains("-50"))
    }

    @Test func unlockKeychainChecksThePassphraseAndLockKeychainIsANoOp() throws {
        let keychain = try CLIRunner.keychain()
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        let right = try CLIRunner.latchkey(
            ["unlock-keychain", "--passphrase-stdin", keychain.path],
            environment: environment,
            input: "correct horse battery staple\n"
        )
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout.isEmpty)
        let wrong = try CLIRunner.latchkey(
            ["unlock-keychain", "--passphrase-stdin", keychain.path],
            environment: environment,
            input: "nope\n"
        )
        #expect(wrong.status == 1)
        #expect(
            wrong.stderr.contains("The user name or passphrase you entered is not correct. (OSStatus -25293)"),
            "\(wrong.stderr)"
        )
        #expect(!wrong.stderr.contains("nope"))
        let noSource = try CLIRunner.latchkey(
            ["unlock-keychain", keychain.path],
            environment: environment,
            timeout: 20
        )
        #expect(noSource.status == 1)
        #expect(noSource.stderr.contains("-25308"), "\(noSource.stderr)")

        let locked = try CLIRunner.latchkey(["lock-keychain", keychain.path], environment: environment)
        #expect(locked.status == 0, "\(locked.stderr)")
        let all = try CLIRunner.latchkey(["lock-keychain", "-a"], environment: environment)
        #expect(all.status == 0)
        let missing = try CLIRunner.latchkey(
            ["lock-keychain", keychain.directory + "/none.keychain-db"],
            environment: environment
        )
        #expect(missing.status == 1)
        let help = try CLIRunner.latchkey(["lock-keychain", "--help"], environment: environment)
        #expect(help.stdout.contains("no daemon"), "the help says what lock-keychain really does")
    }

    @Test func setKeychainPasswordReplacesThePassphrase() throws {
        let keychain = try CLIRunner.keychain()
        let item = try keychain.open()
        try item.add(.genericPassword, attributes: [.service: .string("s")], data: SecretData(string: "kept"))
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        let changed = try CLIRunner.latchkey(
            ["set-keychain-password", "--old-passphrase-stdin", "--new-passphrase-stdin"],
            environment: environment,
            input: "correct horse battery staple\nnew passphrase\n"
        )
        #expect(changed.status == 0, "\(changed.stderr)")
        let old = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "s", "-w"],
            environment: CLIRunner.environment(keychain)
        )
        #expect(old.status == 1)
        #expect(old.stderr.contains("-25293"))
        let new = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "s", "-w"],
            environment: CLIRunner.environment(keychain, extra: ["LATCHKEY_PASSPHRASE": "new passphrase"])
        )
        #expect(new.stdout == "kept\n", "\(new.stderr)")

        let noNew = try CLIRunner.latchkey(
            ["set-keychain-password"],
            environment: CLIRunner.environment(keychain, extra: ["LATCHKEY_PASSPHRASE": "new passphrase"]),
            timeout: 20
        )
        #expect(noNew.status == 1)
        #expect(noNew.stderr.contains("-25308"), "\(noNew.stderr)")
    }

    @Test func setKeychainPasswordCanAddAKeyFile() throws {
        let keychain = try CLIRunner.keychain()
        let keyFile = keychain.directory + "/unlock.key"
        let added = try CLIRunner.latchkey(
            ["set-keychain-password", "--new-key-file", keyFile],
            environment: CLIRunner.environment(keychain)
        )
        #expect(added.status == 0, "\(added.stderr)")
        var environment = CLIRunner.environment(keychain, extra: ["LATCHKEY_KEY_FILE": keyFile])
        environment["LATCHKEY_PASSPHRASE"] = nil
        let stored = try CLIRunner.latchkey(["add-generic-password", "-s", "k", "-w", "v"], environment: environment)
        #expect(stored.status == 0, "\(stored.stderr)")
        let found = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "k", "-w"],
            environment: CLIRunner.environment(keychain)
        )
        #expect(found.stdout == "v\n", "the passphrase still unlocks it")
    }

    @Test func showKeychainInfoReportsStateAndCounts() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.service: .string("a")], data: SecretData(string: "1"))
        try store.add(.genericPassword, attributes: [.service: .string("b")], data: SecretData(string: "2"))
        try store.add(.internetPassword, attributes: [.server: .string("h")], data: SecretData(string: "3"))
        let shown = try CLIRunner.latchkey(
            ["show-keychain-info", "--json"],
            environment: CLIRunner.environment(keychain)
        )
        #expect(shown.status == 0, "\(shown.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [String: Any])
        #expect(object["keychain"] as? String == keychain.path)
        #expect(object["lockState"] as? String == "unlocked")
        #expect(object["hasPassphrase"] as? Bool == true)
        #expect(object["items"] as? [String: Int] == ["genp": 2, "inet": 1, "cert": 0, "keys": 0])

        var locked = CLIRunner.environment(keychain)
        locked["LATCHKEY_PASSPHRASE"] = nil
        let lockedInfo = try CLIRunner.latchkey(["show-keychain-info", "--json"], environment: locked, timeout: 20)
        #expect(lockedInfo.status == 0, "\(lockedInfo.stderr)")
        let lockedObject = try #require(try JSONSerialization.jsonObject(with: lockedInfo.stdoutData) as? [String: Any])
        #expect(lockedObject["lockState"] as? String == "neverUnlocked")
        #expect(lockedObject["items"] is NSNull)

        let human = try CLIRunner.latchkey(["show-keychain-info"], environment: CLIRunner.environment(keychain))
        #expect(human.stdout.hasPrefix("Keychain \"\(keychain.path)\" unlocked\n"))
        #expect(human.stdout.contains("genp items: 2"))
    }

    @Test(arguments: [
        ["find-generic-password", "--no-such-option"],
        ["add-internet-password", "-P", "70000", "-w", "x"],
        ["no-such-command"],
        ["find-key", "-c", "sideways"],
    ])
    func usageErrorsExit64(arguments: [String]) throws {
        let keychain = try CLIRunner.keychain()
        let result = try CLIRunner.latchkey(arguments, environment: CLIRunner.environment(keychain))
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
    }

    @Test func everyCommandIsListedInTheHelp() throws {
        let keychain = TemporaryKeychain()
        let help = try CLIRunner.latchkey(["--help"], environment: CLIRunner.environment(keychain))
        for command in [
            "create-keychain", "delete-keychain", "list-keychains", "default-keychain", "lock-keychain",
            "unlock-keychain", "set-keychain-password", "show-keychain-info", "add-generic-password",
            "find-generic-password", "delete-generic-password", "add-internet-password", "find-internet-password",
            "delete-internet-password", "dump-keychain", "find-certificate", "find-key", "export", "import",
            "git-credential",
        ] {
            #expect(help.stdout.contains(command), "\(command) missing from --help")
        }
        #expect(!help.stdout.contains("stress-add"), "debug commands stay hidden")
    }
}
