import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Keychains that cannot be written: opened with `readOnly`, or files the process may not modify.
struct ReadOnlyKeychainTests {
    /// A keychain holding a few items, closed again, with a snapshot of its contents.
    struct Filled {
        let keychain = TemporaryKeychain()
        let items: [FoundItem]
        let changeCounter: Int64

        /// - Parameter keepJournalFiles: Leave the `-wal` and `-shm` files that closing an in-process handle
        ///   leaves behind; otherwise checkpoint and remove them, as a finished CLI process does.
        init(keepJournalFiles: Bool = true) throws {
            let store = try keychain.open()
            try store.add(
                .genericPassword,
                attributes: [.service: .string("svc"), .account: .string("alice")],
                data: SecretData(string: "alice-secret")
            )
            try store.add(
                .genericPassword,
                attributes: [.service: .string("svc"), .account: .string("bob"), .label: .string("Bob")],
                data: SecretData(string: "bob-secret")
            )
            try store.add(
                .internetPassword,
                attributes: [.server: .string("example.com"), .account: .string("carol")],
                data: SecretData(string: "carol-secret")
            )
            items = try Self.allItems(in: store)
            changeCounter = try store.changeCounter()
            if !keepJournalFiles { try store.checkpoint() }
            try store.close()
            if !keepJournalFiles {
                let wal = keychain.path + "-wal"
                let size = try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int
                try #require(size == 0, "the checkpoint must have emptied the WAL before it is removed")
                try FileManager.default.removeItem(atPath: wal)
                try FileManager.default.removeItem(atPath: keychain.path + "-shm")
            }
        }

        /// Every generic and internet password with its data, in a stable order.
        static func allItems(in store: KeychainStore) throws -> [FoundItem] {
            let generic = try store.find(ItemQuery(.genericPassword), limit: .all, withData: true)
            let internet = try store.find(ItemQuery(.internetPassword), limit: .all, withData: true)
            return (generic + internet).sorted {
                $0.persistentReference.lexicographicallyPrecedes($1.persistentReference)
            }
        }

