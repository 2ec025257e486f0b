import Foundation
import GRDB
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Nothing a caller stores may reach the disk in plaintext: not in the database, not in the WAL, not in
/// the shared-memory index, before or after a checkpoint.
struct PlaintextScanTests {
    /// A marker string that is unique in the test and easy to search for.
    static func marker(_ itemClass: ItemClass, _ what: String) -> String {
        "MRK-\(itemClass.rawValue)-\(what)-Zq7"
    }

    /// Attributes of every string- or data-valued kind, each holding its own marker.
    static func attributes(for itemClass: ItemClass) -> [AttributeName: AttributeValue] {
        func text(_ name: AttributeName) -> (AttributeName, AttributeValue) {
            (name, .string(marker(itemClass, name.rawValue)))
        }
        func bytes(_ name: AttributeName) -> (AttributeName, AttributeValue) {
            (name, .data(Data(marker(itemClass, name.rawValue).utf8)))
        }
        var pairs: [(AttributeName, AttributeValue)] = [
            text(.label), text(.syncViewHint), text(.tokenID), text(.sharingGroup), text(.pcsPublicKey),
            bytes(.pcsPublicIdentity), bytes(.accessControl), text(.alias),
        ]
        switch itemClass {
        case .genericPassword:
            pairs += [
                text(.account), bytes(.service), text(.generic), text(.itemDescription), text(.comment),
                text(.protected), text(.creator), text(.type),
            ]
        case .internetPassword:
            pairs += [
                bytes(.account), text(.server), text(.securityDomain), text(.path), text(.authenticationType),
                text(.protocol), text(.itemDescription), text(.comment), text(.protected),
            ]
        case .certificate:
            pairs += [
                bytes(.subject), bytes(.issuer), bytes(.serialNumber), text(.subjectKeyID), bytes(.publicKeyHash),
            ]
        case .key:
            pairs += [bytes(.applicationLabel), text(.applicationTag), text(.keyType)]
        case .identity:
            break
        }
        return Dictionary(uniqueKeysWithValues: pairs)
    }

    static func secret(_ itemClass: ItemClass) -> SecretData {
        SecretData(string: marker(itemClass, "secret"))
    }

    /// Every marker stored in the keychain, plus the access group (itself a marker).
    static func allMarkers(accessGroup: String) -> [String] {
        var markers = [accessGroup]
        for itemClass in ItemClass.storable {
            markers.append(marker(itemClass, "secret"))
            for value in attributes(for: itemClass).values {
                switch value {
                case .string(let text): markers.append(text)
                case .data(let bytes): markers.append(String(decoding: bytes, as: UTF8.self))
                default: Issue.record("non-text marker")
                }
            }
        }
        return markers
    }

    /// The encodings a scanner of the raw file would try.
    static func encodings(of text: String) -> [(name: String, bytes: Data)] {
        [
            ("UTF-8", Data(text.utf8)),
            ("UTF-16LE", text.data(using: .utf16LittleEndian) ?? Data()),
            ("UTF-16BE", text.data(using: .utf16BigEndian) ?? Data()),
        ]
    }

    /// The needles found in `haystack`, as readable descriptions.
    static func occurrences(of markers: [String], in haystack: Data) -> [String] {
        var found: [String] = []
        for marker in markers {
            for (name, needle) in encodings(of: marker) where haystack.range(of: needle) != nil {
                found.append("\(marker) (\(name))")
            }
        }
        return found
    }

    /// The names of the files among `files` that contain `needle`.
    static func files(_ files: [String: Data], contain needle: Data) -> [String] {
        files.filter { $0.value.range(of: needle) != nil }.map(\.key).sorted()
    }

