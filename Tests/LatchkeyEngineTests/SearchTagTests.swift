import Foundation
import GRDB
import LatchkeyStorage
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Search tags (issue 16, item 3): opaque strings given to items, stored only as keyed tokens in the `tags`
/// table (migration v3) and sealed in each item's record, found through the tags' index, never returned.
struct SearchTagTests {
    /// The number of rows in the keychain file's `tags` table, read with SQLite directly.
    static func tagRowCount(_ keychain: TemporaryKeychain) throws -> Int {
        try TamperingTests.raw(keychain) { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tags") ?? -1 }
    }

    /// The accounts of `items`, sorted.
    static func accounts(_ items: [FoundItem]) -> [String] {
        items.compactMap { $0.attributes[.account]?.stringValue }.sorted()
    }

    /// The accounts of every generic password carrying `tags` (and the other filters given).
    static func accounts(
        _ store: KeychainStore,
        tags: [String],
        attributes: [AttributeName: AttributeValue] = [:]
    ) throws -> [String] {
        accounts(try store.findAll(ItemQuery(.genericPassword, attributes: attributes, searchTags: tags)))
    }

    @Test func itemsAreFoundByOneTagByEveryTagGivenAndNotByATagNoItemHas() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: ["x", "y"])
        try store.add(.genericPassword, attributes: [.account: .string("b")], data: nil, searchTags: ["x", "x"])
        try store.add(.genericPassword, attributes: [.account: .string("c")], data: nil)

