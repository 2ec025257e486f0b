import Foundation
import Latchkey
import LatchkeyTesting
import Testing

struct KeychainUpsertTests {
    @Test func setTwiceUpdatesWithoutDuplicate() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set("one", forKey: "k")
        try keychain.set("two", forKey: "k")
        #expect(try keychain.string(forKey: "k") == "two")
        #expect(try keychain.allKeys() == ["k"])
    }

    @Test func upsertChangesAccessibilityWithoutDuplicate() throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try keychain.set("v1", forKey: "token")
        let before = try #require(try keychain.metadata(forKey: "token"))
        #expect(before.accessibility == .whenUnlocked)

        try keychain.accessibility(.afterFirstUnlock).set("v2", forKey: "token")
        let after = try #require(try keychain.metadata(forKey: "token"))
        #expect(after.accessibility == .afterFirstUnlock)
        #expect(after.creationDate == before.creationDate)
        #expect(after.persistentReference == before.persistentReference)
        #expect(try #require(after.modificationDate) > #require(before.modificationDate))
        #expect(try keychain.allKeys() == ["token"])

        // Re-encrypted under the new class: readable while locked, as afterFirstUnlock items are.
        test.lock()
        #expect(try keychain.string(forKey: "token") == "v2")
    }

    @Test(arguments: Accessibility.allCases.filter { $0 != .whenPasscodeSetThisDeviceOnly })
    func upsertMovesBetweenEveryClass(_ target: Accessibility) throws {
        let keychain = try TestKeychain.inMemory().keychain().accessibility(.whenUnlocked)
        try keychain.set("v", forKey: "k")
        try keychain.accessibility(target).set("w", forKey: "k")
        #expect(try keychain.metadata(forKey: "k")?.accessibility == target)
        #expect(try keychain.string(forKey: "k") == "w")
        #expect(try keychain.items().count == 1)
    }

    @Test func upsertChangesLabelAndCommentButKeepsThemWhenUnset() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.label("First").comment("Note").set("v", forKey: "k")
        try keychain.label("Second").set("w", forKey: "k")
        var metadata = try #require(try keychain.metadata(forKey: "k"))
        #expect(metadata.label == "Second")
        #expect(metadata.comment == "Note")
        try keychain.set("x", forKey: "k")
        metadata = try #require(try keychain.metadata(forKey: "k"))
        #expect(metadata.label == "Second")
    }

    @Test func upsertOfAnItemAddedThroughTheCoreUpdatesIt() throws {
        let test = try TestKeychain.inMemory()
        try test.store.add(
            .genericPassword,
            attributes: [.service: .string("svc"), .account: .string("k")],
            data: SecretData(string: "core")
        )
        let keychain = test.keychain(service: "svc")
        try keychain.set("typed", forKey: "k")
        #expect(try keychain.string(forKey: "k") == "typed")
        #expect(try keychain.allKeys() == ["k"])
    }

    @Test func concurrentUpsertsFromTwoStoresNeverDuplicate() async throws {
        let test = try TestKeychain.inMemory()
        let other = try test.openAnotherStore()
        let keychains = [test.keychain(), test.keychain().store(other)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                let keychain = keychains[index % 2].accessibility(
                    index.isMultiple(of: 3) ? .whenUnlocked : .afterFirstUnlock
                )
                group.addTask {
                    for round in 0..<50 { try await keychain.set("\(index)-\(round)", forKey: "shared") }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await keychains[0].items().count == 1)
    }

    @Test func synchronizablePolicyKeepsLocalAndSyncItemsApart() throws {
        let test = try TestKeychain.inMemory()
        let local = test.keychain()
        let synced = local.synchronizable(.synchronized)
        try local.set("local", forKey: "k")
        try synced.set("synced", forKey: "k")
        #expect(try local.string(forKey: "k") == "local")
        #expect(try synced.string(forKey: "k") == "synced")
        #expect(try synced.metadata(forKey: "k")?.isSynchronizable == true)
        #expect(try local.synchronizable(.any).items().count == 2)
        // `.any` updates whichever exists instead of adding a third item.
        try local.synchronizable(.any).set("either", forKey: "k")
        #expect(try local.synchronizable(.any).items().count == 2)
    }

    @Test func explicitAccessGroupIsWrittenAndSearched() throws {
        let test = try TestKeychain.inMemory(accessGroups: ["com.example.app", "com.example.shared"])
        let shared = test.keychain().accessGroup("com.example.shared")
        try shared.set("v", forKey: "k")
        #expect(try shared.metadata(forKey: "k")?.accessGroup == "com.example.shared")
        #expect(try test.keychain().accessGroup("com.example.app").string(forKey: "k") == nil)
        #expect(try test.keychain().string(forKey: "k") == "v")
    }
}
