import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// The first-use, input, backup and file paths of the built `latchkey` under races, bad input, damage and a
/// full disk (issue 14, findings 1–5). Every keychain here is unlocked by a key file (`LATCHKEY_KEY_FILE`).
struct ReliabilityTests {
    // MARK: 1. Device secret

    @Test(arguments: [0, 5, 31, 33])
    func aDamagedDeviceSecretIsAnErrorThatSaysWhatToDoAndCreatesNoKeychain(length: Int) throws {
        let fixture = try KeyFileFixture(deviceSecret: "device-secret")
        let damaged = Data(repeating: 0x41, count: length)
        try #require(FileManager.default.createFile(atPath: fixture.deviceSecret, contents: damaged))
        try #require(chmod(fixture.deviceSecret, 0o600) == 0)

        let added = try fixture.latchkey(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "one"])
        #expect(added.status == 1, "\(added.stderr)")
        #expect(added.stderr.contains(fixture.deviceSecret), "the error names the file: \(added.stderr)")
        #expect(added.stderr.contains("\(length) bytes"), "\(added.stderr)")
        #expect(
            added.stderr.lowercased().contains("restore") && added.stderr.contains("remove"),
            "says what to do: \(added.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: fixture.keychain), "no keychain without its device key")
        #expect(FileManager.default.contents(atPath: fixture.deviceSecret) == damaged, "the file is left for the user")
    }

    @Test func aDeviceSecretDamagedAfterCreationIsReportedNotTakenForAnotherMachine() throws {
        let fixture = try KeyFileFixture()
        let added = try fixture.latchkey([
            "add-generic-password", "-s", "svc", "-a", "acct", "-w", "one", "--accessible",
            "when-unlocked-this-device-only",
        ])
        #expect(added.status == 0, "\(added.stderr)")
        try #require(truncate(fixture.deviceSecret, 0) == 0)
        let found = try fixture.latchkey(["find-generic-password", "-s", "svc", "-w"])
        #expect(found.status == 1)
        #expect(found.stderr.contains(fixture.deviceSecret), "\(found.stderr)")
        #expect(!found.stderr.contains("another machine"), "\(found.stderr)")
    }

    @Test func fourProcessesRacingFirstUseAllGetTheDeviceKey() throws {
        for trial in 0..<24 {
            let fixture = try KeyFileFixture()
            let children = try (0..<4).map { index in
                try BuiltExecutable.spawn(
                    [
                        "add-generic-password", "-s", "svc", "-a", "acct\(index)", "-w", "secret\(index)",
                        "--accessible",
                        index.isMultiple(of: 2) ? "when-unlocked-this-device-only" : "always-this-device-only",
                    ],
                    environment: fixture.environment
                )
            }
            for (index, child) in children.enumerated() {
                let finished = child.waitForExit(timeout: 60)
                #expect(
                    finished.status == 0 && finished.signal == nil,
                    "trial \(trial), process \(index): \(finished.stderr)"
                )
            }
            #expect(FileManager.default.contents(atPath: fixture.deviceSecret)?.count == 32, "trial \(trial)")
            for index in 0..<4 {
                let found = try fixture.latchkey(["find-generic-password", "-s", "svc", "-a", "acct\(index)", "-w"])
                #expect(found.stdout == "secret\(index)\n", "trial \(trial), item \(index): \(found.stderr)")
            }
            let later = try fixture.latchkey([
                "add-generic-password", "-s", "later", "-a", "a", "-w", "x", "--accessible",
                "after-first-unlock-this-device-only",
            ])
            #expect(later.status == 0, "trial \(trial): \(later.stderr)")
            #expect(try fixture.entries(startingWith: "test.keychain-db.").isEmpty, "trial \(trial)")
            let state = try FileManager.default.contentsOfDirectory(atPath: fixture.directory + "/state").sorted()
            #expect(state == ["device-secret", "device-secret.lock"], "trial \(trial): \(state)")
        }
    }

    // MARK: 2. Invalid UTF-8 arguments

    /// Runs the built `latchkey` through `/bin/sh` with `script`, in which `"$L"` is the binary.
    static func shell(_ script: String, _ fixture: KeyFileFixture) throws -> CLIRunner.Result {
        try CLIRunner.run(
            "/bin/sh",
            ["-c", "L=\"$0\"; " + script, BuiltExecutable.latchkey],
            environment: fixture.environment
        )
    }

    @Test func argumentsThatAreNotUTF8AreAUsageErrorAndNeverAliasEachOther() throws {
        let fixture = try KeyFileFixture()
        let first = try Self.shell("exec \"$L\" add-generic-password -s s -a \"$(printf '\\377')\" -w one", fixture)
        #expect(first.status == 64, "\(first.stderr)")
        #expect(first.stderr.contains("argument 5") && first.stderr.contains("UTF-8"), "\(first.stderr)")
        let second = try Self.shell("exec \"$L\" add-generic-password -s s -a \"$(printf '\\376')\" -w two", fixture)
        #expect(second.status == 64, "\(second.stderr)")
        let found = try Self.shell("exec \"$L\" find-generic-password -s s -a \"$(printf '\\376')\" -w", fixture)
        #expect(found.status == 64, "\(found.stderr)")
        #expect(found.stdout.isEmpty, "no secret is printed")
        let truncated = try Self.shell("exec \"$L\" find-generic-password -s \"$(printf 'caf\\303')\"", fixture)
        #expect(truncated.status == 64 && truncated.stderr.contains("argument 3"), "\(truncated.stderr)")
        let option = try Self.shell("exec \"$L\" dump-keychain \"--$(printf '\\200')\"", fixture)
        #expect(option.status == 64 && option.stderr.contains("argument 2"), "\(option.stderr)")

        let unicode = try fixture.latchkey(["add-generic-password", "-s", "s", "-a", "zoë", "-w", "three"])
        #expect(unicode.status == 0, "valid UTF-8 is unchanged: \(unicode.stderr)")
        let listed = try fixture.latchkey(["find-generic-password", "-s", "s", "-a", "zoë", "-w"])
        #expect(listed.stdout == "three\n")
        let others = try fixture.latchkey(["find-generic-password", "-s", "s", "-a", "\u{FFFD}"])
        #expect(others.status == 44, "nothing was stored under a replacement character")
    }

    // MARK: 3. Damaged items in backups

    /// A keychain of three generic passwords whose second one has one byte of its stored secret flipped;
    /// returns the fixture and the damaged item's persistent reference in lowercase hex.
    static func keychainWithADamagedItem() throws -> (KeyFileFixture, String) {
        let fixture = try KeyFileFixture()
        for name in ["alice", "bob", "carol"] {
            let added = try fixture.latchkey(["add-generic-password", "-s", "svc", "-a", name, "-w", "\(name)-secret"])
            try #require(added.status == 0, "\(added.stderr)")
        }
        let rows = try SQLiteShell.run(
            fixture.keychain,
            "SELECT id, hex(persistref), hex(secret) FROM genp ORDER BY id"
        )
        .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        try #require(rows.count == 3 && rows[1].count == 3, "\(rows)")
        var secret = Array(rows[1][2])
        let position = secret.count / 2
        let nibble = try #require(Int(String(secret[position]), radix: 16))
        secret[position] = Character(String(nibble ^ 1, radix: 16, uppercase: true))
        _ = try SQLiteShell.run(
            fixture.keychain,
            "UPDATE genp SET secret = X'\(String(secret))' WHERE id = \(rows[1][0])"
        )
        return (fixture, "67656e70" + rows[1][1].lowercased())
    }

    @Test func dumpWithSecretsFailsNamingTheDamagedItemAndSkipsItOnlyWhenAsked() throws {
        let (fixture, reference) = try Self.keychainWithADamagedItem()
        let dumped = try fixture.latchkey(["dump-keychain", "-d"])
        #expect(dumped.status == 1, "\(dumped.stderr)")
        #expect(dumped.stderr.contains("-26275"), "\(dumped.stderr)")
        #expect(dumped.stderr.contains("genp") && dumped.stderr.contains(reference), "\(dumped.stderr)")
        #expect(dumped.stderr.contains("--skip-damaged"), "\(dumped.stderr)")
        #expect(!dumped.stderr.contains("bob") && !dumped.stdout.contains("secret"), "no attribute values, no output")

        let skipping = try fixture.latchkey(["dump-keychain", "-d", "--skip-damaged"])
        #expect(skipping.status == 65, "\(skipping.stderr)")
        #expect(skipping.stdout.contains("alice-secret") && skipping.stdout.contains("carol-secret"))
        #expect(skipping.stderr.contains("skipped damaged item genp") && skipping.stderr.contains(reference))
        #expect(!skipping.stderr.contains("bob"), "\(skipping.stderr)")

        let json = try fixture.latchkey(["dump-keychain", "--secrets", "--json", "--skip-damaged"])
        #expect(json.status == 65)
        let array = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(array.count == 2)
    }

    @Test func exportFailsNamingTheDamagedItemAndSkipsItOnlyWhenAsked() throws {
        let (fixture, reference) = try Self.keychainWithADamagedItem()
        let archive = fixture.directory + "/backup.lkar"
        let exported = try fixture.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            input: "archive passphrase\n"
        )
        #expect(exported.status == 1, "\(exported.stdout) \(exported.stderr)")
        #expect(exported.stderr.contains("-26275") && exported.stderr.contains(reference), "\(exported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: archive), "no incomplete archive is written")

        let skipping = try fixture.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing", "--skip-damaged"],
            input: "archive passphrase\n"
        )
        #expect(skipping.status == 65, "\(skipping.stderr)")
        #expect(skipping.stdout.contains("exported 2 items"), "\(skipping.stdout)")
        #expect(skipping.stderr.contains("skipped damaged item genp") && skipping.stderr.contains(reference))
        #expect(FileManager.default.fileExists(atPath: archive))

        let json = try fixture.latchkey(
            [
                "export", "-o", archive, "--force", "--passphrase-stdin", "--kdf-cost", "testing", "--skip-damaged",
                "--json",
            ],
            input: "archive passphrase\n"
        )
        #expect(json.status == 65)
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(object["exported"] as? Int == 2)
        #expect(object["damagedSkipped"] as? [String] == ["genp " + reference])
    }

    // MARK: 4. Foreign files

    @Test func anotherProgramsDatabaseIsRefusedAndLeftByteForByteUnchanged() throws {
        let fixture = try KeyFileFixture()
        _ = try SQLiteShell.run(fixture.keychain, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        try #require(chmod(fixture.keychain, 0o600) == 0)
        let before = try #require(FileManager.default.contents(atPath: fixture.keychain))
        #expect(Array(before[18...19]) == [1, 1], "a rollback-journal database")

        let found = try fixture.latchkey(["find-generic-password", "-s", "svc"])
        #expect(found.status == 1)
        #expect(found.stderr.contains("-26275"), "\(found.stderr)")
        let after = try #require(FileManager.default.contents(atPath: fixture.keychain))
        #expect(after == before, "header bytes 18–19: \(Array(after[18...19]))")
        #expect(try fixture.entries(startingWith: "test.keychain-db-").isEmpty, "no -wal or -shm left beside it")
    }

    // MARK: 5. Standard input, killed creation, full disk

    @Test(arguments: [
        ("abc\r", "abc\r"), ("abc\n", "abc"), ("abc\r\n", "abc"), ("abc\n\n", "abc\n"), ("abc\r\r\n", "abc\r"),
        ("abc", "abc"), ("\r", "\r"),
    ])
    func passwordStdinDropsOneTrailingLFOrCRLFAndNothingElse(input: String, stored: String) throws {
        let fixture = try KeyFileFixture()
        let added = try fixture.latchkey(["add-generic-password", "-s", "svc", "--password-stdin"], input: input)
        #expect(added.status == 0, "\(added.stderr)")
        let found = try fixture.latchkey(["find-generic-password", "-s", "svc", "-w"])
        #expect(found.stdoutData == Data((stored + "\n").utf8), "\(Array(found.stdoutData))")
    }

    /// Waits (on inotify, without polling) until a name that satisfies `wanted` is created in `directory`.
    static func waitForEntry(in directory: String, timeout: Int32, _ wanted: (String) -> Bool) throws -> Bool {
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        try #require(inotify >= 0, "inotify: \(String(cString: strerror(errno)))")
        defer { close(inotify) }
        try #require(inotify_add_watch(inotify, directory, UInt32(IN_CREATE | IN_MOVED_TO)) >= 0)
        if try FileManager.default.contentsOfDirectory(atPath: directory).contains(where: wanted) {
            return true
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date(timeIntervalSinceNow: TimeInterval(timeout))
        while Date() < deadline {
            var descriptor = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
            guard poll(&descriptor, 1, remaining) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while count > 0, offset + header <= count {
                let length = buffer.withUnsafeBytes {
                    Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let name = String(
                    decoding: buffer[(offset + header)..<min(offset + header + length, count)].prefix { $0 != 0 },
                    as: UTF8.self
                )
                if wanted(name) { return true }
                offset += header + length
            }
        }
        return false
    }

    @Test func aKilledCreateKeychainLeavesNoTemporaryFilesOnceCreationIsRetried() throws {
        for round in 0..<3 {
            let fixture = try KeyFileFixture()
            var environment = fixture.environment
            environment["LATCHKEY_KEY_FILE"] = nil
            // The standard scrypt cost keeps the creation (and its temporary file) alive long enough to be killed.
            let child = try BuiltExecutable.spawn(
                ["create-keychain", "--passphrase-stdin", fixture.keychain],
                environment: environment,
                input: "passphrase\n"
            )
            // SQLite creates the temporary database's WAL before the key derivation starts.
            let appeared = try Self.waitForEntry(in: fixture.directory, timeout: 60) {
                $0.hasPrefix("test.keychain-db.creating-") && $0.hasSuffix("-wal")
            }
            child.kill()
            let killed = child.waitForExit(timeout: 30)
            try #require(appeared && killed.signal == SIGKILL, "round \(round): \(killed.status) \(killed.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.keychain))
            #expect(try !fixture.entries(startingWith: "test.keychain-db.creating-").isEmpty, "round \(round)")

            let retried = try CLIRunner.latchkey(
                ["create-keychain", "--kdf-cost", "testing", "--passphrase-stdin", fixture.keychain],
                environment: environment,
                input: "passphrase\n"
            )
            #expect(retried.status == 0, "round \(round): \(retried.stderr)")
            #expect(try fixture.entries(startingWith: "test.keychain-db.creating-") == [], "round \(round)")
        }
    }

    /// Runs `/bin/mount` or `/bin/umount`.
    static func mountCommand(_ executable: String, _ arguments: [String]) throws -> CLIRunner.Result {
        try #require(FileManager.default.isExecutableFile(atPath: executable), "\(executable) is needed")
        return try CLIRunner.run(executable, arguments, environment: [:])
    }

    @Test func aReadOnAFullDiskStillReadsAfterACheckpointRemovedTheJournalFiles() throws {
        try #require(geteuid() == 0, "mounting the small tmpfs needs root")
        let fixture = try KeyFileFixture()
        let mountPoint = fixture.directory + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mounted = try Self.mountCommand(
            "/bin/mount",
            ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mountPoint]
        )
        try #require(mounted.status == 0, "mount: \(mounted.stderr)")
        defer {
            // Unmounted before the fixture's directory is removed (the fixture lives until here).
            _ = try? Self.mountCommand("/bin/umount", ["-l", mountPoint])
            withExtendedLifetime(fixture) {}
        }

        var environment = fixture.environment
        environment["LATCHKEY_KEYCHAIN"] = mountPoint + "/full.keychain-db"
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-w", "kept"],
            environment: environment
        )
        try #require(added.status == 0, "\(added.stderr)")
        _ = try SQLiteShell.run(mountPoint + "/full.keychain-db", "PRAGMA wal_checkpoint(TRUNCATE);")
        let journals = try FileManager.default.contentsOfDirectory(atPath: mountPoint).filter {
            $0.hasSuffix("-wal") || $0.hasSuffix("-shm")
        }
        try #require(journals.isEmpty, "the checkpoint removed -wal and -shm: \(journals)")

        let filler = open(mountPoint + "/filler", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(filler >= 0)
        let chunk = [UInt8](repeating: 0x5A, count: 4096)
        while chunk.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        let fillError = errno
        close(filler)
        try #require(fillError == ENOSPC, "the disk is full: \(String(cString: strerror(fillError)))")

        let found = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-w"], environment: environment)
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "kept\n")
        let refused = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "new", "-w", "x"],
            environment: environment
        )
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("-36") && refused.stderr.lowercased().contains("disk is full"),
            "\(refused.stderr)"
        )
        let again = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-w"], environment: environment)
        #expect(again.stdout == "kept\n", "\(again.stderr)")
    }
}
