import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// The operation API's wire form (binary, docs/wire-protocol.md): every operation and outcome case survives a
/// round trip with non-trivial values (every attribute kind, empty and large data, unicode, nested batches),
/// errors travel with their code and message, and a store executes decoded operations.
struct OperationWireTests {
    /// One attribute of every kind, with edge values.
    static let everyKind: [AttributeName: AttributeValue] = [
        .service: .string("Grüße 🔑 日本語 e\u{301}"),
        .label: .string(""),
        .generic: .data(Data([0, 255, 0x7F, 0x80])),
        .comment: .data(Data()),
        .port: .number(443),
        .type: .number(Int64.min),
        .creator: .number(Int64.max),
        .scriptCode: .number(-1),
        .keySizeInBits: .double(3.25),
        .effectiveKeySize: .double(-.infinity),
        .startDate: .double(.leastNonzeroMagnitude),
        .creationDate: .date(Date(timeIntervalSinceReferenceDate: 1234.5678)),
        .modificationDate: .date(.distantPast),
        "x-unicode-名前": .string("value"),
    ]

    static let query = ItemQuery(
        .internetPassword,
        attributes: [.server: .string("example.com"), .port: .number(443), .generic: .data(Data([0, 255]))],
        synchronizable: .any,
        hostOrSubdomain: "example.com"
    )

    /// A query with every optional field present.
    static let fullQuery = ItemQuery(
        nil,
        attributes: everyKind,
        synchronizable: .yes,
        persistentReference: Data(repeating: 7, count: 20),
        includeTombstones: true,
        hostOrSubdomain: "bücher.example",
        identity: IdentityReference(
            certificate: Data(repeating: 0x30, count: 700),
            keyLabel: Data(repeating: 9, count: 20)
        ),
        searchTags: searchTags
    )

    /// Search tags with edge values: an empty tag, unicode, a Secret Service attribute pair, a long tag.
    static let searchTags = ["ss:xdg:schema=org.example.Password", "", "ünï 🔑 ✓", String(repeating: "t", count: 300)]

