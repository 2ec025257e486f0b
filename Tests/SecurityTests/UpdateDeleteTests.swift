#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// docs/apple-semantics.md §3.8–§3.9.
struct UpdateDeleteTests {
    private static var genp: [String: Any] { [kSecClass as String: kSecClassGenericPassword] }

    @Test func updateChangesAttributesAndSecretAndBumpsModificationDate() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            let before = try #require(Sec.attributes(Sec.password(data: nil)))
            let oldDate = try #require(before["mdat"] as? Date)
            #expect(
                Sec.update(
                    Sec.password(data: nil),
                    [kSecAttrLabel as String: "new", kSecValueData as String: Data("new".utf8)]
                ) == errSecSuccess
            )
            var read = Sec.password(data: nil)
            read[kSecReturnAttributes as String] = true
            read[kSecReturnData as String] = true
            let after = try #require(Sec.copy(read).1 as? [String: Any])
            #expect(after["labl"] as? String == "new")
            #expect(after["v_Data"] as? Data == Data("new".utf8))
            #expect((after["mdat"] as? Date).map { $0 > oldDate } == true)
            #expect(after["cdat"] as? Date == before["cdat"] as? Date)
            #expect(after["sha1"] as? Data != before["sha1"] as? Data)
        }
    }

    @Test func modificationDateStrictlyIncreasesOnRapidUpdates() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            var last = try #require(Sec.attributes(Sec.password(data: nil))?["mdat"] as? Date)
            for index in 0..<5 {
                #expect(Sec.update(Sec.password(data: nil), [kSecAttrLabel as String: "l\(index)"]) == errSecSuccess)
                let next = try #require(Sec.attributes(Sec.password(data: nil))?["mdat"] as? Date)
                #expect(next > last)
                last = next
            }
        }
    }

    @Test func updateNothingMatchingIsItemNotFound() throws {
        try withTemporaryKeychain { _ in
            #expect(Sec.update(Sec.password(data: nil), [kSecAttrLabel as String: "x"]) == errSecItemNotFound)
        }
    }

    @Test func updateOntoAnotherItemsPrimaryKeyIsDuplicateAndAtomic() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "a", data: "1"))
            Sec.add(Sec.password(account: "b", data: "2"))
            #expect(
                Sec.update(Sec.password(account: "a", data: nil), [kSecAttrAccount as String: "b"])
                    == errSecDuplicateItem
            )
            #expect(Sec.count(Self.genp) == 2)
            #expect(
                Sec.update(Sec.password(account: "a", data: nil), [kSecAttrAccount as String: "c"]) == errSecSuccess
            )
            #expect(Sec.count(Self.genp.merging([kSecAttrAccount as String: "c"]) { $1 }) == 1)
        }
    }

    @Test func updateAppliesToEveryMatch() throws {
        try withTemporaryKeychain { _ in
            for account in ["a", "b", "c"] { Sec.add(Sec.password(account: account)) }
            #expect(Sec.update(Self.genp, [kSecAttrLabel as String: "all"]) == errSecSuccess)
            #expect(Sec.count(Self.genp.merging([kSecAttrLabel as String: "all"]) { $1 }) == 3)
        }
    }

    @Test func updateAccessibilityMovesTheItemToTheNewClass() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            #expect(
                Sec.update(Sec.password(data: nil), [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])
                    == errSecSuccess
            )
            var read = Sec.password(data: nil)
            read[kSecReturnData as String] = true
            read[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            #expect(Sec.copy(read).1 as? Data == Data("s3cret".utf8))
        }
    }

    @Test func updateOfASynchronizableItemsKeyLeavesATombstone() throws {
        try withTemporaryKeychain { _ in
            var synced = Sec.password()
            synced[kSecAttrSynchronizable as String] = true
            Sec.add(synced)
            let any = Self.genp.merging([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) { $1 }
            #expect(Sec.update(any, [kSecAttrAccount as String: "renamed"]) == errSecSuccess)
            let tombstones = any.merging([kSecAttrTombstone as String: true]) { $1 }
            #expect(Sec.attributes(tombstones)?["acct"] as? String == "alice")
        }
    }

    @Test func deleteRemovesEveryMatchAndThenReportsNotFound() throws {
        try withTemporaryKeychain { _ in
            for account in ["a", "b"] { Sec.add(Sec.password(account: account)) }
            Sec.add(Sec.password(service: "other", account: "c"))
            #expect(Sec.delete(Self.genp.merging([kSecAttrService as String: "svc"]) { $1 }) == errSecSuccess)
            #expect(Sec.count(Self.genp) == 1)
            #expect(Sec.delete(Self.genp.merging([kSecAttrService as String: "svc"]) { $1 }) == errSecItemNotFound)
        }
    }

    @Test func deleteIgnoresValueDataSoTheItemIsDeletedWhateverItsSecret() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            #expect(Sec.delete(Sec.password(data: "different")) == errSecSuccess)
            #expect(Sec.count(Self.genp) == 0)
        }
    }
}
#endif
