import Foundation
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Search tags survive backups, restores and migrations (issue 16 follow-up): each item's tag text is sealed
/// in its record beside the tokens (docs/storage-format.md §11), read back when a find asks
/// (`FindRequest.withSearchTags`), carried by the export archive (content version 2) and by
/// `KeychainMigration`, in process and through a real agent; the Secret Service finds an exported and
/// re-imported item by any attribute.
struct SearchTagBackupTests {
    static let archivePassphrase = SecretData(string: "archive passphrase")

    /// Tags with what a careless copy would lose: the same é precomposed and decomposed (two tags), an empty
    /// tag, a long one.
    static let tags = ["ss", "c:login", "a:4:user=alice", "\u{E9}", "e\u{301}", "", String(repeating: "t", count: 300)]

    /// The item's tags as sets of UTF-8 bytes (the order of tags in a record is the order of their tokens).
    static func byteSet(_ tags: [String]?) -> Set<[UInt8]>? {
        tags.map { Set($0.map { Array($0.utf8) }) }
    }

    /// The accounts of the generic passwords carrying every tag of `tags`, sorted; empty when none.
    static func accounts(_ service: any KeychainService, tags: [String]) throws -> [String] {
        let query = ItemQuery(.genericPassword, synchronizable: .any, searchTags: tags)
        return try service.findAll(query).compactMap { $0.attributes[.account]?.stringValue }.sorted()
    }

    /// Every generic password with its tags read back.
    static func tagged(_ service: any KeychainService) throws -> [FoundItem] {
        let request = FindRequest(ItemQuery(.genericPassword, synchronizable: .any), limit: .all, withSearchTags: true)
        return try service.perform(.find(request)).items()
    }

