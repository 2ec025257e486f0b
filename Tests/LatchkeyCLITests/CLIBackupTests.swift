import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// `export` and `import` through the built binary, and the archive format through the core.
struct CLIBackupTests {
    static let archivePassphrase = "archive passphrase\n"

    /// Fills a keychain with one item of each storable class plus a ThisDeviceOnly item and binary secrets.
    func filledKeychain() throws -> TemporaryKeychain {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [
                .service: .string("svc"), .account: .string("alice"), .label: .string("Alice"),
                .comment: .string("c"), .generic: .data(Data([0, 1, 2])),
            ],
            data: SecretData(string: "generic secret")
        )
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("binary"), .accessible: .string("ck")],
            data: SecretData(Data([0, 255, 10, 13, 0]))
        )
        try store.add(
            .internetPassword,
            attributes: [
                .server: .string("example.com"), .protocol: .string("htps"), .port: .number(443),
                .path: .string("/a"), .account: .string("bob"),
            ],
            data: SecretData(string: "inet secret")
        )
        try store.add(
            .certificate,
            attributes: [
                .label: .string("cert"), .certificateType: .number(1), .issuer: .data(Data("i".utf8)),
                .serialNumber: .data(Data([7])),
            ],
            data: SecretData(Data([0x30, 0x00]))
        )
        try store.add(
            .key,
            attributes: [.label: .string("key"), .keyClass: .number(2), .applicationTag: .data(Data("tag".utf8))],
            data: SecretData(Data(repeating: 9, count: 32))
        )
        try store.add(
            .genericPassword,
            attributes: [
                .service: .string("device"), .account: .string("local"),
                .accessible: .string(Accessibility.whenUnlockedThisDeviceOnly.rawValue),
            ],
            data: SecretData(string: "stays here")
        )
        try store.add(
            .genericPassword,
            attributes: [.service: .string("synced"), .synchronizable: .number(1)],
            data: SecretData(string: "sync secret")
        )
        return keychain
    }

    /// Every item (with secrets) of a keychain, keyed by class and primary key, without the per-copy `sha1`.
    func snapshot(_ store: KeychainStore) throws -> [String: FoundItem] {
        var all: [String: FoundItem] = [:]
        for itemClass in ItemClass.storable {
            let items = (try? store.find(ItemQuery(itemClass, synchronizable: .any), limit: .all, withData: true)) ?? []
            for var item in items {
                item.persistentReference = Data()
                let key = ItemSchema.of(itemClass).primaryKey.map {
                    "\($0)=\(String(describing: item.attributes[$0]?.canonicalText))"
                }
                all[itemClass.rawValue + key.joined(separator: ",")] = item
            }
        }
        return all
    }

    @Test func exportDeleteImportLosesNothing() throws {
        let keychain = try filledKeychain()
        let environment = CLIRunner.environment(keychain)
        let archive = keychain.directory + "/backup.lkar"
        let before = try snapshot(try keychain.open())

        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing", "--json"],
            environment: environment,
            input: Self.archivePassphrase
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: exported.stdoutData) as? [String: Any])
        #expect(summary["exported"] as? Int == 6)
        #expect(summary["thisDeviceOnlyLeftOut"] as? Int == 1)
        let mode = try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        for secret in ["generic secret", "inet secret", "alice", "example.com"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) appears in the archive in the clear")
        }

        for itemClass in ItemClass.storable {
            _ = try? keychain.open().delete(ItemQuery(itemClass, synchronizable: .any))
        }
        let emptied = try snapshot(try keychain.open())
        #expect(emptied.isEmpty)

        let imported = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin", "--json"],
            environment: environment,
            input: Self.archivePassphrase
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        let importSummary = try #require(try JSONSerialization.jsonObject(with: imported.stdoutData) as? [String: Any])
        #expect(importSummary["imported"] as? Int == 6)
        #expect((importSummary["duplicates"] as? [Any])?.isEmpty == true)

        let after = try snapshot(try keychain.open())
        var expected = before
        expected = expected.filter { $0.value.attributes[.service] != .string("device") }
        #expect(Set(after.keys) == Set(expected.keys))
        for (key, item) in expected {
            let restored = try #require(after[key])
            #expect(restored.data == item.data, "\(key): secret changed")
            var original = item.attributes
            var copy = restored.attributes
            original[.sha1] = nil
            copy[.sha1] = nil
            #expect(copy == original, "\(key): attributes changed (dates included)")
        }
    }

    @Test func importReportsDuplicatesAndReplacesOnlyWhenAsked() throws {
        let keychain = try filledKeychain()
        let environment = CLIRunner.environment(keychain)
        let archive = keychain.directory + "/backup.lkar"
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: environment,
            input: Self.archivePassphrase
        )
        #expect(
            exported.stdout
                == "exported 6 items to \(archive)\nleft out 1 ThisDeviceOnly items (they never leave this machine)\n"
        )

        let store = try keychain.open()
        try store.update(
            ItemQuery(.genericPassword, attributes: [.service: .string("svc"), .account: .string("alice")]),
            with: ItemChanges(data: SecretData(string: "changed after export"))
        )
        try store.delete(ItemQuery(.internetPassword))

        let merged = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin"],
            environment: environment,
            input: Self.archivePassphrase
        )
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.hasPrefix("imported 1 items, 5 duplicates left alone\n"), "\(merged.stdout)")
        #expect(merged.stdout.contains("duplicate: genp \"svce\"=<blob>=\"svc\" \"acct\"=<blob>=\"alice\""))
        #expect(!merged.stdout.contains("changed after export") && !merged.stdout.contains("generic secret"))
        let kept = try keychain.open().findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
            withData: true
        )
        #expect(kept.data == SecretData(string: "changed after export"), "a duplicate is not overwritten")

        let replaced = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin", "--replace", "--json"],
            environment: environment,
            input: Self.archivePassphrase
        )
        let summary = try #require(try JSONSerialization.jsonObject(with: replaced.stdoutData) as? [String: Any])
        #expect(summary["replaced"] as? Int == 6)
        #expect(summary["imported"] as? Int == 0)
        let restored = try keychain.open().findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
            withData: true
        )
        #expect(restored.data == SecretData(string: "generic secret"))
        let count = try keychain.open().find(ItemQuery(.genericPassword, synchronizable: .any), limit: .all).count
        #expect(count == 4, "replacing does not duplicate")
    }

    @Test func importIntoAnotherKeychainWithAWrongPassphraseFails() throws {
        let keychain = try filledKeychain()
        let archive = keychain.directory + "/backup.lkar"
        _ = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: CLIRunner.environment(keychain),
            input: Self.archivePassphrase
        )
        let other = try CLIRunner.keychain()
        let wrong = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin"],
            environment: CLIRunner.environment(other),
            input: "nope\n"
        )
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("-25293"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("nope"))

        let passphraseFile = other.directory + "/archive-pass"
        try Data(Self.archivePassphrase.utf8).write(to: URL(fileURLWithPath: passphraseFile))
        let right = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-file", passphraseFile],
            environment: CLIRunner.environment(other)
        )
        #expect(right.status == 0, "\(right.stderr)")
        let item = try other.open().findOne(ItemQuery(.internetPassword), withData: true)
        #expect(item.data == SecretData(string: "inet secret"), "an archive moves items to another keychain")
    }

    @Test func exportRefusesToOverwriteWithoutForce() throws {
        let keychain = try filledKeychain()
        let environment = CLIRunner.environment(keychain)
        let archive = keychain.directory + "/backup.lkar"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: archive))
        let refused = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: environment,
            input: "p\n"
        )
        #expect(refused.status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == Data("keep me".utf8))
        let forced = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing", "--force"],
            environment: environment,
            input: "p\n"
        )
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    // MARK: Archive format (in-process)

    @Test func archiveHeaderIsDocumentedAndAuthenticated() throws {
        let item = KeychainArchive.Item(
            itemClass: .genericPassword,
            attributes: [.service: .string("s"), .creationDate: .date(Date(timeIntervalSince1970: 1_700_000_000.25))],
            data: SecretData(string: "x")
        )
        let passphrase = SecretData(string: "pw")
        let sealed = try KeychainArchive(items: [item]).sealed(passphrase: passphrase, cost: .testing)
        #expect(sealed.prefix(8) == Data("LKARCHV1".utf8))
        #expect(sealed[8] == 1 && sealed[9] == 1)
        let parameterLength = Int(sealed[10]) << 8 | Int(sealed[11])
        #expect(parameterLength == 9 + 32)
        #expect(sealed[12] == 10, "log2 N of the testing cost")

        let opened = try KeychainArchive.open(sealed, passphrase: passphrase)
        #expect(opened.items == [item])

        for index in [0, 9, 12, 20, sealed.count / 2, sealed.count - 1] {
            var tampered = sealed
            tampered[index] ^= 0x01
            #expect(throws: KeychainError.self, "byte \(index)") {
                try KeychainArchive.open(tampered, passphrase: passphrase)
            }
        }
        expect(code: .authFailed) { _ = try KeychainArchive.open(sealed, passphrase: SecretData(string: "other")) }
        expect(code: .decode) { _ = try KeychainArchive.open(Data("not an archive".utf8), passphrase: passphrase) }
        expect(code: .decode) { _ = try KeychainArchive.open(sealed.prefix(40), passphrase: passphrase) }
        expect(code: .param) { _ = try KeychainArchive(items: []).sealed(passphrase: SecretData(string: "")) }
    }

    @Test func restoreKeepsDatesAndReportsDuplicates() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        let created = Date(timeIntervalSince1970: 1_600_000_000)
        let item = KeychainArchive.Item(
            itemClass: .genericPassword,
            attributes: [.service: .string("old"), .creationDate: .date(created), .modificationDate: .date(created)],
            data: SecretData(string: "v1")
        )
        #expect(try store.restore(item) == .added)
        let found = try store.findOne(
            ItemQuery(.genericPassword, attributes: [.service: .string("old")]),
            withData: true
        )
        #expect(found.attributes[.creationDate] == .date(created))
        #expect(found.attributes[.modificationDate] == .date(created))
        var newer = item
        newer.data = SecretData(string: "v2")
        #expect(try store.restore(newer) == .duplicate)
        #expect(try store.findOne(ItemQuery(.genericPassword), withData: true).data == SecretData(string: "v1"))
        #expect(try store.restore(newer, replacingExisting: true) == .replaced)
        #expect(try store.findOne(ItemQuery(.genericPassword), withData: true).data == SecretData(string: "v2"))
    }
}

/// Expects `body` to throw a `KeychainError` with `code`.
private func expect(
    code: KeychainError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected OSStatus \(code.rawValue), nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? KeychainError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}

extension AttributeValue {
    /// A stable text of the value for keys in test dictionaries.
    fileprivate var canonicalText: String {
        switch self {
        case .string(let text): "s:\(text)"
        case .data(let data): "d:\(data.base64EncodedString())"
        case .number(let number): "n:\(number)"
        case .double(let number): "f:\(number)"
        case .date(let date): "t:\(date.timeIntervalSince1970)"
        }
    }
}
