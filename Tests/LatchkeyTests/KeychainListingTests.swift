import Foundation
import Latchkey
import LatchkeyTesting
import Testing

struct KeychainListingTests {
    @Test func allKeysIsScopedToTheService() throws {
        let test = try TestKeychain.inMemory()
        let app = test.keychain(service: "app")
        try app.set("1", forKey: "a")
        try app.set("2", forKey: "b")
        try test.keychain(service: "other").set("3", forKey: "c")
        try test.store.add(.internetPassword, attributes: [.server: .string("example.com")], data: nil)
        #expect(try app.allKeys() == ["a", "b"])
        #expect(try test.keychain(service: "empty").allKeys() == [])
    }

    @Test func itemsCarryMetadataWithoutSecrets() throws {
        let keychain = try TestKeychain.inMemory().keychain().label("My label").comment("My comment")
        let start = Date()
        try keychain.set("v", forKey: "k")
        let items = try keychain.items()
        let item = try #require(items.first)
        #expect(items.count == 1)
        #expect(item.key == "k")
        #expect(item.label == "My label")
        #expect(item.comment == "My comment")
        #expect(item.accessibility == .afterFirstUnlock)
        #expect(item.accessGroup == "com.example.tests")
        #expect(!item.isSynchronizable)
        #expect(try #require(item.creationDate) >= start.addingTimeInterval(-1))
        #expect(item.modificationDate == item.creationDate)
        #expect(item.persistentReference.count == 20)
        #expect(!"\(item)".contains("My label"))
        #expect(!"\(item)".contains("\"k\""))
    }

    @Test func containsNeedsNoClassKey() throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try keychain.set("v", forKey: "k")
        test.lock()
        #expect(try keychain.contains("k"))
        #expect(try !keychain.contains("missing"))
        #expect(throws: KeychainError.self) { try keychain.string(forKey: "k") }
    }

    @Test func containsWorksInAFreshProcessThatNeverUnlocked() throws {
        let test = try TestKeychain.inMemory()
        try test.keychain().accessibility(.whenUnlocked).set("v", forKey: "k")
        let neverUnlocked = try test.openAnotherStore(unlocked: false)
        #expect(neverUnlocked.lockState == .neverUnlocked)
        let keychain = test.keychain().store(neverUnlocked)
        #expect(try keychain.contains("k"))
        #expect(try !keychain.contains("other"))
    }

    @Test func removeAllIsScopedToTheServiceByDefault() throws {
        let test = try TestKeychain.inMemory()
        let app = test.keychain(service: "app")
        let other = test.keychain(service: "other")
        for key in ["a", "b", "c"] { try app.set(key, forKey: key) }
        try other.set("keep", forKey: "a")
        #expect(try app.removeAll() == 3)
        #expect(try app.allKeys() == [])
        #expect(try other.string(forKey: "a") == "keep")
        #expect(try app.removeAll() == 0)
    }

    @Test func removeAllEverythingClearsEveryVisibleItemButNotOtherGroups() throws {
        let test = try TestKeychain.inMemory(accessGroups: ["com.example.app", "com.example.shared"])
        try test.keychain(service: "one").set("1", forKey: "a")
        try test.keychain(service: "two").synchronizable(.synchronized).set("2", forKey: "b")
        try test.keychain(service: "three").accessGroup("com.example.shared").set("3", forKey: "c")
        try test.keychain().setPassword("pw", for: InternetPassword(server: "example.com", account: "alice"))
        // An item in a group this process does not have, written by "another app".
        let otherApp = try test.openAnotherStore(accessGroups: ["com.example.other"])
        try Keychain(service: "foreign", store: otherApp).set("theirs", forKey: "d")

        #expect(try test.keychain().removeAll(.everythingVisibleToThisProcess) == 4)
        for service in ["one", "two", "three"] {
            #expect(try test.keychain(service: service).synchronizable(.any).allKeys() == [])
        }
        #expect(try test.keychain().internetPasswords().isEmpty)
        #expect(try Keychain(service: "foreign", store: otherApp).string(forKey: "d") == "theirs")
    }

    @Test func listingIsScopedToTheSyncPolicy() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set("l", forKey: "local")
        try keychain.synchronizable(.synchronized).set("s", forKey: "synced")
        #expect(try keychain.allKeys() == ["local"])
        #expect(try keychain.synchronizable(.synchronized).allKeys() == ["synced"])
        #expect(try keychain.synchronizable(.any).allKeys().sorted() == ["local", "synced"])
    }

    @Test func removingASynchronizableItemLeavesATombstoneLikeTheCore() throws {
        let test = try TestKeychain.inMemory()
        let synced = test.keychain(service: "svc").synchronizable(.synchronized)
        try synced.set("s", forKey: "k")
        #expect(try synced.removeValue(forKey: "k"))
        let tombstones = try test.store.find(
            ItemQuery(
                .genericPassword,
                attributes: [.service: .string("svc")],
                synchronizable: .yes,
                includeTombstones: true
            ),
            limit: .all
        )
        #expect(tombstones.count == 1)
        #expect(tombstones.first?.attributes[.tombstone] == .number(1))
        // A tombstone never blocks a new item under the same key.
        try synced.set("again", forKey: "k")
        #expect(try synced.string(forKey: "k") == "again")
    }
}