    static let largeSecret = SecretData(Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }))

    static let operations: [KeychainOperation] = [
        .add(NewItem(.genericPassword, attributes: [.service: .string("s")], data: SecretData(string: "pw"))),
        .add(NewItem(.genericPassword, attributes: everyKind, data: SecretData(Data()))),
        .add(NewItem(.key, attributes: [.applicationTag: .data(Data(repeating: 1, count: 300))], data: largeSecret)),
        .addAll([NewItem(.key, attributes: [:], data: nil)], tolerateExisting: true),
        .addAll([], tolerateExisting: false),
        .addAll(
            [
                NewItem(.certificate, attributes: everyKind),
                NewItem(.key, attributes: [:], data: SecretData(string: "k")),
            ],
            tolerateExisting: false
        ),
        .upsert(NewItem(.genericPassword, attributes: [.modificationDate: .date(Date(timeIntervalSince1970: 5))])),
        .add(NewItem(.genericPassword, attributes: [.account: .string("a")], searchTags: searchTags)),
        .upsert(NewItem(.genericPassword, attributes: [:], data: SecretData(string: "u"), searchTags: ["one"])),
        .addAll([NewItem(.genericPassword, attributes: [:], searchTags: ["a", "b"])], tolerateExisting: false),
        .restore(NewItem(.genericPassword, attributes: [:], searchTags: [""]), replacingExisting: true),
        .update(UpdateRequest(ItemQuery(.genericPassword, searchTags: ["old"]), changes: ItemChanges(searchTags: []))),
        .update(UpdateRequest(query, changes: ItemChanges(data: SecretData(string: "n"), searchTags: searchTags))),
        .updateFirstOrAdd(
            match: ItemQuery(.genericPassword, searchTags: ["m"]),
            changes: ItemChanges(searchTags: ["kept"]),
            otherwise: NewItem(.genericPassword, attributes: [:], searchTags: ["new"])
        ),
        .delete(DeleteRequest(ItemQuery(.genericPassword, searchTags: ["x", "y"]))),
        .updateFirstOrAdd(
            match: fullQuery,
            changes: ItemChanges(attributes: everyKind, data: SecretData(string: "nouveau ✓")),
            otherwise: NewItem(.identity, attributes: [.account: .string("a")], data: SecretData(string: "o"))
        ),
        .updateFirstOrAdd(
            match: ItemQuery(.genericPassword),
            changes: ItemChanges(),
            otherwise: NewItem(.key, attributes: [:])
        ),
        .find(FindRequest(query, limit: .count(3), withData: true, authentication: .ask, corruptRows: .skip)),
        .find(
            FindRequest(
                fullQuery,
                limit: .all,
                withData: false,
                authentication: .skip,
                corruptRows: .report,
                authenticationReuse: 300
            )
        ),
        .find(FindRequest(ItemQuery(.certificate), limit: .one, withData: true, authentication: .confirmed)),
        .find(FindRequest(ItemQuery(.key), limit: .count(-5), authentication: .fail)),
        .find(FindRequest(query, limit: .all, withData: true, corruptRows: .skip, withSearchTags: true)),
        .find(FindRequest(query, limit: .count(3), referencesOnly: true)),
        .exists(query),
        .exists(fullQuery),
        .restore(NewItem(.certificate, attributes: [.label: .string("c")], data: nil), replacingExisting: true),
        .restore(
            NewItem(.internetPassword, attributes: everyKind, data: SecretData(string: "r")),
            replacingExisting: false
        ),
        .update(
            UpdateRequest(
                query,
                changes: ItemChanges(attributes: [.label: .string("l")], data: SecretData(string: "n"))
            )
        ),
        .update(
            UpdateRequest(
                fullQuery,
                changes: ItemChanges(attributes: everyKind),
                authentication: .confirmed,
                authenticationReuse: 0.25
            )
        ),
        .delete(DeleteRequest(query, limit: .one)),
        .delete(DeleteRequest(fullQuery, limit: .count(Int.max))),
        .batch([.lock, .delete(DeleteRequest(query))]),
        .batch([]),
        .batch([
            .batch([.add(NewItem(.genericPassword, attributes: everyKind)), .batch([.changeCounter])]), .lockState,
        ]),
        .lockState, .unlock(.passphrase(SecretData(string: "p"))),
        .unlock(.passphrase(SecretData(string: "correct horse 🐎 battery"))),
        .unlock(.keyFile(SecretData(Data(repeating: 1, count: 32)))),
        .lock, .accessGroups, .changeCounter,
        .damagedItems(.internetPassword, includingSecrets: true), .damagedItems(.key, includingSecrets: false),
        .verifyIntegrity(acceptingCurrentState: true), .verifyIntegrity(acceptingCurrentState: false),
        .changeCredential(
            current: .passphrase(SecretData(string: "old ✓")),
            new: .keyFile(SecretData(Data(repeating: 3, count: 32)))
        ),
    ]

    static let foundItem = FoundItem(
        itemClass: .genericPassword,
        attributes: [.account: .string("a")],
        data: SecretData(string: "s"),
        persistentReference: Data(repeating: 2, count: 20)
    )

    static let outcomes: [KeychainOutcome] = [
        .items([foundItem]),
        .items([]),
        .items([
            foundItem,
            FoundItem(itemClass: .key, attributes: everyKind, data: largeSecret, persistentReference: Data()),
            FoundItem(
                itemClass: .identity,
                attributes: [:],
                data: nil,
                persistentReference: Data(repeating: 3, count: 20)
            ),
            FoundItem(
                itemClass: .internetPassword,
                attributes: everyKind,
                data: SecretData(Data()),
                persistentReference: Data([1])
            ),
            FoundItem(itemClass: .certificate, attributes: [:], data: nil, persistentReference: Data([4])),
        ]),
        .items([
            FoundItem(
                itemClass: .genericPassword,
                attributes: [.account: .string("t")],
                data: nil,
                persistentReference: Data(repeating: 5, count: 20),
                searchTags: ["ss", "c:login", "a:5:xdg:schema=org.example", "\u{E9}", "e\u{301}", ""]
            ),
            FoundItem(
                itemClass: .genericPassword,
                attributes: [:],
                data: SecretData(string: "s"),
                persistentReference: Data(repeating: 6, count: 20),
                searchTags: []
            ),
        ]),
        .count(2), .count(0), .count(-1), .count(Int.max),
        .exists(true), .exists(false),
        .lockState(.locked), .lockState(.unlocked), .lockState(.neverUnlocked),
        .accessGroups(["g"]), .accessGroups([]), .accessGroups(["", "com.example.群", "TEAM.app"]),
        .changeCounter(9), .changeCounter(Int64.min), .changeCounter(Int64.max),
        .restored(.replaced), .restored(.added), .restored(.duplicate),
        .batch([.count(0)]),
        .batch([]),
        .batch([.batch([.items([foundItem]), .batch([.exists(false)])]), .restored(.added)]),
        .damagedItems([]),
        .damagedItems([
            DamagedItem(itemClass: .key, persistentReference: Data(repeating: 5, count: 20)),
            DamagedItem(itemClass: .genericPassword, persistentReference: Data()),
        ]),
    ]

    @Test(arguments: operations) func operationsRoundTrip(_ operation: KeychainOperation) throws {
        let frame = try KeychainWireCodec.encode(operation)
        #expect(frame.first == UInt8(KeychainWireCodec.version))
        #expect(try KeychainWireCodec.decodeOperation(frame) == operation)
    }

    /// The wire form (the operation API's one encoding) carries search tags, and tells "no tags" from "not
    /// given": a new item or query without tags reads back with none; a change without tags (keep the items'
    /// tags) reads back as `nil`, distinct from an empty list (remove them); the documented bytes of a query
    /// without tags read as `ItemQuery(nil)`.
    @Test func searchTagsRoundTripOnTheWireAndMayBeAbsentThere() throws {
        let item = NewItem(.genericPassword, attributes: [.account: .string("a")], searchTags: Self.searchTags)
        let changes = ItemChanges(attributes: [:], searchTags: [])
        let tagged = ItemQuery(.genericPassword, attributes: [.service: .string("s")], searchTags: Self.searchTags)
        func roundTrip(_ operation: KeychainOperation) throws -> KeychainOperation {
            try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(operation))
        }
        #expect(try roundTrip(.add(item)) == .add(item))
        #expect(
            try roundTrip(.update(UpdateRequest(tagged, changes: changes)))
                == .update(UpdateRequest(tagged, changes: changes))
        )
        #expect(try roundTrip(.exists(tagged)) == .exists(tagged))
        #expect(try roundTrip(.exists(Self.query)) == .exists(Self.query))

        let untaggedItem = NewItem(.genericPassword, attributes: [.account: .string("a")])
        guard case .add(let readItem) = try roundTrip(.add(untaggedItem)).storage else {
            Issue.record("an add did not decode as an add")
            return
        }
        #expect(readItem.searchTags == [])
        let keep = ItemQuery(.genericPassword)
        guard case .update(let readUpdate) = try roundTrip(.update(UpdateRequest(keep, changes: ItemChanges()))).storage
        else {
            Issue.record("an update did not decode as an update")
            return
        }
        #expect(readUpdate.changes.searchTags == nil)
        guard case .update(let emptied) = try roundTrip(.update(UpdateRequest(keep, changes: changes))).storage else {
            Issue.record("an update did not decode as an update")
            return
        }
        #expect(emptied.changes.searchTags == [])
        #expect(
            try KeychainWireCodec.decodeOperation(Data(WireFrameRefusalTests.existsFrame)) == .exists(ItemQuery(nil))
        )
    }

    /// A find that asks for search tags and an item that carries them travel on the wire; a find that does not
    /// ask reads back as not asking (`withSearchTags` false), and an item whose tags were not asked for reads
    /// back with `searchTags` nil, not an empty list.
    @Test func foundSearchTagsRoundTripOnTheWireAndMayBeAbsentThere() throws {
        let request = FindRequest(Self.query, limit: .all, withData: true, withSearchTags: true)
        let item = FoundItem(
            itemClass: .genericPassword,
            attributes: [.account: .string("a")],
            data: nil,
            persistentReference: Data(repeating: 1, count: 20),
            searchTags: Self.searchTags
        )
        func operation(_ request: FindRequest) throws -> KeychainOperation {
            try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(.find(request)))
        }
        func outcome(_ item: FoundItem) throws -> [FoundItem] {
            try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(.items([item])))).items()
        }
        #expect(try operation(request) == .find(request))
        #expect(try outcome(item) == [item])
        var untagged = request
        untagged.withSearchTags = false
        #expect(try operation(untagged) == .find(untagged))
        var unasked = item
        unasked.searchTags = nil
        #expect(try outcome(unasked).first?.searchTags == nil)
        #expect(try outcome(unasked) == [unasked])
    }

    @Test(arguments: outcomes) func outcomesRoundTrip(_ outcome: KeychainOutcome) throws {
        #expect(try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(outcome))) == outcome)
    }

    /// `==` on `SecretData` and on dictionaries is what the round trips rely on; check the secret bytes and
    /// the attribute kinds themselves once as well.
    @Test func secretsAndAttributeKindsArriveExactly() throws {
        let operation = KeychainOperation.add(NewItem(.key, attributes: Self.everyKind, data: Self.largeSecret))
        guard case .add(let item) = try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(operation)).storage
        else {
            Issue.record("an add did not decode as an add")
            return
        }
        #expect(item.data?.data == Self.largeSecret.data)
        for (name, value) in Self.everyKind {
            #expect(item.attributes[name] == value, "attribute \(name)")
            #expect(
                item.attributes[name].map { String(describing: $0) } == String(describing: value),
                "kind of \(name)"
            )
        }
    }

    @Test(arguments: [
        KeychainError(.duplicateItem, "already there"),
        KeychainError(.itemNotFound, ""),
        KeychainError(.init(rawValue: 12345), "an unknown code survives ✓"),
        KeychainError(.init(rawValue: Int32.min), "the smallest code"),
        KeychainError(.decode, String(repeating: "long message ", count: 500)),
    ])
    func errorsTravelWithTheirCodeAndMessage(_ sent: KeychainError) throws {
        let frame = try KeychainWireCodec.encode(.failure(sent))
        do {
            let outcome = try KeychainWireCodec.decodeOutcome(frame)
            Issue.record("a carried error decoded as \(outcome)")
        } catch {
            #expect(error.code == sent.code)
            #expect(error.message == sent.message)
        }
    }

    /// A find and its one-item answer, the agent's common case, are small frames.
    @Test func aFindAndItsAnswerAreCompact() throws {
        let find = try KeychainWireCodec.encode(
            .find(
                FindRequest(
                    ItemQuery(.genericPassword, attributes: [.service: .string("svc"), .account: .string("acct")]),
                    withData: true
                )
            )
        )
        #expect(find.count < 40, "a find by service and account takes \(find.count) bytes")
        let answer = try KeychainWireCodec.encode(.success(.items([Self.foundItem])))
        #expect(answer.count < 60, "a one-item answer takes \(answer.count) bytes")
    }

    /// An integrity report (which has no public initializer) from a real store travels whole.
    @Test func anIntegrityReportRoundTrips() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        _ = try store.perform(
            .add(NewItem(.genericPassword, attributes: [.service: .string("i")], data: SecretData(string: "x")))
        )
        let outcome = try store.perform(.verifyIntegrity(acceptingCurrentState: false))
        guard case .integrity = outcome.storage else {
            Issue.record("verifyIntegrity answered \(outcome)")
            return
        }
        #expect(try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(outcome))) == outcome)
        #expect(
            try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(.success(.batch([outcome]))))
                == .batch([outcome])
        )
    }

    @Test func aStoreExecutesDecodedOperations() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let add = try KeychainWireCodec.decodeOperation(
            KeychainWireCodec.encode(
                .add(NewItem(.genericPassword, attributes: [.service: .string("w")], data: SecretData(string: "x")))
            )
        )
        _ = try store.perform(add)
        let find = try KeychainWireCodec.decodeOperation(
            KeychainWireCodec.encode(
                .find(FindRequest(ItemQuery(.genericPassword, attributes: [.service: .string("w")]), withData: true))
            )
        )
        let reply = try KeychainWireCodec.encode(.success(try store.perform(find)))
        let items = try KeychainWireCodec.decodeOutcome(reply).items()
        #expect(items.first?.data == SecretData(string: "x"))
        #expect(items.first?.attributes[.service] == .string("w"))
    }
}