    /// A keychain holding a tagged item, a second one sharing a tag, and an item without tags.
    static func filled(_ keychain: TemporaryKeychain) throws -> KeychainStore {
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("alice")],
            data: SecretData(string: "alice secret"),
            searchTags: tags
        )
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("bob")],
            data: SecretData(string: "bob secret"),
            searchTags: ["ss", "a:3:user=bob"]
        )
        try store.add(
            .genericPassword,
            attributes: [.service: .string("plain"), .account: .string("carol")],
            data: nil
        )
        return store
    }

    /// The record's tag-text trailer (docs/storage-format.md §5) follows the tokens, where readers before tag
    /// text stop: the attributes and tokens read the same with or without it, the text comes back exact and
    /// in the tokens' order, a record with tokens only has unknown text, and a count unlike the tokens' is
    /// corrupt.
    @Test func theTagTextTrailerIsInvisibleToEarlierReadersAndExact() throws {
        let attributes: [AttributeName: AttributeValue] = [.account: .string("a"), .port: .number(7)]
        let tokens = [Data(repeating: 1, count: 16), Data(repeating: 0xFE, count: 16)]
        let text = ["e\u{301}", String(repeating: "\u{1F511}", count: 40)]
        let record = RecordCodec.encode(attributes, tags: tokens, tagText: text)
        let tokensOnly = RecordCodec.encode(attributes, tags: tokens)
        #expect(record.count % RecordCodec.padding == 0)
        #expect(record.count > tokensOnly.count)
        #expect(try RecordCodec.decode(record) == attributes, "the decoder before search tags")
        let early = try RecordCodec.decodeRecord(record)
        #expect(early.attributes == attributes)
        #expect(early.tags == tokens)
        #expect(early.tagText == nil, "not asked for")
        let full = try RecordCodec.decodeRecord(record, withTagText: true)
        #expect(full.tags == tokens)
        #expect(full.tagText.map { $0.map { Array($0.utf8) } } == text.map { Array($0.utf8) })
        #expect(try RecordCodec.decodeRecord(tokensOnly, withTagText: true).tagText == nil, "tokens only: unknown")
        #expect(try RecordCodec.decodeRecord(RecordCodec.encode(attributes), withTagText: true).tagText == [])
        var damaged = record
        let trailer = try #require(damaged.firstRange(of: Data([RecordCodec.tagTextMarker, 0, 2])))
        damaged[trailer.upperBound - 1] = 1
        expectKeychainError(.decode) { try RecordCodec.decodeRecord(damaged, withTagText: true) }
    }

    @Test func aFindReturnsTagsOnlyWhenAskedAndAsStored() throws {
        let keychain = TemporaryKeychain()
        let store = try Self.filled(keychain)
        let plain = try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("alice")]))
        #expect(plain.searchTags == nil, "not asked")
        let byAccount = Dictionary(
            uniqueKeysWithValues: try Self.tagged(store).map { ($0.attributes[.account]?.stringValue ?? "", $0) }
        )
        #expect(Self.byteSet(byAccount["alice"]?.searchTags) == Self.byteSet(Self.tags))
        #expect(byAccount["alice"]?.searchTags?.count == Self.tags.count, "é and e+U+0301 stay two tags")
        #expect(Self.byteSet(byAccount["bob"]?.searchTags) == Self.byteSet(["ss", "a:3:user=bob"]))
        #expect(byAccount["carol"]?.searchTags == [], "an item without tags has none, not unknown ones")
        // An update that does not name tags keeps them, text included.
        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
            with: ItemChanges(attributes: [.comment: .string("changed")], data: SecretData(string: "new"))
        )
        let updated = try Self.tagged(store).first { $0.attributes[.account] == .string("alice") }
        #expect(Self.byteSet(updated?.searchTags) == Self.byteSet(Self.tags))
        // A find inside a batch answers the same way.
        let query = ItemQuery(.genericPassword, attributes: [.account: .string("bob")])
        let batch = try store.batch([
            .find(FindRequest(query, withSearchTags: true)), .find(FindRequest(query)),
        ])
        guard batch.count == 2, case .items(let asked) = batch[0].storage, case .items(let unasked) = batch[1].storage
        else {
            Issue.record("the batch answered \(batch)")
            return
        }
        #expect(Self.byteSet(asked.first?.searchTags) == Self.byteSet(["ss", "a:3:user=bob"]))
        #expect(unasked.first?.searchTags == nil)
        // A tag the record's 16-bit lengths cannot hold is refused, not stored without its text.
        expectKeychainError(.param) {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("long")],
                data: nil,
                searchTags: [String(repeating: "x", count: RecordCodec.maximumTagLength + 1)]
            )
        }
    }

    @Test func tagsSurviveExportAndImportIntoANewKeychain() throws {
        let source = TemporaryKeychain()
        let store = try Self.filled(source)
        let archive = KeychainArchive(items: try Self.tagged(store).map(KeychainArchive.Item.init))
        let file = try archive.sealed(passphrase: Self.archivePassphrase, cost: .testing)
        let opened = try KeychainArchive.open(file, passphrase: Self.archivePassphrase)
        #expect(opened.items == archive.items)

        let destination = TemporaryKeychain()
        let restoredStore = try destination.open()
        for item in opened.items { #expect(try restoredStore.restore(item) == .added) }
        #expect(try Self.accounts(restoredStore, tags: ["ss"]) == ["alice", "bob"])
        #expect(try Self.accounts(restoredStore, tags: ["\u{E9}", "a:4:user=alice"]) == ["alice"])
        #expect(try Self.accounts(restoredStore, tags: ["e\u{301}"]) == ["alice"])
        #expect(try Self.accounts(restoredStore, tags: ["a:3:user=bob"]) == ["bob"])
        #expect(try Self.accounts(restoredStore, tags: ["a:4:user=carol"]) == [])
        let alice = try Self.tagged(restoredStore).first { $0.attributes[.account] == .string("alice") }
        #expect(Self.byteSet(alice?.searchTags) == Self.byteSet(Self.tags), "the copy can be backed up again")
        #expect((try restoredStore.verifyIntegrity().mismatchedTags ?? []).isEmpty)
        // Replacing an existing item gives it the archive's tags.
        try restoredStore.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("bob")]),
            with: ItemChanges(searchTags: ["other"])
        )
        let bob = try #require(opened.items.first { $0.attributes[.account] == .string("bob") })
        #expect(try restoredStore.restore(bob, replacingExisting: true) == .replaced)
        #expect(try Self.accounts(restoredStore, tags: ["a:3:user=bob"]) == ["bob"])
        #expect(try Self.accounts(restoredStore, tags: ["other"]) == [])
    }

    /// An archive written before tags were carried (content version 1, as docs/cli.md showed it) still
    /// imports; its items have no tags.
    @Test func anArchiveWithoutTagsStillImports() throws {
        let created = 785_000_000.5
        let document = """
            {"created": \(created), "format": "latchkey-archive", "version": 1, "items": [
              {"class": "genp", "attributes": {"svce": {"s": "old"}, "acct": {"s": "dave"}, \
            "cdat": {"t": 700000000}}, "data": "\(Data("old secret".utf8).base64EncodedString())"}]}
            """
        let file = try KeychainArchive.sealed(
            payload: Data(document.utf8),
            passphrase: Self.archivePassphrase,
            cost: .testing
        )
        let opened = try KeychainArchive.open(file, passphrase: Self.archivePassphrase)
        #expect(opened.items.count == 1)
        #expect(opened.items.first?.searchTags == [])
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for item in opened.items { #expect(try store.restore(item) == .added) }
        let found = try #require(try Self.tagged(store).first)
        #expect(found.attributes[.account] == .string("dave"))
        #expect(found.data == nil)
        #expect(found.searchTags == [])
        #expect(try store.findOne(ItemQuery(.genericPassword), withData: true).data == SecretData(string: "old secret"))
        // A version this build does not know is refused, not half read.
        let future = try KeychainArchive.sealed(
            payload: Data(document.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 3").utf8),
            passphrase: Self.archivePassphrase,
            cost: .testing
        )
        expectKeychainError(.decode) { try KeychainArchive.open(future, passphrase: Self.archivePassphrase) }
    }

    /// An item whose tags were written before their text was kept (tokens only) keeps working: found by its
    /// tags, unknown (`nil`) when read back, carried by an in-process migration (its tokens are valid in the
    /// same file), and exported without tags, counted.
    @Test func anItemWithTokensOnlyIsFoundAndMigratedButItsTagsAreUnknown() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        try store.transaction { transaction in
            let tokens = transaction.tokens.tagTokens(.genp, ["legacy"])
            try transaction.add(
                .genericPassword,
                attributes: [.service: .string("legacy"), .account: .string("old")],
                data: SecretData(string: "v"),
                carrying: SealedTags(tokens: tokens, text: nil)
            )
        }
        #expect(try Self.accounts(store, tags: ["legacy"]) == ["old"])
        #expect(try Self.tagged(store).first?.searchTags == nil)
        let legacy = Keychain(service: "legacy").keychainService(store)
        let report = try legacy.migrate(to: Keychain(service: "modern").keychainService(store))
        #expect(report.entries.map(\.action) == [.moved])
        let moved = try store.findAll(
            ItemQuery(.genericPassword, attributes: [.service: .string("modern")], searchTags: ["legacy"])
        )
        #expect(moved.count == 1)

        let exported = try CLIRunner.latchkey(
            ["export", "-o", keychain.directory + "/old.lkar", "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: CLIRunner.environment(keychain),
            input: "archive passphrase\n"
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("exported 1 items without their search tags"), "\(exported.stdout)")
    }

    @Test func tagsSurviveAMigrationInProcess() throws {
        let test = try TestKeychain.inMemory()
        let store = test.store
        let group = try #require(store.options.accessGroups.first)
        for (account, tags) in [("a", ["x", "shared"]), ("b", ["y", "shared"])] {
            try store.add(
                .genericPassword,
                attributes: [.service: .string("legacy"), .account: .string(account), .accessGroup: .string(group)],
                data: SecretData(string: "secret-" + account),
                searchTags: tags
            )
        }
        let old = test.keychain(service: "legacy")
        // Re-classing in place, then a move to another service, then a copy back.
        try old.migrate(to: old.accessibility(.afterFirstUnlock))
        #expect(try Self.accounts(store, tags: ["shared"]) == ["a", "b"])
        try old.migrate(to: test.keychain(service: "modern"))
        #expect(try Self.accounts(store, tags: ["x"]) == ["a"])
        let modern = try store.findAll(
            ItemQuery(.genericPassword, attributes: [.service: .string("modern")], searchTags: ["shared"])
        )
        #expect(modern.count == 2)
        try test.keychain(service: "modern").migrate(to: old, mode: .copy)
        let copies = try store.findAll(
            ItemQuery(.genericPassword, attributes: [.service: .string("legacy")], searchTags: ["y"])
        )
        #expect(copies.compactMap { $0.attributes[.account]?.stringValue } == ["b"])
        #expect(try Self.accounts(store, tags: ["y", "shared"]) == ["b", "b"])
        let read = try Self.tagged(store).filter { $0.attributes[.service] == .string("legacy") }
        #expect(read.allSatisfy { Self.byteSet($0.searchTags)?.contains(Array("shared".utf8)) == true })
    }

    /// No tag text reaches the disk in plaintext: not the source's file, WAL or shared memory, not the
    /// archive, not the restored keychain's files (before and after a checkpoint).
    @Test func noTagTextReachesTheKeychainFilesOrTheArchive() throws {
        let markers = ["MRK-tag-one-Zq7", "MRK-tag-two-Zq7", "MRK-tag-\u{E9}-Zq7"]
        let source = TemporaryKeychain()
        let store = try source.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("scan")],
            data: SecretData(string: "scan secret"),
            searchTags: markers
        )
        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("scan")]),
            with: ItemChanges(attributes: [.comment: .string("kept")])
        )
        try PlaintextScanTests.expectNoPlaintext(source, markers: markers, phase: "source before checkpoint")
        let file = try KeychainArchive(items: try Self.tagged(store).map(KeychainArchive.Item.init))
            .sealed(passphrase: Self.archivePassphrase, cost: .testing)
        #expect(PlaintextScanTests.occurrences(of: markers, in: file).isEmpty, "the archive holds tag text")

        let destination = TemporaryKeychain()
        let restored = try destination.open()
        for item in try KeychainArchive.open(file, passphrase: Self.archivePassphrase).items {
            try restored.restore(item)
        }
        #expect(try Self.accounts(restored, tags: markers) == ["scan"])
        #expect(PlaintextScanTests.keychainFiles(destination.path)["-wal"]?.isEmpty == false)
        try PlaintextScanTests.expectNoPlaintext(destination, markers: markers, phase: "restored before checkpoint")
        try restored.checkpoint()
        try store.checkpoint()
        try PlaintextScanTests.expectNoPlaintext(destination, markers: markers, phase: "restored after checkpoint")
        try PlaintextScanTests.expectNoPlaintext(source, markers: markers, phase: "source after checkpoint")
    }

    /// `latchkey export` and `import` through real agents: items written with tags by a client of one agent
    /// are found by their tags through another agent serving the keychain the archive was imported into;
    /// a migration through the agent carries them too.
    @Test func exportAndImportThroughARealAgentKeepTags() throws {
        let source = try AgentHarness()
        try source.unlock()
        let client = try Self.latchkeyGroupClient(source)
        for (account, tags) in [("alice", Self.tags), ("bob", ["ss", "a:3:user=bob"])] {
            try client.add(
                .genericPassword,
                attributes: [
                    .service: .string("svc"), .account: .string(account),
                    .accessGroup: .string(BuiltExecutable.latchkeyGroup),
                ],
                data: SecretData(string: account + " secret"),
                searchTags: tags
            )
        }
        let archive = source.keychain.directory + "/tags.lkar"
        let exported = try source.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing", "--json"],
            input: "archive passphrase\n",
            extra: ["LATCHKEY_AGENT": "required"]
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        let summary = try JSONSerialization.jsonObject(with: exported.stdoutData) as? [String: Any]
        #expect(summary?["exported"] as? Int == 2)
        #expect(summary?["searchTagsNotCarried"] as? Int == 0)

        let destination = try AgentHarness()
        try destination.unlock()
        let imported = try destination.latchkey(
            ["import", archive, "--passphrase-stdin", "--json"],
            input: "archive passphrase\n",
            extra: ["LATCHKEY_AGENT": "required"]
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        let restoredClient = try Self.latchkeyGroupClient(destination)
        #expect(try Self.accounts(restoredClient, tags: ["ss"]) == ["alice", "bob"])
        #expect(try Self.accounts(restoredClient, tags: ["a:4:user=alice", "e\u{301}"]) == ["alice"])
        let alice = try Self.tagged(restoredClient).first { $0.attributes[.account] == .string("alice") }
        #expect(Self.byteSet(alice?.searchTags) == Self.byteSet(Self.tags), "tags read back through the agent")

        // A migration through the agent (reads, then one batch) carries the tags as well.
        let old = Keychain(service: "svc").keychainService(restoredClient)
        try old.migrate(to: Keychain(service: "moved").keychainService(restoredClient))
        let moved = try restoredClient.findAll(
            ItemQuery(.genericPassword, attributes: [.service: .string("moved")], searchTags: ["ss"])
        )
        #expect(moved.compactMap { $0.attributes[.account]?.stringValue }.sorted() == ["alice", "bob"])
    }

    /// The end-to-end case of the issue: an item stored by `secret-tool` is exported, imported into a fresh
    /// keychain served by a fresh agent, and `secret-tool lookup` by an attribute other than the service
    /// finds it there (only the tag index can answer that).
    @Test func aSecretServiceItemIsFoundByAnyAttributeAfterExportAndImport() throws {
        let source = try SecretServiceHarness()
        let stored = try source.secretTool(
            ["store", "--label", "Backup test", "service", "backup.example", "user", "erin", "kind", "e2e"],
            input: "e2e-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try source.secretTool(["lookup", "kind", "e2e"]).stdout == "e2e-secret")
        let archive = source.keychain.directory + "/secret-service.lkar"
        let exported = try Self.secretServiceLatchkey(
            source.environment,
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing", "--json"]
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        let summary = try JSONSerialization.jsonObject(with: exported.stdoutData) as? [String: Any]
        #expect((summary?["exported"] as? Int ?? 0) >= 1)
        #expect(summary?["searchTagsNotCarried"] as? Int == 0)

        let destination = try SecretServiceHarness()
        #expect(try destination.secretTool(["lookup", "kind", "e2e"]).status == 1, "not there before the import")
        let imported = try Self.secretServiceLatchkey(
            destination.environment,
            ["import", archive, "--passphrase-stdin", "--json"]
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        let looked = try destination.secretTool(["lookup", "kind", "e2e"])
        #expect(looked.stdout == "e2e-secret", "\(looked.stderr)")
        #expect(try destination.secretTool(["lookup", "user", "erin", "kind", "e2e"]).stdout == "e2e-secret")
    }

    /// A client of `harness`'s agent holding the `latchkey` group (the CLI's), granted to this test process.
    static func latchkeyGroupClient(_ harness: AgentHarness) throws -> AgentClient {
        let probe = try AgentClient.connect(socketPath: harness.socketPath)
        let granted = try harness.latchkey(["access", "grant", probe.welcome.executable, BuiltExecutable.latchkeyGroup])
        #expect(granted.status == 0, "\(granted.stderr)")
        return try AgentClient.connect(socketPath: harness.socketPath, accessGroups: [BuiltExecutable.latchkeyGroup])
    }

    /// Runs `latchkey` through a Secret Service harness's agent in the Secret Service's access group
    /// (granted to the built `latchkey` first), with the archive passphrase on standard input.
    static func secretServiceLatchkey(
        _ environment: [String: String],
        _ arguments: [String]
    ) throws -> CLIRunner.Result {
        let group = "org.freedesktop.secrets"
        let granted = try CLIRunner.latchkey(
            ["access", "grant", BuiltExecutable.latchkey, group],
            environment: environment
        )
        #expect(granted.status == 0, "\(granted.stderr)")
        var client = environment
        client["LATCHKEY_AGENT"] = "required"
        client["LATCHKEY_ACCESS_GROUPS"] = group
        return try CLIRunner.latchkey(arguments, environment: client, input: "archive passphrase\n")
    }
}
