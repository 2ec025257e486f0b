import Crypto
import Foundation
import Latchkey
import LatchkeySync
import Testing

/// Identity: one item, one row, on every machine; nothing else shares it.
@Suite struct ItemIdentityTests {
    private func identity(
        _ attributes: [AttributeName: AttributeValue],
        of itemClass: ItemClass = .genericPassword,
        keys: SyncKeys? = nil
    ) throws -> ItemIdentity {
        try ItemIdentity(itemClass: itemClass, attributes: attributes, keys: keys ?? SyncFixture.keys())
    }

    private let alice: [AttributeName: AttributeValue] = [
        .account: .string("alice@example.com"), .service: .string("mail.example.com"),
        .accessGroup: .string("com.example.mail"), .synchronizable: .number(1),
    ]

    @Test func sameClassAndPrimaryKeyOnTwoMachinesGiveOneRow() throws {
        // Each machine derives its keys from the sync key on its own; their other attributes differ.
        let machineA = try SyncKeys(syncKey: SyncFixture.syncKey, keychain: SyncFixture.keychain, epoch: 0)
        let machineB = try SyncKeys(
            syncKey: SymmetricKey(data: SyncFixture.syncKey.withUnsafeBytes { Data($0) }),
            keychain: SyncFixture.keychain,
            epoch: 0
        )
        var onB = alice
        onB[.label] = .string("Mail on B")
        onB[.comment] = .string("added on B")
        onB[.account] = .data(Data("alice@example.com".utf8))  // data and string with equal bytes are one key
        let first = try identity(alice, keys: machineA)
        let second = try identity(onB, keys: machineB)
        #expect(first == second)
        #expect(first.rowID == second.rowID)
        #expect(first.digest.count == 32)
        #expect(first.rowID.uuidString.dropFirst(14).first == "8")  // an RFC 9562 version 8 UUID
    }

    @Test func defaultsAndExplicitDefaultsGiveOneIdentity() throws {
        var explicit = alice
        explicit[.syncViewHint] = .string("")
        explicit[.tokenID] = .string("")
        explicit[.sharingGroup] = .string("")
        explicit[.multiUser] = .data(Data())
        #expect(try identity(alice) == identity(explicit))
    }

    @Test(arguments: [
        (AttributeName.account, AttributeValue.string("bob@example.com")),
        (.service, .string("chat.example.com")),
        (.accessGroup, .string("com.example.other")),
        (.synchronizable, .number(0)),
        (.syncViewHint, .string("view")),
    ])
    func anotherPrimaryKeyValueGivesAnotherRow(name: AttributeName, value: AttributeValue) throws {
        var changed = alice
        changed[name] = value
        #expect(try identity(changed).rowID != identity(alice).rowID)
    }

    @Test func anotherClassWithTheSameAttributesGivesAnotherRow() throws {
        let password = try identity(alice)
        let internet = try identity(alice, of: .internetPassword)
        #expect(password.rowID != internet.rowID)
    }

    @Test func anotherSyncKeyOrKeychainGivesAnotherRow() throws {
        let otherKey = try SyncKeys(syncKey: SymmetricKey(size: .bits256), keychain: SyncFixture.keychain, epoch: 0)
        let otherKeychain = try SyncKeys(syncKey: SyncFixture.syncKey, keychain: UUID(), epoch: 0)
        let base = try identity(alice)
        #expect(try identity(alice, keys: otherKey) != base)
        #expect(try identity(alice, keys: otherKeychain) != base)
    }

    @Test func lengthPrefixesKeepShiftedValuesApart() throws {
        // "ab" + "c" and "a" + "bc" concatenate alike; the encoding's lengths tell them apart.
        var left = alice
        left[.account] = .string("ab")
        left[.service] = .string("c")
        var right = alice
        right[.account] = .string("a")
        right[.service] = .string("bc")
        #expect(try identity(left) != identity(right))
    }

    @Test func identitiesAreNotSynchronizedItems() throws {
        #expect(throws: KeychainError.self) { try identity(alice, of: .identity) }
    }

    @Test func aWrongSizedSyncKeyIsRefused() {
        let error = #expect(throws: KeychainError.self) {
            try SyncKeys(syncKey: SymmetricKey(size: .bits128), keychain: SyncFixture.keychain, epoch: 0)
        }
        #expect(error?.code == .param)
    }
}