        /// Reopens read-write and checks that nothing changed since `init`.
        func expectUnchanged(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let store = try keychain.open()
            #expect(try Self.allItems(in: store) == items, "the items changed", sourceLocation: sourceLocation)
            #expect(
                try store.changeCounter() == changeCounter,
                "the change counter moved",
                sourceLocation: sourceLocation
            )
            let report = try store.verifyIntegrity()
            #expect(report.isSound, "\(report)", sourceLocation: sourceLocation)
            #expect(report.verified == items.count, sourceLocation: sourceLocation)
            try store.close()
        }
    }

    /// Checks that `error` is the read-only error with a message that says so.
    func expectReadOnly(_ error: KeychainError?, _ operation: String, sourceLocation: SourceLocation = #_sourceLocation)
    {
        #expect(error?.code == .readOnly, "\(operation): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(
            error?.message.lowercased().contains("read-only") == true,
            "\(operation): the message should say the keychain is read-only: \(error?.message ?? "")",
            sourceLocation: sourceLocation
        )
    }

    @Test func readOnlyHandleReadsEveryItem() throws {
        let filled = try Filled()
        let store = try filled.keychain.open(readOnly: true)
        #expect(store.lockState == .unlocked)
        #expect(try Filled.allItems(in: store) == filled.items)
        let alice = try store.findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
            withData: true
        )
        #expect(alice.data == SecretData(string: "alice-secret"))
        #expect(try store.changeCounter() == filled.changeCounter)
        let report = try store.verifyIntegrity()
        #expect(report.isSound)
        #expect(report.verified == filled.items.count)
    }

    @Test func readOnlyHandleRefusesEveryWriteAndChangesNothing() throws {
        let filled = try Filled()
        let store = try filled.keychain.open(readOnly: true)
        let alice = ItemQuery(.genericPassword, attributes: [.account: .string("alice")])

        expectReadOnly(
            #expect(throws: KeychainError.self) {
                try store.add(
                    .genericPassword,
                    attributes: [.service: .string("svc"), .account: .string("dave")],
                    data: SecretData(string: "dave-secret")
                )
            },
            "add"
        )
        expectReadOnly(
            #expect(throws: KeychainError.self) {
                try store.update(
                    alice,
                    with: ItemChanges(attributes: [.label: .string("changed")], data: SecretData(string: "x"))
                )
            },
            "update"
        )
        expectReadOnly(#expect(throws: KeychainError.self) { try store.delete(alice) }, "delete")
        expectReadOnly(
            #expect(throws: KeychainError.self) { try store.delete(ItemQuery(.genericPassword)) },
            "delete all"
        )
        expectReadOnly(
            #expect(throws: KeychainError.self) {
                try store.changePassphrase(to: SecretData(string: "new passphrase"))
            },
            "changePassphrase"
        )
        let keyFile = try UnlockCredential.createKeyFile(at: filled.keychain.directory + "/key-file")
        expectReadOnly(#expect(throws: KeychainError.self) { try store.setKeyFile(keyFile) }, "setKeyFile")

        // Reads still work after the refused writes, and the file is exactly as before.
        #expect(try Filled.allItems(in: store) == filled.items)
        try store.close()
        try filled.expectUnchanged()
        let refused = #expect(throws: KeychainError.self) {
            try KeychainStore.open(
                path: filled.keychain.path,
                credentials: [.passphrase(SecretData(string: "new passphrase"))],
                createIfMissing: false,
                options: filled.keychain.options()
            )
        }
        #expect(refused?.code == .authFailed, "the refused passphrase change must not have taken effect")
    }

    @Test func readOnlyHandleCannotCreateAKeychain() throws {
        let keychain = TemporaryKeychain()
        let error = #expect(throws: KeychainError.self) { try keychain.open(readOnly: true) }
        expectReadOnly(error, "create")
        #expect(!FileManager.default.fileExists(atPath: keychain.path))
    }

    @Test func readOnlyHandleSeesWritesCommittedByAnotherHandle() throws {
        let filled = try Filled()
        let reader = try filled.keychain.open(readOnly: true)
        let writer = try filled.keychain.open()
        try writer.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("erin")],
            data: SecretData(string: "erin-secret")
        )
        let erin = try reader.findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("erin")]),
            withData: true
        )
        #expect(erin.data == SecretData(string: "erin-secret"))
        #expect(try reader.changeCounter() == filled.changeCounter + 1)
    }

    // MARK: - Files the process may not write (run as an unprivileged user, since root ignores mode bits)
    //
    // Under root the CLI runs as `nobody` through util-linux `setpriv` (a peer: missing, the tests fail);
    // under any other user it runs as that user, to whom the mode bits already apply.

    /// Whether the tests run as root, which ignores mode bits: the CLI must then run as `nobody`.
    static var runsAsRoot: Bool { geteuid() == 0 }

    /// The unprivileged user and group the CLI runs as when the tests run as root.
    static let nobody: UInt32 = 65534

    /// Who owns the protected files while the CLI runs: `nobody` under root, else the test's own user
    /// (for whom the mode bits already apply).
    static var unprivilegedOwner: UInt32 { runsAsRoot ? nobody : geteuid() }

    /// Who owns the files again afterwards (the test's user).
    static var testOwner: UInt32 { geteuid() }

    /// The command line that runs `arguments` unprivileged: through util-linux `setpriv` as `nobody` when
    /// the tests run as root (a missing `setpriv` fails the test), else as is.
    static func unprivileged(_ arguments: [String]) throws -> (executable: String, arguments: [String]) {
        guard runsAsRoot else { return (arguments[0], Array(arguments.dropFirst())) }
        let setpriv = try Peer.require("setpriv", package: "util-linux")
        return (setpriv, ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups"] + arguments)
    }

    /// A write-protected layout of the keychain's directory, as `nobody` sees it.
    struct Protection: Sendable, CustomTestStringConvertible {
        /// The keychain file (and any `-wal` and `-shm` beside it) is 0400.
        var readOnlyFiles: Bool
        /// The directory is 0500, so no `-wal` or `-shm` can be created in it.
        var readOnlyDirectory: Bool
        /// Whether `-wal` and `-shm` files lie beside the keychain (as after an in-process close) or not (as
        /// after a CLI process exits).
        var journalFiles: Bool

        var testDescription: String {
            [
                readOnlyFiles ? "files 0400" : "files 0600",
                readOnlyDirectory ? "directory 0500" : "directory 0700",
                journalFiles ? "with -wal/-shm" : "without -wal/-shm",
            ].joined(separator: ", ")
        }

        /// Every layout in which the keychain cannot be written. (A read-only directory alone does not protect
        /// a writable file whose `-wal` and `-shm` already exist: SQLite can write through them.)
        static let writeProtected: [Protection] = [
            Protection(readOnlyFiles: true, readOnlyDirectory: false, journalFiles: true),
            Protection(readOnlyFiles: true, readOnlyDirectory: false, journalFiles: false),
            Protection(readOnlyFiles: true, readOnlyDirectory: true, journalFiles: true),
            Protection(readOnlyFiles: true, readOnlyDirectory: true, journalFiles: false),
            Protection(readOnlyFiles: false, readOnlyDirectory: true, journalFiles: false),
        ]
    }

    /// Hands the keychain's directory and files to `owner` and sets their modes for `protection` (`nil`:
    /// files 0600, directory 0700).
    static func protect(_ keychain: TemporaryKeychain, _ protection: Protection?, owner: UInt32) throws {
        let entries = try FileManager.default.contentsOfDirectory(atPath: keychain.directory)
        for path in entries.map({ keychain.directory + "/" + $0 }) {
            try #require(chown(path, owner, owner) == 0, "chown \(path): \(String(cString: strerror(errno)))")
            try #require(chmod(path, protection?.readOnlyFiles == true ? 0o400 : 0o600) == 0)
        }
        try #require(chown(keychain.directory, owner, owner) == 0)
        try #require(chmod(keychain.directory, protection?.readOnlyDirectory == true ? 0o500 : 0o700) == 0)
    }

    /// A filled keychain handed to the unprivileged user under `protection`, with or without journal files.
    static func protectedKeychain(_ protection: Protection) throws -> Filled {
        let filled = try Filled(keepJournalFiles: protection.journalFiles)
        let journal = ["-wal", "-shm"].map { FileManager.default.fileExists(atPath: filled.keychain.path + $0) }
        #expect(journal == [protection.journalFiles, protection.journalFiles], "journal files present: \(journal)")
        try protect(filled.keychain, protection, owner: unprivilegedOwner)
        return filled
    }

    /// Runs the built CLI unprivileged (as `nobody` through `setpriv` when the tests run as root).
    func latchkeyAsNobody(_ arguments: [String], keychain: TemporaryKeychain) throws -> ChildProcess.Finished {
        var environment = keychain.environment()
        environment["HOME"] = keychain.directory
        for name in ["XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"] {
            environment[name] = nil
        }
        let command = try Self.unprivileged([BuiltExecutable.latchkey] + arguments)
        let finished = try BuiltExecutable.spawn(
            command.arguments,
            environment: environment,
            executable: command.executable
        ).waitForExit(timeout: 60)
        #expect(!finished.timedOut, "latchkey \(arguments[0]) hung")
        #expect(
            finished.signal == nil,
            "latchkey \(arguments[0]) crashed with signal \(finished.signal ?? 0): \(finished.stderr)"
        )
        return finished
    }

    /// Checks a CLI run that must have been refused because the keychain cannot be written.
    func expectRefusedAsReadOnly(
        _ finished: ChildProcess.Finished,
        _ operation: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            finished.status == 1,
            "\(operation) exited \(finished.status): \(finished.stderr)",
            sourceLocation: sourceLocation
        )
        #expect(
            finished.stderr.lowercased().contains("read-only"),
            "\(operation) should say the keychain is read-only: \(finished.stderr)",
            sourceLocation: sourceLocation
        )
        #expect(finished.stderr.contains("-25292"), "\(operation): \(finished.stderr)", sourceLocation: sourceLocation)
    }

    /// The CLI of these tests really runs without root, so mode bits apply to it.
    @Test func theUnprivilegedRunnerIsNotRoot() throws {
        let command = try Self.unprivileged([try Peer.require("id", package: "coreutils"), "-u"])
        let whoami = try BuiltExecutable.spawn(command.arguments, environment: [:], executable: command.executable)
            .waitForExit(timeout: 30)
        #expect(whoami.stdout == "\(Self.unprivilegedOwner)\n", "\(whoami.stderr)")
        #expect(whoami.stdout != "0\n")
    }

    @Test(
        arguments: Protection.writeProtected
    )
    func unprivilegedCLICannotWriteAProtectedKeychain(_ protection: Protection) throws {
        let filled = try Self.protectedKeychain(protection)
        let keychain = filled.keychain
        var restored = false
        defer { if !restored { try? Self.protect(keychain, nil, owner: Self.testOwner) } }

        let add = try latchkeyAsNobody(
            ["add-generic-password", "-s", "svc", "-a", "mallory", "-w", "pw"],
            keychain: keychain
        )
        expectRefusedAsReadOnly(add, "add")
        let update = try latchkeyAsNobody(
            ["add-generic-password", "-U", "-s", "svc", "-a", "alice", "-w", "x"],
            keychain: keychain
        )
        expectRefusedAsReadOnly(update, "add -U")
        let delete = try latchkeyAsNobody(["delete-generic-password", "-s", "svc", "-a", "bob"], keychain: keychain)
        expectRefusedAsReadOnly(delete, "delete")

        try Self.protect(keychain, nil, owner: Self.testOwner)
        restored = true
        try filled.expectUnchanged()
    }

    @Test(
        arguments: Protection.writeProtected.filter(\.journalFiles)
    )
    func unprivilegedCLIReadsAProtectedKeychainWithJournalFiles(_ protection: Protection) throws {
        let filled = try Self.protectedKeychain(protection)
        let keychain = filled.keychain
        var restored = false
        defer { if !restored { try? Self.protect(keychain, nil, owner: Self.testOwner) } }

        let find = try latchkeyAsNobody(
            ["find-generic-password", "-s", "svc", "-a", "alice", "-w"],
            keychain: keychain
        )
        #expect(find.status == 0, "find exited \(find.status): \(find.stderr)")
        #expect(find.stdout == "alice-secret\n")
        let missing = try latchkeyAsNobody(
            ["find-generic-password", "-s", "svc", "-a", "zoe", "-w"],
            keychain: keychain
        )
        #expect(missing.status == 44, "\(missing.stderr)")

        try Self.protect(keychain, nil, owner: Self.testOwner)
        restored = true
        try filled.expectUnchanged()
    }

    /// A keychain the process may not write opens read-only, so reads work. Known limit: when the
    /// directory is not writable either and no `-wal`/`-shm` exist, SQLite cannot open a WAL database at
    /// all (it must create the `-shm`), so the read fails with a clear read-only error.
    @Test(
        arguments: Protection.writeProtected.filter { !$0.journalFiles }
    )
    func unprivilegedCLIReadsAProtectedKeychainWithoutJournalFiles(_ protection: Protection) throws {
        let filled = try Self.protectedKeychain(protection)
        let keychain = filled.keychain
        var restored = false
        defer { if !restored { try? Self.protect(keychain, nil, owner: Self.testOwner) } }

        let find = try latchkeyAsNobody(
            ["find-generic-password", "-s", "svc", "-a", "alice", "-w"],
            keychain: keychain
        )
        #expect(find.status == 0 || find.stderr.contains("read-only"), "find exited \(find.status): \(find.stderr)")
        if protection.readOnlyDirectory {
            withKnownIssue("SQLite cannot open a WAL keychain without -shm in a directory it may not write") {
                #expect(find.status == 0, "find exited \(find.status): \(find.stderr)")
            }
        } else {
            #expect(find.status == 0, "find exited \(find.status): \(find.stderr)")
            #expect(find.stdout == "alice-secret\n")
        }

        try Self.protect(keychain, nil, owner: Self.testOwner)
        restored = true
        try filled.expectUnchanged()
    }

    /// Reading a 0400 keychain in a writable directory leaves a 0400 `-shm` (SQLite gives it the database
    /// file's mode); after `chmod 600` on the keychain, opening repairs the journal files' mode so its
    /// owner can write again.
    @Test
    func restoringWritePermissionAfterAReadMakesTheKeychainWritableAgain() throws {
        let protection = Protection(readOnlyFiles: true, readOnlyDirectory: false, journalFiles: false)
        let filled = try Self.protectedKeychain(protection)
        let keychain = filled.keychain
        defer { try? Self.protect(keychain, nil, owner: Self.testOwner) }

        _ = try latchkeyAsNobody(["find-generic-password", "-s", "svc", "-a", "alice", "-w"], keychain: keychain)
        try #require(chmod(keychain.path, 0o600) == 0)
        let add = try latchkeyAsNobody(
            ["add-generic-password", "-s", "svc", "-a", "frank", "-w", "pw"],
            keychain: keychain
        )
        #expect(add.status == 0, "add exited \(add.status): \(add.stderr)")
    }
}
