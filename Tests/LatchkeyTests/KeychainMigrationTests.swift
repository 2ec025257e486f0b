import Foundation
import Latchkey
import LatchkeyTesting
import Synchronization
import Testing

struct KeychainMigrationTests {
    struct InjectedFailure: Error {}

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func increment() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }

    /// A keychain with three items and a snapshot helper.
    private func populated(_ test: TestKeychain, service: String = "legacy") throws -> Keychain {
        let keychain = test.keychain(service: service).accessibility(.whenUnlocked)
        try keychain.label("A").set("alpha", forKey: "a")
        try keychain.set("beta", forKey: "b")
        try keychain.set(KeychainTestSession.sample, forKey: "session")
        return keychain
    }

    /// Every generic password in the file, as (service, key, accessibility, sync, group, value).
    private func snapshot(_ test: TestKeychain) throws -> [String] {
        let items: [FoundItem]
        do {
            items = try test.store.find(ItemQuery(.genericPassword, synchronizable: .any), limit: .all, withData: true)
        } catch {
            // A conditional catch (`catch KeychainError.Code.itemNotFound` or `catch where ...`) of a typed
            // error in an untyped `throws` function crashes Swift 6.3.1's SILGen ("Found ownership error").
            guard error.code == .itemNotFound else { throw error }
            return []
        }
        return items.map { item in
            let attributes = item.attributes
            return [
                attributes[.service]?.stringValue ?? "?", attributes[.account]?.stringValue ?? "?",
                attributes[.accessible]?.stringValue ?? "?", "\(attributes[.synchronizable]?.numberValue ?? -1)",
                attributes[.accessGroup]?.stringValue ?? "?", item.data?.utf8String ?? "?",
                "\(attributes[.creationDate]?.dateValue?.timeIntervalSince1970 ?? 0)",
            ].joined(separator: "|")
        }.sorted()
    }

    @Test func movesItemsToAnotherService() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let new = test.keychain(service: "modern")
        let report = try old.migrate(to: new)
        #expect(report.entries.map(\.action) == [.moved, .moved, .moved])
        #expect(!report.isDryRun)
        #expect(try old.allKeys() == [])
        #expect(try new.allKeys().sorted() == ["a", "b", "session"])
        #expect(try new.string(forKey: "a") == "alpha")
        #expect(try new.value(KeychainTestSession.self, forKey: "session") == .sample)
        #expect(try new.metadata(forKey: "a")?.accessibility == .afterFirstUnlock)
        #expect(try new.metadata(forKey: "a")?.label == "A")
    }

    @Test func changingAccessibilityRewritesInPlaceWithoutDuplicate() throws {
        let test = try TestKeychain.inMemory()
        let keychain = try populated(test)
        let before = try keychain.items()
        let report = try keychain.migrate(to: keychain.accessibility(.afterFirstUnlock))
        #expect(report.entries.map(\.action) == [.rewrittenInPlace, .rewrittenInPlace, .rewrittenInPlace])
        let after = try keychain.items()
        #expect(after.map(\.key) == before.map(\.key))
        #expect(after.map(\.persistentReference) == before.map(\.persistentReference))
        #expect(after.map(\.creationDate) == before.map(\.creationDate))
        #expect(after.allSatisfy { $0.accessibility == .afterFirstUnlock })
        test.lock()
        #expect(try keychain.string(forKey: "b") == "beta")
    }

    @Test func movesBetweenAccessGroupsAndSyncPolicies() throws {
        let test = try TestKeychain.inMemory(accessGroups: ["com.example.app", "com.example.shared"])
        let local = try populated(test)
        let shared = local.accessGroup("com.example.shared").synchronizable(.synchronized)
        try local.migrate(to: shared)
        #expect(try local.allKeys() == [])
        let items = try shared.items()
        #expect(items.count == 3)
        #expect(items.allSatisfy { $0.accessGroup == "com.example.shared" && $0.isSynchronizable })
        // And back: synchronizable → local leaves tombstones behind, never a duplicate.
        try shared.migrate(to: local.accessGroup("com.example.app"))
        #expect(try local.allKeys().sorted() == ["a", "b", "session"])
        #expect(try shared.allKeys() == [])
    }

    @Test func transformRewritesKeysAndValuesAndCanSkip() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let new = test.keychain(service: "modern")
        let report = try old.migrate(to: new) { item in
            guard item.key != "b" else { return nil }
            var item = item
            item.key = "v2." + item.key
            if item.sourceKey == "a" { item.value = SecretData(string: "ALPHA") }
            item.comment = "migrated"
            return item
        }
        #expect(report.entries(.skippedByTransform).map(\.sourceKey) == ["b"])
        #expect(report.entries(.moved).map(\.destinationKey) == ["v2.a", "v2.session"])
        #expect(try new.string(forKey: "v2.a") == "ALPHA")
        #expect(try new.metadata(forKey: "v2.a")?.comment == "migrated")
        #expect(try old.allKeys() == ["b"])
    }

    @Test func dryRunReportsAndChangesNothing() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        try test.keychain(service: "modern").set("existing", forKey: "b")
        let before = try snapshot(test)
        let counter = try test.store.changeCounter()
        let migration = KeychainMigration(from: old, to: test.keychain(service: "modern"))
        let report = try migration.dryRun()
        #expect(report.isDryRun)
        #expect(report.entries.map(\.action) == [.moved, .conflict, .moved])
        #expect(report.summary == "2 moved, 1 conflict")
        #expect(try snapshot(test) == before)
        #expect(try test.store.changeCounter() == counter)
    }

    @Test func conflictUnderFailThrowsAndChangesNothing() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let new = test.keychain(service: "modern")
        try new.set("existing", forKey: "session")
        let before = try snapshot(test)
        let error = try #require(throws: KeychainError.self) { try old.migrate(to: new) }
        #expect(error.code == .duplicateItem)
        #expect(error.message.contains("dryRun"))
        #expect(try snapshot(test) == before)
    }

    @Test func conflictPoliciesReplaceOrKeep() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let new = test.keychain(service: "modern")
        try new.set("existing", forKey: "a")
        let kept = try old.migrate(to: new, conflictPolicy: .keepDestination)
        #expect(kept.entries(.keptDestination).map(\.sourceKey) == ["a"])
        #expect(try new.string(forKey: "a") == "existing")
        #expect(try old.string(forKey: "a") == "alpha")

        let replaced = try old.migrate(to: new, conflictPolicy: .replaceDestination)
        #expect(replaced.entries(.replacedDestination).map(\.sourceKey) == ["a"])
        #expect(try new.string(forKey: "a") == "alpha")
        #expect(try old.allKeys() == [])
    }

    @Test func copyModeKeepsTheSource() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let report = try old.migrate(to: test.keychain(service: "copy"), mode: .copy)
        #expect(report.entries.map(\.action) == [.copied, .copied, .copied])
        #expect(try old.allKeys().count == 3)
        #expect(try test.keychain(service: "copy").allKeys().count == 3)
    }

    @Test func injectedFailureMidwayRollsEverythingBack() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let before = try snapshot(test)
        let counter = try test.store.changeCounter()
        let processed = Counter()
        #expect(throws: InjectedFailure.self) {
            try old.migrate(to: test.keychain(service: "modern").accessibility(.always)) { item in
                // The first two items are already written inside the transaction when this throws.
                let count = processed.increment()
                if count == 3 { throw InjectedFailure() }
                return item
            }
        }
        #expect(processed.value == 3)
        #expect(try snapshot(test) == before)
        #expect(try test.store.changeCounter() == counter)
        #expect(try test.keychain(service: "modern").allKeys() == [])
    }

    @Test func lockedDestinationClassRollsBack() throws {
        let test = try TestKeychain.inMemory()
        let old = test.keychain(service: "legacy").accessibility(.afterFirstUnlock)
        try old.set("x", forKey: "a")
        try old.set("y", forKey: "b")
        let before = try snapshot(test)
        test.lock()
        let error = try #require(throws: KeychainError.self) {
            try old.migrate(to: test.keychain(service: "modern").accessibility(.whenUnlocked))
        }
        #expect(error.code == .interactionNotAllowed)
        try test.unlock()
        #expect(try snapshot(test) == before)
    }

    @Test func twoSourceItemsMappingToOneKeyAreAConflict() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let report = try old.migrate(to: test.keychain(service: "merged"), conflictPolicy: .keepDestination) { item in
            var item = item
            item.key = "same"
            return item
        }
        #expect(report.entries.map(\.action) == [.moved, .keptDestination, .keptDestination])
        #expect(try old.allKeys().sorted() == ["b", "session"])
    }

    @Test func differentFilesAreRefused() throws {
        let first = try TestKeychain.inMemory()
        let second = try TestKeychain.inMemory()
        try first.keychain().set("v", forKey: "k")
        let error = try #require(throws: KeychainError.self) {
            try first.keychain().migrate(to: second.keychain(service: "other"))
        }
        #expect(error.code == .param)
    }

    @Test func asyncMigration() async throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let migration = KeychainMigration(from: old, to: test.keychain(service: "modern"))
        #expect(try await migration.dryRun().entries.count == 3)
        try await migration.run()
        #expect(try await test.keychain(service: "modern").allKeys().count == 3)
    }

    @Test func reportDescriptionHidesKeys() throws {
        let test = try TestKeychain.inMemory()
        let old = try populated(test)
        let report = try KeychainMigration(from: old, to: test.keychain(service: "modern")).dryRun()
        #expect("\(report)" == "MigrationReport(dry run: 3 moved)")
        #expect(!"\(report.entries)".contains("session"))
    }
}