    static func keychainFiles(_ path: String) -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm"] {
            if let contents = FileManager.default.contents(atPath: path + suffix) {
                files[suffix.isEmpty ? "db" : suffix] = contents
            }
        }
        return files
    }

    /// Asserts that no marker, the passphrase or the device secret appears in the keychain's files.
    static func expectNoPlaintext(
        _ keychain: TemporaryKeychain,
        markers: [String],
        phase: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let files = keychainFiles(keychain.path)
        #expect(files["db"] != nil, "\(phase): no database file", sourceLocation: sourceLocation)
        for (name, contents) in files.sorted(by: { $0.key < $1.key }) {
            let leaks = occurrences(of: markers, in: contents)
            #expect(leaks.isEmpty, "\(phase): \(name) contains \(leaks)", sourceLocation: sourceLocation)
            let passphraseLeaks = occurrences(of: ["correct horse battery staple"], in: contents)
            #expect(
                passphraseLeaks.isEmpty,
                "\(phase): \(name) contains the passphrase",
                sourceLocation: sourceLocation
            )
        }
        let deviceSecret = try #require(FileManager.default.contents(atPath: keychain.deviceSecretPath))
        #expect(deviceSecret.count == 32, sourceLocation: sourceLocation)
        #expect(
            Self.files(files, contain: deviceSecret).isEmpty,
            "\(phase): the device secret is in the keychain files",
            sourceLocation: sourceLocation
        )
    }

    static let accessGroup = "MRK-agrp-group-Zq7"

    /// The bytes of a string or data value.
    static func bytes(of value: AttributeValue) -> Data? {
        switch value {
        case .string(let text): Data(text.utf8)
        case .data(let bytes): bytes
        default: nil
        }
    }

    /// Adds one fully marked item of every storable class and checks that each reads back intact.
    static func populate(_ store: KeychainStore) throws {
        for itemClass in ItemClass.storable {
            try store.add(itemClass, attributes: attributes(for: itemClass), data: secret(itemClass))
        }
        for itemClass in ItemClass.storable {
            // The marker stored as `accc` is not a readable access control, so the core treats the item as
            // protected (fail closed): the test confirms the user's presence itself.
            let found = try #require(
                try store.find(
                    ItemQuery(itemClass, attributes: [.label: .string(marker(itemClass, "labl"))]),
                    withData: true,
                    authentication: .confirmed
                ).first
            )
            #expect(found.data == secret(itemClass))
            #expect(found.attributes[.accessGroup] == .string(accessGroup))
            for (name, value) in attributes(for: itemClass) {
                let stored = try #require(found.attributes[name], "\(itemClass) lost \(name)")
                #expect(bytes(of: stored) == bytes(of: value), "\(itemClass) \(name)")
            }
        }
    }

    @Test func markersNeverReachTheDatabaseWALOrSharedMemory() throws {
        let keychain = TemporaryKeychain(accessGroups: [Self.accessGroup])
        let store = try keychain.open()
        try Self.populate(store)
        let markers = Self.allMarkers(accessGroup: Self.accessGroup)
        #expect(markers.count > 60)
        #expect(Set(markers).count == markers.count, "markers must be distinct")

        // Before any checkpoint: the items live in the WAL, which must exist and be non-empty.
        let walSize = Self.keychainFiles(keychain.path)["-wal"]?.count ?? 0
        #expect(walSize > 0, "the items should still be in the WAL")
        try Self.expectNoPlaintext(keychain, markers: markers, phase: "before checkpoint")

        // After a checkpoint: the items moved into the main database file.
        let databaseBefore = Self.keychainFiles(keychain.path)["db"]
        try store.checkpoint()
        let afterCheckpoint = Self.keychainFiles(keychain.path)
        #expect(afterCheckpoint["-wal"]?.count ?? 0 == 0, "the checkpoint should have emptied the WAL")
        #expect(
            afterCheckpoint["db"] != databaseBefore,
            "the checkpoint should have written the items into the database"
        )
        try Self.expectNoPlaintext(keychain, markers: markers, phase: "after checkpoint")

        // After updates and deletes too (old page images linger in the WAL and the free list).
        try store.update(
            ItemQuery(.genericPassword),
            with: ItemChanges(
                attributes: [.comment: .string("MRK-genp-updated-Zq7")],
                data: SecretData(string: "MRK-genp-newsecret-Zq7")
            ),
            authentication: .confirmed
        )
        try store.delete(ItemQuery(.internetPassword))
        try Self.expectNoPlaintext(
            keychain,
            markers: markers + ["MRK-genp-updated-Zq7", "MRK-genp-newsecret-Zq7"],
            phase: "after update and delete"
        )
        try store.checkpoint()
        try store.close()
        try Self.expectNoPlaintext(
            keychain,
            markers: markers + ["MRK-genp-updated-Zq7", "MRK-genp-newsecret-Zq7"],
            phase: "after close"
        )
    }

    /// Backups written to files: an `export` archive holds no secret and no attribute value (every item is
    /// encrypted under the archive passphrase), and `dump-keychain` without `-d` holds no secret (it shows
    /// attributes by design). The archive is then imported into another keychain, to show that the scan read
    /// a real backup of every item.
    @Test func exportArchivesAndDumpsWithoutSecretsHoldNoSecretInPlaintext() throws {
        let keychain = TemporaryKeychain(accessGroups: [Self.accessGroup])
        let store = try keychain.open()
        for itemClass in ItemClass.storable {
            // No access control: a backup made without a terminal cannot confirm the user's presence.
            var attributes = Self.attributes(for: itemClass)
            attributes[.accessControl] = nil
            try store.add(itemClass, attributes: attributes, data: Self.secret(itemClass))
        }
        let deviceOnly = ["MRK-aku-acct-Zq7", "MRK-aku-svce-Zq7", "MRK-aku-secret-Zq7"]
        try store.add(
            .genericPassword,
            attributes: [
                .account: .string(deviceOnly[0]), .service: .string(deviceOnly[1]),
                .accessible: .string(Accessibility.whenUnlockedThisDeviceOnly.rawValue),
            ],
            data: SecretData(string: deviceOnly[2])
        )
        try store.close()
        let markers = Self.allMarkers(accessGroup: Self.accessGroup) + deviceOnly
        let secrets = ItemClass.storable.map { Self.marker($0, "secret") } + [deviceOnly[2]]
        let archivePassphrase = "MRK-archive-passphrase-Zq7"
        let environment = CLIRunner.environment(keychain)

        let archive = keychain.directory + "/backup.lkar"
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: environment,
            input: archivePassphrase + "\n"
        )
        try #require(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("exported \(ItemClass.storable.count) items"), "\(exported.stdout)")
        let sealed = try #require(FileManager.default.contents(atPath: archive))
        #expect(sealed.count > markers.count * 20, "the archive holds the items: \(sealed.count) bytes")
        let archiveLeaks = Self.occurrences(
            of: markers + [archivePassphrase, "correct horse battery staple"],
            in: sealed
        )
        #expect(archiveLeaks.isEmpty, "the archive contains \(archiveLeaks)")
        let deviceSecret = try #require(FileManager.default.contents(atPath: keychain.deviceSecretPath))
        #expect(sealed.range(of: deviceSecret) == nil, "the archive contains the device secret")
        let mode = try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        for (name, arguments) in [("dump.txt", ["dump-keychain"]), ("dump.json", ["dump-keychain", "--json"])] {
            let dumped = try CLIRunner.latchkey(arguments, environment: environment)
            try #require(dumped.status == 0, "\(name): \(dumped.stderr)")
            let file = keychain.directory + "/" + name
            try dumped.stdoutData.write(to: URL(fileURLWithPath: file))
            let written = try #require(FileManager.default.contents(atPath: file))
            let leaks = Self.occurrences(of: secrets + ["correct horse battery staple"], in: written)
            #expect(leaks.isEmpty, "\(name) contains \(leaks)")
            // The dump lists every item's attributes, so the scan read a dump of them all.
            for itemClass in ItemClass.storable {
                #expect(written.range(of: Data(Self.marker(itemClass, "labl").utf8)) != nil, "\(name): \(itemClass)")
            }
        }

        // The archive restores every portable item with its secret.
        let restoredKeychain = TemporaryKeychain(accessGroups: [Self.accessGroup])
        let imported = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin"],
            environment: CLIRunner.environment(restoredKeychain),
            input: archivePassphrase + "\n"
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        let restored = try restoredKeychain.open()
        for itemClass in ItemClass.storable {
            let query = ItemQuery(itemClass, attributes: [.label: .string(Self.marker(itemClass, "labl"))])
            #expect(try restored.findOne(query, withData: true).data == Self.secret(itemClass), "\(itemClass)")
        }
        try restored.close()
    }

    /// Proves the scanner itself works: a plaintext file holding every marker in every encoding is caught.
    @Test func scannerFindsEveryMarkerInAPlaintextControlFile() throws {
        let keychain = TemporaryKeychain(accessGroups: [Self.accessGroup])
        let markers = Self.allMarkers(accessGroup: Self.accessGroup)
        var control = Data("SQLite format 3\u{0}".utf8)
        for marker in markers {
            for (_, bytes) in Self.encodings(of: marker) {
                control.append(contentsOf: [0x00, 0x17])
                control.append(bytes)
            }
        }
        let controlPath = keychain.directory + "/control.bin"
        #expect(FileManager.default.createFile(atPath: controlPath, contents: control))
        let contents = try #require(FileManager.default.contents(atPath: controlPath))
        #expect(Self.occurrences(of: markers, in: contents).count == markers.count * 3)
        #expect(
            Self.occurrences(of: ["correct horse battery staple"], in: Data("xxcorrect horse battery staplexx".utf8))
                .count == 1
        )
        #expect(Self.occurrences(of: ["MRK-absent-Zq7"], in: contents).isEmpty)
    }

    /// The same scanner applied to the database with every encryption step bypassed would find the markers:
    /// writing the plaintext record bytes into a side table of the real file shows the scan reaches them.
    @Test func scannerReachesRowsInsideTheLiveDatabaseFiles() throws {
        let keychain = TemporaryKeychain(accessGroups: [Self.accessGroup])
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("plain")], data: SecretData(string: "x"))
        let probe = "MRK-probe-plaintext-Zq7"
        let queue = try DatabaseQueue(path: keychain.path)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE probe (value TEXT)")
            try db.execute(sql: "INSERT INTO probe (value) VALUES (?)", arguments: [probe])
        }
        try queue.close()
        let files = Self.keychainFiles(keychain.path)
        let found = files.values.contains { !Self.occurrences(of: [probe], in: $0).isEmpty }
        #expect(found, "a plaintext row written to the live file must be visible to the scanner")
        try store.close()
    }
}
