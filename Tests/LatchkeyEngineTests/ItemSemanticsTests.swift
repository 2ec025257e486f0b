import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Apple keychain item semantics (docs/apple-semantics.md §1, §3, §5): defaults, uniqueness, value kinds, matching,
/// synchronizable items and tombstones, update, find and delete.
struct ItemSemanticsTests {
    static func account(_ name: String) -> ItemQuery {
        ItemQuery(.genericPassword, attributes: [.account: .string(name)])
    }

    static func accounts(_ items: [FoundItem]) -> [AttributeValue?] {
        items.map { $0.attributes[.account] }
    }

    // MARK: - Add and defaults

    @Test func addedPasswordReadsBackWithItsSecret() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let added = try store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("alice")],
            data: SecretData(string: "s3cret")
        )
        let found = try store.findOne(Self.account("alice"), withData: true)
        #expect(found.data == SecretData(string: "s3cret"))
        #expect(found.attributes[.service] == .string("svc"))
        #expect(found.itemClass == .genericPassword)
        #expect(found.attributes == added.attributes)
        #expect(found.persistentReference == added.persistentReference)
        // Without asking for data, none is returned.
        #expect(try store.findOne(Self.account("alice")).data == nil)
    }

    @Test func absentDataIsNotEmptyData() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("none")], data: nil)
        try store.add(.genericPassword, attributes: [.account: .string("empty")], data: SecretData([]))
        #expect(try store.findOne(Self.account("none"), withData: true).data == nil)
        #expect(try store.findOne(Self.account("empty"), withData: true).data == SecretData([]))
    }

    /// The class-specific defaults materialised on add (docs/apple-semantics.md §1.10).
    static func expectedDefaults(_ itemClass: ItemClass) -> [AttributeName: AttributeValue] {
        let reference = AttributeValue.date(Date(timeIntervalSinceReferenceDate: 0))
        switch itemClass {
        case .genericPassword:
            return [.account: .string(""), .service: .string(""), .accessible: .string("ak")]
        case .internetPassword:
            return [
                .account: .string(""), .securityDomain: .string(""), .server: .string(""), .protocol: .number(0),
                .authenticationType: .string(""), .port: .number(0), .path: .string(""), .accessible: .string("ak"),
            ]
        case .certificate:
            return [
                .certificateType: .number(0), .issuer: .data(Data()), .serialNumber: .data(Data()),
                .accessible: .string("dk"),
            ]
        case .key:
            return [
                .keyClass: .number(0), .applicationLabel: .data(Data()), .applicationTag: .string(""),
                .keyCreator: .number(0), .keyType: .number(0), .keySizeInBits: .number(0),
                .effectiveKeySize: .number(0), .startDate: reference, .endDate: reference,
                .accessible: .string("ak"),
            ]
        case .identity:
            return [:]
        }
    }

    @Test(arguments: ItemClass.storable)
    func addMaterialisesAppleDefaults(itemClass: ItemClass) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let before = Date()
        let added = try store.add(itemClass, attributes: [:], data: SecretData(string: "x"))
        let found = try store.findOne(ItemQuery(itemClass))
        for attributes in [added.attributes, found.attributes] {
            for (name, value) in Self.expectedDefaults(itemClass) {
                #expect(attributes[name] == value, "\(itemClass.rawValue).\(name)")
            }
            #expect(attributes[.accessGroup] == .string("com.example.app"), "first access group")
            #expect(attributes[.synchronizable] == .number(0))
            #expect(attributes[.tombstone] == .number(0))
            #expect(attributes[.multiUser] == .data(Data()))
            #expect(attributes[.sha1]?.dataValue?.count == 20)
            let created = try #require(attributes[.creationDate]?.dateValue)
            #expect(attributes[.modificationDate] == attributes[.creationDate])
            #expect(created >= before.addingTimeInterval(-1) && created <= Date().addingTimeInterval(1))
        }
        #expect(added.persistentReference.count == 20)
    }

    @Test func callerSuppliedDatesAndDigestAreOverwritten() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let past = Date(timeIntervalSince1970: 0)
        let added = try store.add(
            .genericPassword,
            attributes: [
                .creationDate: .date(past), .modificationDate: .date(past),
                .sha1: .data(Data(repeating: 0, count: 20)),
            ],
            data: nil
        )
        #expect(added.attributes[.creationDate] != .date(past))
        #expect(added.attributes[.modificationDate] != .date(past))
        #expect(added.attributes[.sha1] != .data(Data(repeating: 0, count: 20)))
    }

    @Test func digestCoversTheSecret() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let first = try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "1"))
        try store.update(Self.account("a"), with: ItemChanges(data: SecretData(string: "2")))
        let second = try store.findOne(Self.account("a"))
        #expect(first.attributes[.sha1] != second.attributes[.sha1])
    }

    // MARK: - Uniqueness

    @Test func duplicateAddIsDuplicateItem() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let attributes: [AttributeName: AttributeValue] = [.account: .string("a"), .service: .string("s")]
        try store.add(.genericPassword, attributes: attributes, data: SecretData(string: "1"))
        let error = expectKeychainError(.duplicateItem) {
            try store.add(.genericPassword, attributes: attributes, data: SecretData(string: "2"))
        }
        #expect(error?.code.rawValue == -25299)
        // The original is untouched.
        #expect(try store.findOne(Self.account("a"), withData: true).data == SecretData(string: "1"))
    }

    @Test func emptyAndAbsentAccountAreTheSameKey() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [:], data: nil)
        expectKeychainError(.duplicateItem) {
            try store.add(.genericPassword, attributes: [.account: .string(""), .service: .data(Data())], data: nil)
        }
    }

    /// Only primary-key attributes decide uniqueness: differing in anything else is still a duplicate.
    @Test(
        arguments: [
            (AttributeName.label, AttributeValue.string("other label")),
            (.generic, .data(Data([1, 2, 3]))),
            (.accessible, .string("ck")),
            (.comment, .string("a comment")),
            (.itemDescription, .string("a description")),
            (.type, .number(42)),
        ]
    )
    func nonKeyAttributesDoNotMakeAnItemUnique(name: AttributeName, value: AttributeValue) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a"), .service: .string("s")], data: nil)
        expectKeychainError(.duplicateItem, "\(name)") {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("a"), .service: .string("s"), name: value],
                data: nil
            )
        }
    }

    /// Differing in any primary-key attribute makes a distinct item.
    @Test(
        arguments: [
            (ItemClass.genericPassword, AttributeName.service, AttributeValue.string("other")),
            (.genericPassword, .account, .string("other")),
            (.genericPassword, .synchronizable, .number(1)),
            (.genericPassword, .accessGroup, .string("com.example.shared")),
            (.genericPassword, .syncViewHint, .string("view")),
            (.internetPassword, .server, .string("example.org")),
            (.internetPassword, .port, .number(443)),
            (.internetPassword, .protocol, .string("htps")),
            (.internetPassword, .path, .string("/x")),
            (.certificate, .serialNumber, .data(Data([1]))),
            (.certificate, .issuer, .data(Data([2]))),
            (.key, .applicationTag, .string("tag")),
            (.key, .keySizeInBits, .number(256)),
        ]
    )
    func keyAttributesMakeAnItemUnique(itemClass: ItemClass, name: AttributeName, value: AttributeValue) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(itemClass, attributes: [:], data: nil)
        try store.add(itemClass, attributes: [name: value], data: nil)
        expectKeychainError(.duplicateItem, "\(itemClass.rawValue).\(name)") {
            try store.add(itemClass, attributes: [name: value], data: nil)
        }
    }

    @Test func sameAccountInTwoAccessGroupsCoexists() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "app"))
        try store.add(
            .genericPassword,
            attributes: [.account: .string("a"), .accessGroup: .string("com.example.shared")],
            data: SecretData(string: "shared")
        )
        let both = try store.find(Self.account("a"), limit: .all, withData: true)
        #expect(both.map(\.data) == [SecretData(string: "app"), SecretData(string: "shared")])
        let shared = try store.findOne(
            ItemQuery(
                .genericPassword,
                attributes: [.account: .string("a"), .accessGroup: .string("com.example.shared")]
            ),
            withData: true
        )
        #expect(shared.data == SecretData(string: "shared"))
        // A process that has only the second group sees only that item.
        let other = try keychain.open(accessGroups: ["com.example.shared"])
        #expect(
            try other.find(Self.account("a"), limit: .all, withData: true).map(\.data) == [SecretData(string: "shared")]
        )
    }

    // MARK: - Value kinds and String/Data equivalence

    @Test func stringAndDataWithTheSameBytesMatchEachOther() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("bob")], data: SecretData(string: "1"))
        try store.add(.genericPassword, attributes: [.account: .data(Data("eve".utf8))], data: SecretData(string: "2"))
        #expect(
            try store.findOne(
                ItemQuery(.genericPassword, attributes: [.account: .data(Data("bob".utf8))]),
                withData: true
            )
            .data == SecretData(string: "1")
        )
        #expect(try store.findOne(Self.account("eve"), withData: true).data == SecretData(string: "2"))
        expectKeychainError(.duplicateItem) {
            try store.add(.genericPassword, attributes: [.account: .data(Data("bob".utf8))], data: nil)
        }
        expectKeychainError(.duplicateItem) {
            try store.add(.genericPassword, attributes: [.account: .string("eve")], data: nil)
        }
    }

    @Test(arguments: ["Bob", "bob ", "bo", "bob\u{0}"])
    func matchingIsByteExactAndCaseSensitive(query: String) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("bob")], data: nil)
        expectKeychainError(.itemNotFound) { try store.findOne(Self.account(query)) }
    }

    /// Stored kinds follow
    /// docs/apple-semantics.md §1.2: blobs keep their kind, data kinds turn strings into bytes, number
    /// kinds turn decimal strings into numbers but keep other strings.
    @Test(
        arguments: [
            (ItemClass.genericPassword, AttributeName.account, AttributeValue.string("a"), AttributeValue.string("a")),
            (.genericPassword, .account, .data(Data("a".utf8)), .data(Data("a".utf8))),
            (.genericPassword, .generic, .string("g"), .string("g")),
            (.genericPassword, .generic, .number(7), .number(7)),
            (.genericPassword, .type, .string("42"), .number(42)),
            (.genericPassword, .type, .string("-7"), .number(-7)),
            (.genericPassword, .type, .string("0042"), .string("0042")),
            (.genericPassword, .type, .string("aapl"), .string("aapl")),
            (.genericPassword, .isInvisible, .bool(true), .number(1)),
            (.internetPassword, .protocol, .string("htps"), .string("htps")),
            (.internetPassword, .port, .string("443"), .number(443)),
            (.certificate, .subject, .string("CN=x"), .data(Data("CN=x".utf8))),
            (.certificate, .serialNumber, .number(1), .data(Data([1, 0, 0, 0]))),
            (.key, .keyType, .string("73"), .number(73)),
            (.key, .keyClass, .string("1"), .number(1)),
            (.key, .applicationLabel, .string("lbl"), .data(Data("lbl".utf8))),
            (.key, .applicationTag, .string("tag"), .string("tag")),
            (.genericPassword, .accessGroup, .data(Data("com.example.shared".utf8)), .string("com.example.shared")),
        ]
    )
    func valueKindsArePreservedOrCoercedAsApple(
        itemClass: ItemClass,
        name: AttributeName,
        given: AttributeValue,
        stored: AttributeValue
    ) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(itemClass, attributes: [name: given], data: nil)
        let found = try store.findOne(ItemQuery(itemClass, attributes: [name: given]))
        #expect(found.attributes[name] == stored, "\(itemClass.rawValue).\(name)")
    }

    @Test(
        arguments: [
            (AttributeName.account, AttributeValue.date(Date())),
            (.creationDate, .string("yesterday")),
            (.accessGroup, .number(1)),
            (.accessible, .string("zz")),
            (.accessible, .number(1)),
            (.multiUser, .data(Data([1, 2, 3]))),
            (.sha1, .data(Data([1]))),
            (.accessControl, .string("ak")),
            (.type, .data(Data([1]))),
        ]
    )
    func valueOfTheWrongKindIsParam(name: AttributeName, value: AttributeValue) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let error = expectKeychainError(.param, "\(name)") {
            try store.add(.genericPassword, attributes: [name: value], data: nil)
        }
        #expect(error?.code.rawValue == -50)
        expectKeychainError(.param, "\(name) in a query") {
            try store.find(ItemQuery(.genericPassword, attributes: [name: value]))
        }
    }

    @Test(
        arguments: [
            (ItemClass.genericPassword, AttributeName.server),
            (.genericPassword, .subject),
            (.genericPassword, "zzzz"),
            (.internetPassword, .service),
            (.internetPassword, .generic),
            (.certificate, .account),
            (.certificate, .applicationTag),
            (.key, .issuer),
            (.key, .account),
        ]
    )
    func attributeTheClassDoesNotHaveIsNoSuchAttribute(itemClass: ItemClass, name: AttributeName) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let error = expectKeychainError(.noSuchAttribute, "\(itemClass.rawValue).\(name)") {
            try store.add(itemClass, attributes: [name: .string("x")], data: nil)
        }
        #expect(error?.code.rawValue == -25303)
        expectKeychainError(.noSuchAttribute) { try store.find(ItemQuery(itemClass, attributes: [name: .string("x")])) }
        expectKeychainError(.noSuchAttribute) {
            try store.update(ItemQuery(itemClass), with: ItemChanges(attributes: [name: .string("x")]))
        }
        expectKeychainError(.noSuchAttribute) {
            try store.delete(ItemQuery(itemClass, attributes: [name: .string("x")]))
        }
    }

    @Test func identitiesCannotBeAdded() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        expectKeychainError(.unimplemented) { try store.add(.identity, attributes: [:], data: nil) }
    }

    // MARK: - Access groups

    @Test func explicitForeignAccessGroupIsMissingEntitlementNamingTheGroup() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let foreign: [AttributeName: AttributeValue] = [.accessGroup: .string("com.evil.other")]
        let error = expectKeychainError(.missingEntitlement) {
            try store.add(.genericPassword, attributes: foreign, data: nil)
        }
        #expect(error?.code.rawValue == -34018)
        #expect(error?.message.contains("com.evil.other") == true)
        expectKeychainError(.missingEntitlement) { try store.find(ItemQuery(.genericPassword, attributes: foreign)) }
        expectKeychainError(.missingEntitlement) { try store.delete(ItemQuery(.genericPassword, attributes: foreign)) }
        try store.add(.genericPassword, attributes: [:], data: nil)
        expectKeychainError(.missingEntitlement) {
            try store.update(ItemQuery(.genericPassword), with: ItemChanges(attributes: foreign))
        }
    }

    @Test func processWithoutAccessGroupsIsMissingEntitlement() throws {
        let keychain = TemporaryKeychain()
        _ = try keychain.open()
        let store = try keychain.open(accessGroups: [])
        expectKeychainError(.missingEntitlement) { try store.add(.genericPassword, attributes: [:], data: nil) }
        expectKeychainError(.missingEntitlement) { try store.find(ItemQuery(.genericPassword)) }
    }

    @Test func itemsOfOtherGroupsAreInvisible() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        let other = try keychain.open(accessGroups: ["com.example.other"])
        expectKeychainError(.itemNotFound) { try other.findOne(Self.account("a")) }
        expectKeychainError(.itemNotFound) { try other.delete(Self.account("a")) }
        // The same key may be added in the other group.
        try other.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        #expect(try store.find(Self.account("a"), limit: .all).count == 1)
    }

    // MARK: - Synchronizable items and tombstones

    static func storeWithLocalAndSyncedItem() throws -> (TemporaryKeychain, KeychainStore) {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "local"))
        try store.add(
            .genericPassword,
            attributes: [.account: .string("a"), .synchronizable: .bool(true)],
            data: SecretData(string: "synced")
        )
        return (keychain, store)
    }

    @Test(
        arguments: [
            (ItemQuery.Synchronizable.no, ["local"]),
            (.yes, ["synced"]),
            (.any, ["local", "synced"]),
        ]
    )
    func synchronizableFilterIsImplicitlyNo(filter: ItemQuery.Synchronizable, expected: [String]) throws {
        let (_, store) = try Self.storeWithLocalAndSyncedItem()
        let found = try store.find(
            ItemQuery(.genericPassword, attributes: [.account: .string("a")], synchronizable: filter),
            limit: .all,
            withData: true
        )
        #expect(found.map(\.data) == expected.map { SecretData(string: $0) })
    }

    @Test func explicitSyncAttributeOverridesTheImplicitFilter() throws {
        let (_, store) = try Self.storeWithLocalAndSyncedItem()
        let synced = try store.find(
            ItemQuery(.genericPassword, attributes: [.synchronizable: .number(1)]),
            limit: .all,
            withData: true
        )
        #expect(synced.map(\.data) == [SecretData(string: "synced")])
        #expect(synced.first?.attributes[.synchronizable] == .number(1))
    }

    @Test func deletingASyncedItemLeavesAnInvisibleTombstoneThatReAddReplaces() throws {
        let (_, store) = try Self.storeWithLocalAndSyncedItem()
        let syncedQuery = ItemQuery(.genericPassword, attributes: [.account: .string("a")], synchronizable: .yes)
        let original = try store.findOne(syncedQuery)
        #expect(try store.delete(syncedQuery) == 1)

        // Invisible to every normal query.
        expectKeychainError(.itemNotFound) { try store.findOne(syncedQuery) }
        let anySync = ItemQuery(.genericPassword, synchronizable: .any)
        #expect(try store.find(anySync, limit: .all, withData: true).map(\.data) == [SecretData(string: "local")])
        expectKeychainError(.itemNotFound) { try store.delete(syncedQuery) }

        // But present as a tombstone: primary key kept, secret and other attributes gone.
        var tombstoneQuery = syncedQuery
        tombstoneQuery.includeTombstones = true
        let tombstone = try store.findOne(tombstoneQuery, withData: true)
        #expect(tombstone.attributes[.tombstone] == .number(1))
        #expect(tombstone.attributes[.account] == .string("a"))
        #expect(tombstone.data == nil)
        #expect(tombstone.persistentReference == original.persistentReference)

        // Re-adding the same primary key replaces the tombstone.
        try store.add(
            .genericPassword,
            attributes: [.account: .string("a"), .synchronizable: .number(1)],
            data: SecretData(string: "again")
        )
        #expect(try store.findOne(syncedQuery, withData: true).data == SecretData(string: "again"))
        let rows = try store.find(tombstoneQuery, limit: .all)
        #expect(rows.count == 1)
        #expect(rows.first?.attributes[.tombstone] == .number(0))
    }

    @Test func deletingALocalItemRemovesItCompletely() throws {
        let (_, store) = try Self.storeWithLocalAndSyncedItem()
        #expect(try store.delete(Self.account("a")) == 1)
        var everything = ItemQuery(.genericPassword, synchronizable: .any)
        everything.includeTombstones = true
        #expect(try store.find(everything, limit: .all).map { $0.attributes[.synchronizable] } == [.number(1)])
    }

    // MARK: - Update

    @Test func updateStrictlyIncreasesTheModificationDateAndKeepsTheCreationDate() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let added = try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "1"))
        var previous = try #require(added.attributes[.modificationDate]?.dateValue)
        for round in 0..<3 {
            #expect(
                try store.update(Self.account("a"), with: ItemChanges(attributes: [.label: .string("\(round)")])) == 1
            )
            let found = try store.findOne(Self.account("a"), withData: true)
            let modified = try #require(found.attributes[.modificationDate]?.dateValue)
            #expect(modified > previous)
            #expect(found.attributes[.creationDate] == added.attributes[.creationDate])
            #expect(found.attributes[.label] == .string("\(round)"))
            #expect(found.data == SecretData(string: "1"), "the secret is kept when not changed")
            previous = modified
        }
    }

    @Test func updateReplacesTheSecret() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "old"))
        try store.update(Self.account("a"), with: ItemChanges(data: SecretData(string: "new")))
        #expect(try store.findOne(Self.account("a"), withData: true).data == SecretData(string: "new"))
    }

    @Test func updateIgnoresCallerDatesAndMultiUser() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let added = try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        let past = AttributeValue.date(Date(timeIntervalSince1970: 0))
        try store.update(
            Self.account("a"),
            with: ItemChanges(attributes: [
                .creationDate: past, .modificationDate: past, .multiUser: .data(Data(count: 16)),
            ])
        )
        let found = try store.findOne(Self.account("a"))
        #expect(found.attributes[.creationDate] == added.attributes[.creationDate])
        #expect(found.attributes[.modificationDate] != past)
        #expect(found.attributes[.multiUser] == .data(Data()))
    }

    @Test func changingAccessibilityReEncryptsUnderTheNewClass() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "s"))
        try store.update(Self.account("a"), with: ItemChanges(attributes: [.accessible: .string("ck")]))
        let found = try store.findOne(Self.account("a"), withData: true)
        #expect(found.attributes[.accessible] == .string("ck"))
        #expect(found.data == SecretData(string: "s"))
        // Readable while locked only if it really is encrypted under the `ck` class key now.
        store.lock()
        #expect(try store.findOne(Self.account("a"), withData: true).data == SecretData(string: "s"))
        #expect(
            try store.findOne(ItemQuery(.genericPassword, attributes: [.accessible: .string("ck")])).attributes[
                .account
            ]
                == .string("a")
        )
        #expect(try store.verifyIntegrity().isSound)
    }

    /// Moving the second of two matched items onto a third item's key fails, and the first item's
    /// already-applied change is rolled back too.
    @Test func updateCollidingWithAnotherItemChangesNothing() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.account: .string("a"), .service: .string("S")],
            data: SecretData(string: "A")
        )
        try store.add(
            .genericPassword,
            attributes: [.account: .string("b"), .service: .string("S")],
            data: SecretData(string: "B")
        )
        try store.add(
            .genericPassword,
            attributes: [.account: .string("b"), .service: .string("T")],
            data: SecretData(string: "C")
        )
        let snapshot = try store.find(ItemQuery(.genericPassword), limit: .all, withData: true)

        let error = expectKeychainError(.duplicateItem) {
            try store.update(
                ItemQuery(.genericPassword, attributes: [.service: .string("S")]),
                with: ItemChanges(
                    attributes: [.service: .string("T"), .label: .string("moved")],
                    data: SecretData(string: "X")
                )
            )
        }
        #expect(error?.code.rawValue == -25299)
        #expect(try store.find(ItemQuery(.genericPassword), limit: .all, withData: true) == snapshot)
        expectKeychainError(.itemNotFound) {
            try store.findOne(
                ItemQuery(.genericPassword, attributes: [.account: .string("a"), .service: .string("T")])
            )
        }
    }

    @Test func updateOfEveryMatchAppliesToAll() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for name in ["a", "b", "c"] {
            try store.add(.genericPassword, attributes: [.account: .string(name), .service: .string("S")], data: nil)
        }
        #expect(
            try store.update(ItemQuery(.genericPassword), with: ItemChanges(attributes: [.label: .string("L")])) == 3
        )
        let labels = try store.find(ItemQuery(.genericPassword, attributes: [.label: .string("L")]), limit: .all)
        #expect(Self.accounts(labels) == [.string("a"), .string("b"), .string("c")])
    }

    @Test func updateWithNoMatchIsItemNotFound() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        let error = expectKeychainError(.itemNotFound) {
            try store.update(Self.account("nobody"), with: ItemChanges(attributes: [.label: .string("x")]))
        }
        #expect(error?.code.rawValue == -25300)
    }

    @Test func updateChangingTheKeyOfASyncedItemLeavesATombstoneForTheOldKey() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("old"), .synchronizable: .number(1)], data: nil)
        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("old")], synchronizable: .yes),
            with: ItemChanges(attributes: [.account: .string("new")])
        )
        var query = ItemQuery(.genericPassword, synchronizable: .yes)
        query.includeTombstones = true
        let rows = try store.find(query, limit: .all)
        #expect(
            Set(rows.map { [$0.attributes[.account], $0.attributes[.tombstone]] }) == [
                [.string("new"), .number(0)], [.string("old"), .number(1)],
            ]
        )
    }

    /// docs/apple-semantics.md §3.8: an update whose new primary key belongs to a tombstone replaces the tombstone.
    @Test func updateOntoATombstonesKeyReplacesTheTombstone() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let synced: [AttributeName: AttributeValue] = [.synchronizable: .number(1)]
        try store.add(.genericPassword, attributes: synced.merging([.account: .string("x")]) { $1 }, data: nil)
        try store.add(
            .genericPassword,
            attributes: synced.merging([.account: .string("y")]) { $1 },
            data: SecretData(string: "Y")
        )
        try store.delete(ItemQuery(.genericPassword, attributes: [.account: .string("x")], synchronizable: .yes))

        try store.update(
            ItemQuery(.genericPassword, attributes: [.account: .string("y")], synchronizable: .yes),
            with: ItemChanges(attributes: [.account: .string("x")])
        )
        let moved = try store.findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("x")], synchronizable: .yes),
            withData: true
        )
        #expect(moved.data == SecretData(string: "Y"))
        // What remains: the live item under x, and a fresh tombstone for y.
        var everything = ItemQuery(.genericPassword, synchronizable: .any)
        everything.includeTombstones = true
        let rows = try store.find(everything, limit: .all)
        #expect(
            Set(rows.map { [$0.attributes[.account], $0.attributes[.tombstone]] }) == [
                [.string("x"), .number(0)], [.string("y"), .number(1)],
            ]
        )
    }

    /// Like add, an update cannot make an item `whenPasscodeSetThisDeviceOnly` in a keychain without a
    /// passphrase (docs/apple-semantics.md §3.10, errSecAuthFailed).
    @Test func updatingToPasscodeOnlyNeedsAPassphraseSlot() throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        let store = try keychain.open(credentials: [keyFile])
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "s"))
        expectKeychainError(.authFailed) {
            try store.update(Self.account("a"), with: ItemChanges(attributes: [.accessible: .string("akpu")]))
        }
        #expect(try store.findOne(Self.account("a")).attributes[.accessible] == .string("ak"))
    }

    // MARK: - Find

    @Test func findAllReturnsInsertionOrder() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let names = ["zeta", "alpha", "mid", "beta", "omega"]
        for name in names {
            try store.add(.genericPassword, attributes: [.account: .string(name), .service: .string("S")], data: nil)
        }
        let all = try store.find(ItemQuery(.genericPassword, attributes: [.service: .string("S")]), limit: .all)
        #expect(Self.accounts(all) == names.map { .string($0) })
        let unfiltered = try store.find(ItemQuery(.genericPassword), limit: .all)
        #expect(Self.accounts(unfiltered) == names.map { .string($0) })
    }

    @Test(arguments: [MatchLimit.one, .all, .count(1), .count(3)])
    func findWithNoMatchIsItemNotFoundNeverEmpty(limit: MatchLimit) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        let error = expectKeychainError(.itemNotFound) { try store.find(Self.account("b"), limit: limit) }
        #expect(error?.code.rawValue == -25300)
        // An empty class also says not found.
        expectKeychainError(.itemNotFound) { try store.find(ItemQuery(.internetPassword), limit: limit) }
    }

    @Test(
        arguments: [
            (MatchLimit.one, 1),
            (.count(1), 1),
            (.count(2), 2),
            (.count(5), 5),
            (.count(50), 5),
            (.all, 5),
        ]
    )
    func matchLimitCapsTheResultInOrder(limit: MatchLimit, count: Int) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for index in 0..<5 {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("i\(index)"), .comment: .string("c")],
                data: nil
            )
        }
        let expected = (0..<count).map { AttributeValue.string("i\($0)") }
        #expect(Self.accounts(try store.find(ItemQuery(.genericPassword), limit: limit)) == expected)
        // A filter on an attribute without a token column (comment) gives the same result.
        let unindexed = ItemQuery(.genericPassword, attributes: [.comment: .string("c")])
        #expect(Self.accounts(try store.find(unindexed, limit: limit)) == expected)
    }

    @Test func filtersOnEveryGivenAttributeAreANDed() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.account: .string("a"), .service: .string("S")], data: nil)
        try store.add(.genericPassword, attributes: [.account: .string("a"), .service: .string("T")], data: nil)
        try store.add(.genericPassword, attributes: [.account: .string("b"), .service: .string("S")], data: nil)
        let found = try store.find(
            ItemQuery(.genericPassword, attributes: [.account: .string("a"), .service: .string("T")]),
            limit: .all
        )
        #expect(found.map { $0.attributes[.service] } == [.string("T")])
        // An over-specified query (non-key attribute that differs) finds nothing, yet the add collides.
        expectKeychainError(.itemNotFound) {
            try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("a"), .label: .string("x")]))
        }
        expectKeychainError(.duplicateItem) {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("a"), .service: .string("S"), .label: .string("x")],
                data: nil
            )
        }
    }

    // MARK: - Persistent references

    @Test(arguments: ItemClass.storable)
    func persistentReferenceFindsTheItemAgain(itemClass: ItemClass) throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        // A primary-key attribute of each class, so that the two items are distinct.
        let key: AttributeName =
            switch itemClass {
            case .genericPassword: .account
            case .internetPassword: .server
            case .certificate: .serialNumber
            case .key, .identity: .applicationTag
            }
        try store.add(
            itemClass,
            attributes: [.label: .string("first"), key: .string("1")],
            data: SecretData(string: "1")
        )
        let added = try store.add(
            itemClass,
            attributes: [.label: .string("second"), .alias: .string("x"), key: .string("2")],
            data: SecretData(string: "2")
        )
        let reference = added.persistentReference
        #expect(reference.count == 20)
        #expect(reference.prefix(4) == Data(itemClass.rawValue.utf8))

        let byReference = try store.findOne(ItemQuery(nil, persistentReference: reference), withData: true)
        #expect(byReference.itemClass == itemClass)
        #expect(byReference.data == SecretData(string: "2"))
        #expect(byReference.attributes[.label] == .string("second"))
        #expect(byReference.persistentReference == reference)
        // With the same class named explicitly it also works.
        #expect(
            try store.findOne(ItemQuery(itemClass, persistentReference: reference)).persistentReference == reference
        )
    }

    @Test func persistentReferenceSurvivesUpdates() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let added = try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        try store.update(Self.account("a"), with: ItemChanges(attributes: [.account: .string("b")]))
        let found = try store.findOne(ItemQuery(nil, persistentReference: added.persistentReference))
        #expect(found.attributes[.account] == .string("b"))
    }

    @Test func malformedOrMismatchedPersistentReferencesAreParam() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let reference = try store.add(.genericPassword, attributes: [:], data: nil).persistentReference
        expectKeychainError(.param) { try store.findOne(ItemQuery(.internetPassword, persistentReference: reference)) }
        expectKeychainError(.param) { try store.findOne(ItemQuery(nil, persistentReference: reference.dropLast())) }
        expectKeychainError(.param) {
            try store.findOne(ItemQuery(nil, persistentReference: Data("xxxx".utf8) + reference.suffix(16)))
        }
        expectKeychainError(.param) { try store.findOne(ItemQuery(nil)) }
        // A well-formed reference to a deleted item is simply not found.
        try store.delete(ItemQuery(.genericPassword))
        expectKeychainError(.itemNotFound) { try store.findOne(ItemQuery(nil, persistentReference: reference)) }
    }

    // MARK: - Delete

    @Test func deleteReturnsTheCountAndTheItemsAreGone() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for name in ["a", "b", "c"] {
            try store.add(.genericPassword, attributes: [.account: .string(name), .service: .string("S")], data: nil)
        }
        try store.add(.genericPassword, attributes: [.account: .string("d"), .service: .string("T")], data: nil)
        let inSQuery = ItemQuery(.genericPassword, attributes: [.service: .string("S")])
        #expect(try store.delete(inSQuery) == 3)
        expectKeychainError(.itemNotFound) { try store.find(inSQuery, limit: .all) }
        expectKeychainError(.itemNotFound) { try store.delete(inSQuery) }
        #expect(Self.accounts(try store.find(ItemQuery(.genericPassword), limit: .all)) == [.string("d")])
    }

    @Test func changeCounterMovesOnEveryCommittedChangeOnly() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let start = try store.changeCounter()
        try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil)
        try store.update(Self.account("a"), with: ItemChanges(attributes: [.label: .string("l")]))
        try store.delete(Self.account("a"))
        #expect(try store.changeCounter() == start + 3)
        expectKeychainError(.itemNotFound) { try store.delete(Self.account("a")) }
        #expect(try store.changeCounter() == start + 3)
    }
}
