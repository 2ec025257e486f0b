import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// `FindRequest.referencesOnly`: persistent references from the index alone (tokens and search tags), no
/// record opened, so that a locked keychain whose device secret opens its index key can still say which
/// items match (the Secret Service's search while locked).
struct ReferenceFindTests {
    private static func references(_ store: KeychainStore, _ query: ItemQuery) throws -> [Data] {
        try store.perform(.find(FindRequest(query, limit: .all, referencesOnly: true))).items().map(
            \.persistentReference
        )
    }

    @Test func lockedKeychainAnswersWithTheReferencesOfTheMatchingItems() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        let first = try store.add(
            .genericPassword,
            attributes: [.service: .string("s"), .account: .string("a")],
            data: SecretData(string: "one"),
            searchTags: ["x", "y"]
        )
        _ = try store.add(.genericPassword, attributes: [.account: .string("b")], data: nil, searchTags: ["x"])
        store.lock()

        let byTags = try Self.references(store, ItemQuery(.genericPassword, searchTags: ["x", "y"]))
        #expect(byTags == [first.persistentReference])
        let byService = try Self.references(store, ItemQuery(.genericPassword, attributes: [.service: .string("s")]))
        #expect(byService == [first.persistentReference])
        #expect(try Self.references(store, ItemQuery(.genericPassword, searchTags: ["x"])).count == 2)
        expectKeychainError(.itemNotFound) {
            _ = try Self.references(store, ItemQuery(.genericPassword, searchTags: ["z"]))
        }
        // Nothing else comes back, and the records stay closed until the keychain is unlocked.
        let found = try store.perform(
            .find(FindRequest(ItemQuery(.genericPassword, searchTags: ["y"]), referencesOnly: true))
        ).items()
        #expect(found.first?.attributes.isEmpty == true)
        #expect(found.first?.data == nil)
        expectKeychainError(.interactionNotAllowed) {
            _ = try store.find(ItemQuery(.genericPassword, persistentReference: first.persistentReference))
        }
        try store.unlock(with: .passphrase(keychain.passphrase))
        let opened = try store.findOne(ItemQuery(.genericPassword, persistentReference: byTags[0]), withData: true)
        #expect(opened.data == SecretData(string: "one"))
    }

    @Test func withoutTheDeviceSecretALockedKeychainSaysNothing() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        _ = try store.add(.genericPassword, attributes: [.account: .string("a")], data: nil, searchTags: ["x"])
        try store.close()
        let elsewhere = try keychain.open(credentials: [], deviceSecretPath: keychain.directory + "/another-device")
        expectKeychainError(.interactionNotAllowed) {
            _ = try Self.references(elsewhere, ItemQuery(.genericPassword, searchTags: ["x"]))
        }
    }

    @Test func referencesOnlyRefusesWhatItCannotAnswer() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        for request in [
            FindRequest(ItemQuery(.genericPassword), withData: true, referencesOnly: true),
            FindRequest(ItemQuery(.genericPassword), withSearchTags: true, referencesOnly: true),
            FindRequest(ItemQuery(.internetPassword, hostOrSubdomain: "example.com"), referencesOnly: true),
            FindRequest(ItemQuery(.genericPassword, attributes: [.syncViewHint: .string("v")]), referencesOnly: true),
        ] {
            expectKeychainError(.param) { _ = try store.perform(.find(request)) }
        }
    }
}
