import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

@testable import LatchkeySecretService

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// `latchkey import --from gnome-keyring` and `GnomeKeyringImport` (issue 24, item 4): gnome-keyring's own test
/// keyrings as known answers, then keyring files written by the real gnome-keyring (Debian's
/// `gnome-keyring-daemon` on a private bus) imported through the agent and in process, and read back through
/// Latchkey's Secret Service by `secret-tool` and a dbus-python client.
struct GnomeKeyringImportTests {
    // MARK: gnome-keyring's own fixtures

    @Test func gnomeKeyringsEncryptedFixtureOpensWithItsPassword() throws {
        let file = try Self.write(GnomeKeyringFixtures.encrypted, named: "unit.keyring")
        let opened = try GnomeKeyringFile.read(file.path).open(
            password: SecretData(string: GnomeKeyringFixtures.password)
        )
        Self.expectFixtureItems(opened)
    }

    @Test func gnomeKeyringsPlainFixtureReadsAsTheSameKeyring() throws {
        let file = try Self.write(Data(GnomeKeyringFixtures.plain.utf8), named: "unit.keyring")
        let read = try GnomeKeyringFile.read(file.path)
        #expect(!read.isEncrypted)
        Self.expectFixtureItems(try read.open(password: nil))
    }

    @Test func aWrongPasswordIsAuthFailedNamingTheFile() throws {
        let file = try Self.write(GnomeKeyringFixtures.encrypted, named: "unit.keyring")
        let error = try #require(throws: KeychainError.self) {
            _ = try GnomeKeyringFile.read(file.path).open(password: SecretData(string: "wrong"))
        }
        #expect(error.code == .authFailed)
        #expect(error.message.contains(file.path))
    }

    @Test(arguments: [0, 40, 100, 300, 732])
    func aTruncatedFileIsDamagedNamingIt(length: Int) throws {
        let file = try Self.write(GnomeKeyringFixtures.encrypted.prefix(length), named: "unit.keyring")
        let error = try #require(throws: KeychainError.self) {
            _ = try GnomeKeyringFile.read(file.path).open(password: SecretData(string: GnomeKeyringFixtures.password))
        }
        #expect(error.code == .decode)
        #expect(error.message.contains(file.path))
    }

    @Test func importAllLeavesAMarkerAndASecondImportAddsNothing() throws {
        // The library entry point the agent calls at the first unlock, on an in-process store.
        let keychain = TemporaryKeychain()
        let store = try keychain.open(accessGroups: [SecretServiceBackend.accessGroup])
        let directory = keychain.directory + "/keyrings"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try GnomeKeyringFixtures.encrypted.write(to: URL(fileURLWithPath: directory + "/login.keyring"))
        try Data(GnomeKeyringFixtures.plain.utf8).write(to: URL(fileURLWithPath: directory + "/Old Stuff.keyring"))
        try Data("Old Stuff\n".utf8).write(to: URL(fileURLWithPath: directory + "/default"))
        #expect(try GnomeKeyringImport.hasImported(in: store) == false)
        let password = SecretData(string: GnomeKeyringFixtures.password)
        let first = try GnomeKeyringImport.importAll(from: directory, password: password, into: store)
        #expect(first.imported == 4)
        #expect(first.duplicates == 0)
        #expect(first.keyrings.map(\.collection) == ["Old_20Stuff", "login"])
        #expect(first.defaultAlias == "Old_20Stuff")
        #expect(try GnomeKeyringImport.hasImported(in: store))
        let items = SecretItemStore(service: store, didWrite: {})
        let barnyard = try items.search(["dog": "woof"], in: "login")
        #expect(barnyard.map(\.label) == ["Barnyard"])
        #expect(
            barnyard.first?.attributes == [
                "dog": "woof", "bird": "cheep", "iguana": "", "num": "3",
                "xdg:schema": "org.freedesktop.Secret.Generic",
            ]
        )
        #expect(barnyard.first?.owner == SecretCollections.userOwner)
        #expect(barnyard.first?.created == Date(timeIntervalSince1970: 1_198_027_852))
        let registry = try items.loadCollections()
        #expect(registry.collections["Old_20Stuff"]?.label == "unit-test-keyring")
        #expect(registry.collection(forAlias: "default") == "Old_20Stuff")
        let second = try GnomeKeyringImport.importAll(from: directory, password: password, into: store)
        #expect(second.imported == 0)
        #expect(second.duplicates == 4)
        #expect(try items.search([:], in: nil).count == 4)
    }

    // MARK: The real gnome-keyring

    /// The login password of the keyrings gnome-keyring writes here (and of its second collection).
    static let loginPassword = "gnome login password"

    /// Keyrings written by the real gnome-keyring: `login` (its password), `Work Stuff` (the same password),
    /// `Other` (another password) and `Plain` (no password: the textual format), with items stored by
    /// `secret-tool` (with and without `xdg:schema`, a uint32-looking value, a non-ASCII label); what
    /// gnome-keyring itself showed of them, read before it was stopped.
    static func gnomeKeyrings() throws -> (peer: GnomeKeyringPeer, shown: [String]) {
        let peer = try GnomeKeyringPeer(password: loginPassword)
        func store(_ arguments: [String], _ secret: String) throws {
            let stored = try peer.secretTool(["store"] + arguments, input: secret)
            try #require(stored.status == 0, "secret-tool store: \(stored.stderr)")
        }
        try store(["--label", "Example", "service", "example.com", "username", "alice"], "s3cret")
        try store(
            ["--label", "Typed ✓", "xdg:schema", "org.example.Test", "service", "x.example", "num", "3"],
            "p=1 2"
        )
        try store(["--label", "Mail", "service", "smtp.example", "username", "bob", "server", "smtp"], "m@il")
        let work = try peer.createCollection(label: "Work Stuff", password: loginPassword)
        try store(["--collection=\(work)", "--label", "VPN", "service", "vpn.example", "username", "carol"], "v-p-n")
        let other = try peer.createCollection(label: "Other", password: "another password")
        try store(["--collection=\(other)", "--label", "Elsewhere", "service", "else.example"], "elsewhere")
        let plain = try peer.createCollection(label: "Plain", password: "")
        try store(["--collection=\(plain)", "--label", "Open", "service", "open.example", "username", "dave"], "open")
        let shown = try peer.dump()
        peer.stop()
        return (peer, shown)
    }

    @Test func keyringsWrittenByGnomeKeyringReadBackThroughTheAgentsSecretService() throws {
        let (peer, shown) = try Self.gnomeKeyrings()
        // gnome-keyring names the file after the label and escapes its path element; Latchkey keeps the path.
        #expect(shown.contains("collection Work_5fStuff Work Stuff items=1"), "\(shown)")
        let before = try peer.hashes()
        #expect(
            ["login.keyring", "Work_Stuff.keyring", "Other.keyring", "Plain.keyring"].allSatisfy(before.keys.contains)
        )
        let harness = try SecretServiceHarness()
        // The CLI writes the Secret Service's group through the agent; the dump script and secret-tool read the
        // user's items (imported items belong to the user).
        for (program, group) in [
            (BuiltExecutable.latchkey, SecretServiceBackend.accessGroup),
            (peer.dumpScript, SecretServiceApplications.group(ofOwner: SecretCollections.userOwner)),
            (harness.secretToolPath, SecretServiceApplications.group(ofOwner: SecretCollections.userOwner)),
        ] {
            let granted = try harness.latchkey(["access", "grant", program, group])
            try #require(granted.status == 0, "access grant: \(granted.stderr)")
        }
        var environment = harness.environment
        environment["XDG_DATA_HOME"] = peer.dataHome

        // Without --skip-locked, the keyring the password does not open fails the whole import.
        let refused = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", "--passphrase-stdin"],
            environment: environment,
            input: Self.loginPassword
        )
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(peer.keyrings + "/Other.keyring"), "\(refused.stderr)")
        #expect(refused.stderr.contains("-25293"), "\(refused.stderr)")
        #expect(try peer.dump(environment: harness.environment) == ["collection login Login items=0", "default login"])

        let imported = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", "--passphrase-stdin", "--skip-locked", "--json"],
            environment: environment,
            input: Self.loginPassword
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\"imported\" : 5"), "\(imported.stdout)")
        #expect(imported.stderr.contains("skipped \(peer.keyrings)/Other.keyring"), "\(imported.stderr)")

        // Every item gnome-keyring showed (but Other's), with its collection, label, attributes, secret and
        // times, now shown by Latchkey's Secret Service.
        // gnome-keyring shows the generic schema on an item stored without one once it has read it from its file
        // (not before): Latchkey shows it always, so the comparison leaves that one value out on both sides.
        let expected = Self.withoutGenericSchema(
            shown.filter { !$0.contains("\"Other\"") && !$0.hasPrefix("collection Other ") }
        )
        let afterImport = try peer.dump(environment: harness.environment)
        #expect(Self.withoutGenericSchema(afterImport) == expected, "\(afterImport) \(expected)")
        #expect(afterImport.contains { $0.contains("\"VPN\"") && $0.contains("org.freedesktop.Secret.Generic") })
        let lookedUp = try harness.secretTool(["lookup", "service", "vpn.example", "username", "carol"])
        #expect(lookedUp.stdout == "v-p-n", "\(lookedUp.stderr)")
        let found = try harness.secretTool(["search", "--all", "xdg:schema", "org.example.Test"])
        // secret-tool writes the attributes on standard error.
        #expect(found.stderr.contains("attribute.num = 3"), "\(found.stdout) \(found.stderr)")
        #expect(found.stdout.contains("secret = p=1 2"), "\(found.stdout) \(found.stderr)")

        // A second run adds nothing; Other, with its own password, is added on its own.
        let again = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", "--passphrase-stdin", "--skip-locked"],
            environment: environment,
            input: Self.loginPassword
        )
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("imported 0 items, 5 duplicates left alone"), "\(again.stdout)")
        let other = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", "--passphrase-stdin", peer.keyrings + "/Other.keyring"],
            environment: environment,
            input: "another password"
        )
        #expect(other.status == 0, "\(other.stderr)")
        #expect(
            Self.withoutGenericSchema(try peer.dump(environment: harness.environment))
                == Self.withoutGenericSchema(shown)
        )
        #expect(try peer.hashes() == before)
    }

    @Test func inProcessImportRefusesDamagedFilesAndWrongPasswordsWritingNothing() throws {
        let (peer, shown) = try Self.gnomeKeyrings()
        let keychain = TemporaryKeychain(accessGroups: ["com.example.app"])
        var environment = CLIRunner.environment(keychain, extra: ["LATCHKEY_AGENT": "off"])
        environment["LATCHKEY_IMPORT_PASSPHRASE"] = Self.loginPassword
        environment["XDG_DATA_HOME"] = peer.dataHome
        let created = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "--passphrase-stdin"],
            environment: environment,
            input: "correct horse battery staple"
        )
        try #require(created.status == 0, "create-keychain: \(created.stderr)")
        let before = try peer.hashes()
        let login = peer.keyrings + "/login.keyring"
        let plain = peer.keyrings + "/Plain.keyring"

        // A damaged copy (one byte of the encrypted part flipped, then a truncated one) is named, nothing written.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: login)))
        bytes[bytes.count - 20] ^= 0x01
        let damaged = keychain.directory + "/damaged.keyring"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let flipped = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", plain, damaged],
            environment: environment
        )
        #expect(flipped.status == 1)
        #expect(flipped.stderr.contains(damaged), "\(flipped.stderr)")
        let truncated = keychain.directory + "/truncated.keyring"
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: truncated))
        let cut = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", plain, truncated],
            environment: environment
        )
        #expect(cut.status == 1)
        #expect(cut.stderr.contains(truncated) && cut.stderr.contains("-26275"), "\(cut.stderr)")
        let wrong = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", plain, login],
            environment: environment.merging(["LATCHKEY_IMPORT_PASSPHRASE": "wrong"]) { _, new in new }
        )
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains(login) && wrong.stderr.contains("-25293"), "\(wrong.stderr)")
        var reader = environment
        reader["LATCHKEY_ACCESS_GROUPS"] = SecretServiceBackend.accessGroup
        let nothing = try CLIRunner.latchkey(["find-generic-password", "-s", "open.example"], environment: reader)
        #expect(nothing.status == 44, "\(nothing.stdout) \(nothing.stderr)")

        // The whole directory in process: every item, then a second run adds nothing.
        let imported = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", "--skip-locked"],
            environment: environment
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 5 items, 0 duplicates left alone"), "\(imported.stdout)")
        let read = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "smtp.example", "-a", "bob", "-w"],
            environment: reader
        )
        #expect(read.stdout == "m@il\n", "\(read.stderr)")
        let again = try CLIRunner.latchkey(
            ["import", "--from", "gnome-keyring", "--skip-locked"],
            environment: environment
        )
        #expect(again.stdout.contains("imported 0 items, 5 duplicates left alone"), "\(again.stdout)")
        #expect(try peer.hashes() == before)
    }

    // MARK: Helpers

    /// Dump lines without an `xdg:schema` of the generic schema.
    private static func withoutGenericSchema(_ lines: [String]) -> [String] {
        lines.map { line in
            line.replacingOccurrences(of: ", \"xdg:schema\": \"org.freedesktop.Secret.Generic\"", with: "")
                .replacingOccurrences(of: "\"xdg:schema\": \"org.freedesktop.Secret.Generic\", ", with: "")
                .replacingOccurrences(of: "\"xdg:schema\": \"org.freedesktop.Secret.Generic\"", with: "")
        }
    }

    private static func write(_ data: Data, named name: String) throws -> (path: String, keychain: TemporaryKeychain) {
        let keychain = TemporaryKeychain()
        let path = keychain.directory + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return (path, keychain)
    }

    private static func expectFixtureItems(_ keyring: GnomeKeyring, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(keyring.label == "unit-test-keyring", sourceLocation: sourceLocation)
        #expect(keyring.items.map(\.id) == [2, 3], sourceLocation: sourceLocation)
        #expect(keyring.items.map(\.label) == ["Another display name", "Barnyard"], sourceLocation: sourceLocation)
        // Item type 0 without xdg:schema: the generic schema, as gnome-keyring shows such an item read from its file.
        let generic = ["xdg:schema": "org.freedesktop.Secret.Generic"]
        #expect(
            keyring.items.map(\.attributes)
                == [generic, generic.merging(["dog": "woof", "bird": "cheep", "iguana": "", "num": "3"]) { $1 }],
            sourceLocation: sourceLocation
        )
        #expect(
            keyring.items.allSatisfy { $0.secret == SecretData(string: "item-secret") },
            sourceLocation: sourceLocation
        )
        let time = Date(timeIntervalSince1970: 1_198_027_852)
        #expect(keyring.items.allSatisfy { $0.created == time && $0.modified == time }, sourceLocation: sourceLocation)
    }
}