        #expect(try Self.accounts(store, tags: ["x"]) == ["a", "b"])
        #expect(try Self.accounts(store, tags: ["y"]) == ["a"])
        #expect(try Self.accounts(store, tags: ["x", "y"]) == ["a"])
        #expect(try Self.accounts(store, tags: ["y", "x", "y"]) == ["a"])
        #expect(try Self.accounts(store, tags: ["z"]) == [])
        #expect(try Self.accounts(store, tags: ["x", "z"]) == [])
        #expect(try Self.accounts(store, tags: []) == ["a", "b", "c"])
        // Tags are case-sensitive, exact strings: their UTF-8 bytes (a decomposed "é" is another tag).
        #expect(try Self.accounts(store, tags: ["X"]) == [])
        try store.add(
            .genericPassword,
            attributes: [.account: .string("e")],
            data: nil,
            searchTags: ["caf\u{e9}", "cafe\u{301}"]
        )
        #expect(try Self.accounts(store, tags: ["caf\u{e9}"]) == ["e"])
        #expect(try Self.accounts(store, tags: ["cafe\u{301}"]) == ["e"])
        try store.delete(ItemQuery(.genericPassword, attributes: [.account: .string("e")]))
        #expect(try store.exists(ItemQuery(.genericPassword, searchTags: ["y"])))
        #expect(try !store.exists(ItemQuery(.genericPassword, searchTags: ["z"])))
        expectKeychainError(.itemNotFound) {
            _ = try store.find(ItemQuery(.genericPassword, searchTags: ["z"]))
        }
        // Never returned: the tagged item's attributes are those of an untagged one (no extra entry).
        let tagged = try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("a")]))
        let untagged = try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("c")]))
        #expect(Set(tagged.attributes.keys) == Set(untagged.attributes.keys))
        // One row per distinct tag per item: a (x, y) and b (x once).
        #expect(try Self.tagRowCount(keychain) == 3)
    }

    /// The record's tag trailer (docs/storage-format.md §5) comes after the attribute entries, where readers
    /// without search tags stop; padding stays zero, so a record without tags is byte for byte what it was.
    @Test func theRecordTrailerIsInvisibleToTheAttributeDecoderAndExactForTags() throws {
        let attributes: [AttributeName: AttributeValue] = [.account: .string("a"), .port: .number(7)]
        let tags = [Data(repeating: 1, count: 16), Data(repeating: 0xFE, count: 16)]
        let record = RecordCodec.encode(attributes, tags: tags)
        #expect(record.count % RecordCodec.padding == 0)
        #expect(try RecordCodec.decode(record) == attributes, "the decoder before search tags")
        let decoded = try RecordCodec.decodeRecord(record)
        #expect(decoded.attributes == attributes)
        #expect(decoded.tags == tags)
        #expect(RecordCodec.encode(attributes, tags: []) == RecordCodec.encode(attributes))
        #expect(try RecordCodec.decodeRecord(RecordCodec.encode(attributes)).tags == [])
        // A trailer that claims more tokens than the record holds is corrupt, not silently short.
        var damaged = record
        let trailer = try #require(damaged.firstRange(of: Data([RecordCodec.tagMarker, 0, 2])))
        damaged[trailer.upperBound - 1] = 9
        expectKeychainError(.decode) { try RecordCodec.decodeRecord(damaged) }
    }

    @Test func anUpdateWithTagsReplacesThemAndOneWithoutKeepsThem() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: ["old", "both"])
        let query = ItemQuery(.genericPassword, attributes: [.account: .string("a")])

        try store.update(query, with: ItemChanges(attributes: [.comment: .string("changed")]))
        #expect(try Self.accounts(store, tags: ["old", "both"]) == ["a"], "searchTags nil keeps the tags")

        try store.update(query, with: ItemChanges(data: SecretData(string: "s"), searchTags: ["new", "both"]))
        #expect(try Self.accounts(store, tags: ["old"]) == [])
        #expect(try Self.accounts(store, tags: ["new", "both"]) == ["a"])
        #expect(try Self.tagRowCount(keychain) == 2)

        // An update found by its tags can change them.
        try store.update(ItemQuery(.genericPassword, searchTags: ["new"]), with: ItemChanges(searchTags: []))
        #expect(try Self.accounts(store, tags: ["new"]) == [])
        #expect(try Self.tagRowCount(keychain) == 0)
        #expect(try store.findOne(query).attributes[.comment] == .string("changed"))

        // An upsert onto an existing item gives it the new item's tags; one without tags keeps them.
        try store.upsert(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: ["up"])
        #expect(try Self.accounts(store, tags: ["up"]) == ["a"])
        #expect(try Self.tagRowCount(keychain) == 1)
        try store.upsert(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "u2"))
        #expect(try Self.accounts(store, tags: ["up"]) == ["a"])
        #expect(try store.findOne(query, withData: true).data == SecretData(string: "u2"))
    }

    @Test func deletingAnItemRemovesItsTagRows() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: ["t1", "t2"])
        try store.add(
            .genericPassword,
            attributes: [.account: .string("s"), .synchronizable: .number(1)],
            data: nil,
            searchTags: ["t1"]
        )
        #expect(try Self.tagRowCount(keychain) == 3)
        #expect(try store.delete(ItemQuery(.genericPassword, searchTags: ["t2"])) == 1)
        #expect(try Self.tagRowCount(keychain) == 1)
        // A synchronizable item leaves a tombstone, which keeps no tags.
        #expect(try store.delete(ItemQuery(.genericPassword, synchronizable: .yes, searchTags: ["t1"])) == 1)
        #expect(try Self.tagRowCount(keychain) == 0)
        #expect(
            try store.findAll(
                ItemQuery(.genericPassword, synchronizable: .any, includeTombstones: true, searchTags: ["t1"])
            )
            .isEmpty
        )
    }

    @Test func tagsCombineWithAttributeAndAccessGroupFilters() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for (account, service, group) in [
            ("a", "mail", "com.example.app"), ("b", "web", "com.example.app"), ("c", "mail", "com.example.shared"),
        ] {
            try store.add(
                .genericPassword,
                attributes: [.account: .string(account), .service: .string(service), .accessGroup: .string(group)],
                data: nil,
                searchTags: ["shared-tag"]
            )
        }
        try store.add(.genericPassword, attributes: [.account: .string("d"), .service: .string("mail")], data: nil)

        #expect(try Self.accounts(store, tags: ["shared-tag"]) == ["a", "b", "c"])
        #expect(try Self.accounts(store, tags: ["shared-tag"], attributes: [.service: .string("mail")]) == ["a", "c"])
        #expect(
            try Self.accounts(store, tags: ["shared-tag"], attributes: [.accessGroup: .string("com.example.shared")])
                == ["c"]
        )
        #expect(
            try Self.accounts(
                store,
                tags: ["shared-tag"],
                attributes: [.service: .string("mail"), .account: .string("a")]
            ) == ["a"]
        )
        // A caller without the shared group does not see its item through tags either.
        let narrow = try keychain.open(accessGroups: ["com.example.app"])
        #expect(try Self.accounts(narrow, tags: ["shared-tag"]) == ["a", "b"])
        // Limits apply after the tags are checked.
        #expect(try store.find(ItemQuery(.genericPassword, searchTags: ["shared-tag"]), limit: .count(2)).count == 2)
    }

    @Test func everyStorableClassTakesTagsAndIdentitiesRefuseThem() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.internetPassword, attributes: [.server: .string("example.com")], data: nil, searchTags: ["t"])
        try store.add(.genericPassword, attributes: [.account: .string("g")], data: nil, searchTags: ["t"])
        #expect(try store.findAll(ItemQuery(.internetPassword, searchTags: ["t"])).count == 1)
        #expect(try Self.accounts(store, tags: ["t"]) == ["g"], "tags are per class: the token domains differ")
        expectKeychainError(.param) {
            _ = try store.find(ItemQuery(.identity, searchTags: ["t"]))
        }
        expectKeychainError(.param) {
            try store.update(ItemQuery(.identity), with: ItemChanges(searchTags: ["t"]))
        }
        let tooMany = (0...RecordCodec.maximumTags).map { "tag\($0)" }
        expectKeychainError(.param) {
            try store.add(.genericPassword, attributes: [.account: .string("many")], data: nil, searchTags: tooMany)
        }
    }

    @Test func aTagRowAddedOrRemovedInTheFileNeverReturnsAWrongItem() throws {
        let keychain = TemporaryKeychain()
        var store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("tagged")], data: nil, searchTags: ["t"])
        try store.add(.genericPassword, attributes: [.account: .string("plain")], data: nil, searchTags: ["u"])
        try store.close()
        // Give `plain` the token of `t` (copied from `tagged`'s row) and take `u` away from it.
        try TamperingTests.raw(keychain) { db in
            let token = try #require(try Data.fetchOne(db, sql: "SELECT token FROM tags ORDER BY item LIMIT 1"))
            let plain = try #require(try Int64.fetchOne(db, sql: "SELECT MAX(item) FROM tags"))
            try db.execute(sql: "DELETE FROM tags WHERE item = ?", arguments: [plain])
            try db.execute(sql: "INSERT INTO tags (tbl, item, token) VALUES ('genp', ?, ?)", arguments: [plain, token])
        }
        store = try keychain.open()
        #expect(try Self.accounts(store, tags: ["t"]) == ["tagged"], "the record's sealed tags decide")
        #expect(try Self.accounts(store, tags: ["u"]) == [], "a removed tag row hides the item from tag searches")
        #expect(try store.find(ItemQuery(.genericPassword, searchTags: ["t"]), limit: .one).count == 1)
        #expect(try Self.accounts(store, tags: []) == ["plain", "tagged"])

        // The integrity check names the item; accepting the current state rebuilds its rows from its record
        // and drops rows that name no item.
        let plain = try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("plain")]))
        let report = try store.verifyIntegrity()
        #expect(report.mismatchedTags == [plain.persistentReference])
        #expect(!report.isSound)
        try store.close()
        try TamperingTests.raw(keychain) { db in
            try db.execute(sql: "INSERT INTO tags (tbl, item, token) VALUES ('genp', 9999, x'00')")
        }
        store = try keychain.open()
        try store.acceptCurrentRows()
        #expect(try Self.accounts(store, tags: ["u"]) == ["plain"])
        #expect(try Self.accounts(store, tags: ["t"]) == ["tagged"])
        #expect(try store.verifyIntegrity().isSound)
        #expect(try Self.tagRowCount(keychain) == 2)
    }

    @Test func tagTextNeverReachesTheDatabaseWALOrSharedMemory() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let tags = ["MRK-tag-one-Zq7", "ss:xdg:schema=MRK-tag-schema-Zq7", "MRK-tag-unicode-\u{e9}\u{4e2d}-Zq7"]
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: tags)
        try store.add(.genericPassword, attributes: [.account: .string("b")], data: nil, searchTags: [tags[0]])
        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("b")]),
            with: ItemChanges(searchTags: ["MRK-tag-replaced-Zq7"])
        )
        #expect(try Self.accounts(store, tags: [tags[1]]) == ["a"])
        #expect((PlaintextScanTests.keychainFiles(keychain.path)["-wal"]?.count ?? 0) > 0)
        let markers = tags + ["MRK-tag-replaced-Zq7"]
        try PlaintextScanTests.expectNoPlaintext(keychain, markers: markers, phase: "tags before checkpoint")
        try store.checkpoint()
        try PlaintextScanTests.expectNoPlaintext(keychain, markers: markers, phase: "tags after checkpoint")
    }

    @Test func aVersion2FileIsSearchedWithoutTagsThenGainsThemAtItsFirstWritableOpen() throws {
        let keychain = TemporaryKeychain()
        var store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("old")], data: SecretData(string: "kept"))
        try store.close()
        // The layout before search tags: no `tags` table, migration v3 not recorded.
        try TamperingTests.raw(keychain) { db in
            try db.execute(sql: "DROP TABLE tags")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v3'")
        }

        let reader = try keychain.open(readOnly: true)
        #expect(try Self.accounts(reader, tags: ["t"]) == [], "no tags table: no item carries a tag")
        #expect(try Self.accounts(reader, tags: []) == ["old"])
        try reader.close()
        #expect(try TamperingTests.raw(keychain) { db in try db.tableExists("tags") } == false)

        store = try keychain.open()
        #expect(try TamperingTests.raw(keychain) { db in try db.tableExists("tags") })
        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("old")]),
            with: ItemChanges(searchTags: ["t"])
        )
        try store.add(.genericPassword, attributes: [.account: .string("new")], data: nil, searchTags: ["t"])
        #expect(try Self.accounts(store, tags: ["t"]) == ["new", "old"])
        #expect(try store.findOne(ItemQuery(.genericPassword, searchTags: ["t"]), withData: true).data?.count == 4)
        #expect(try LedgerUpgradeTests.format(keychain) == "2", "the format stays 2: older builds keep opening it")
    }

    @Test func aTagSearchAmong2000ItemsReadsOnlyTheRowsCarryingItsTags() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        var items: [NewItem] = []
        for index in 0..<2000 {
            var tags = ["common", "service=mail"]
            if index % 500 == 7 { tags.append("rare") }
            items.append(
                NewItem(
                    .genericPassword,
                    attributes: [.account: .string("user\(index)"), .service: .string("mail")],
                    searchTags: tags
                )
            )
        }
        _ = try store.perform(.addAll(items, tolerateExisting: false))
        let query = ItemQuery(
            .genericPassword,
            attributes: [.service: .string("mail")],
            searchTags: ["common", "service=mail", "rare"]
        )
        #expect(try store.findAll(query).count == 4)

        let snapshot = store.keys.snapshot()
        let plan = try store.plan(query)
        let filter = try store.rowFilter(plan, tokens: try store.tokenCache(snapshot), limit: nil)
        // The rows the store decrypts are the rows storage returns: only the four carrying both tags.
        let rows = try store.storage.read { try $0.select(from: .genp, where: filter, includeSecret: false) }
        #expect(rows.count == 4)
        // SQLite starts from the tags' index and reads item rows by row id, never scanning the table (nor
        // walking the service index every item shares).
        let steps = try store.storage.read { try $0.queryPlan(from: .genp, where: filter, includeSecret: false) }
        #expect(steps.contains { $0.contains("tags USING COVERING INDEX tags_token") }, "\(steps)")
        #expect(steps.contains { $0.hasPrefix("SEARCH tags USING PRIMARY KEY") }, "\(steps)")
        #expect(steps.contains { $0.hasPrefix("SEARCH genp USING INTEGER PRIMARY KEY") }, "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")
        #expect(!steps.contains { $0.contains("genp_svce") }, "\(steps)")
        #expect(try store.findAll(ItemQuery(.genericPassword, searchTags: ["common"])).count == 2000)
        #expect(try store.findAll(ItemQuery(.genericPassword, searchTags: ["common", "absent"])).isEmpty)
    }

    @Test func tagsRoundTripThroughARealAgent() throws {
        let harness = try AgentHarness()
        try harness.unlock()
        let client = try AgentClient.connect(socketPath: harness.socketPath)
        try client.add(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: ["x", "y"])
        try client.add(.genericPassword, attributes: [.account: .string("b")], data: nil, searchTags: ["x"])
        #expect(Self.accounts(try client.findAll(ItemQuery(.genericPassword, searchTags: ["x"]))) == ["a", "b"])
        #expect(Self.accounts(try client.findAll(ItemQuery(.genericPassword, searchTags: ["x", "y"]))) == ["a"])
        try client.update(ItemQuery(.genericPassword, searchTags: ["y"]), with: ItemChanges(searchTags: ["z"]))
        #expect(Self.accounts(try client.findAll(ItemQuery(.genericPassword, searchTags: ["y"]))) == [])
        #expect(Self.accounts(try client.findAll(ItemQuery(.genericPassword, searchTags: ["z"]))) == ["a"])
        #expect(try client.delete(ItemQuery(.genericPassword, searchTags: ["x"])) == 1)
        #expect(Self.accounts(try client.findAll(ItemQuery(.genericPassword, searchTags: ["z"]))) == ["a"])
        _ = harness.stop()
        #expect(try Self.tagRowCount(harness.keychain) == 1)
    }
}
