#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing
import LatchkeyTesting

/// docs/apple-semantics.md §3.2–§3.3, §3.7: implicit filters, exact matching, synchronizable items, tombstones,
/// persistent refs.
struct MatchingTests {
    private static var genp: [String: Any] { [kSecClass as String: kSecClassGenericPassword] }

    private func query(_ extra: [String: Any]) -> [String: Any] {
        Self.genp.merging(extra) { _, new in new }
    }

    @Test func matchingIsCaseSensitiveAndExact() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "Alice"))
            #expect(Sec.copy(query([kSecAttrAccount as String: "alice"])).0 == errSecItemNotFound)
            #expect(Sec.copy(query([kSecAttrAccount as String: "Alic"])).0 == errSecItemNotFound)
            #expect(Sec.copy(query([kSecAttrAccount as String: "Alice"])).0 == errSecSuccess)
            // kSecMatchCaseInsensitive is recorded but has no effect.
            #expect(
                Sec.copy(query([kSecAttrAccount as String: "alice", kSecMatchCaseInsensitive as String: true])).0
                    == errSecItemNotFound
            )
        }
    }

    @Test func dataQueryMatchesStringItemAndBack() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "bob"))
            #expect(Sec.copy(query([kSecAttrAccount as String: Data("bob".utf8)])).0 == errSecSuccess)
            var dataItem = Sec.password(service: "other")
            dataItem[kSecAttrAccount as String] = Data("carol".utf8)
            Sec.add(dataItem)
            #expect(Sec.copy(query([kSecAttrAccount as String: "carol"])).0 == errSecSuccess)
            #expect(Sec.attributes(query([kSecAttrAccount as String: "carol"]))?["acct"] as? Data == Data("carol".utf8))
        }
    }

    @Test func allGivenAttributesMustMatch() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecAttrLabel as String] = "label"
            Sec.add(item)
            #expect(
                Sec.copy(query([kSecAttrAccount as String: "alice", kSecAttrLabel as String: "label"])).0
                    == errSecSuccess
            )
            #expect(
                Sec.copy(query([kSecAttrAccount as String: "alice", kSecAttrLabel as String: "other"])).0
                    == errSecItemNotFound
            )
        }
    }

    @Test func valueDataAndAccessControlInAQueryAreNotFilters() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            #expect(Sec.copy(query([kSecValueData as String: Data("wrong".utf8)])).0 == errSecSuccess)
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAlways, [], nil))
            #expect(Sec.copy(query([kSecAttrAccessControl as String: control])).0 == errSecSuccess)
        }
    }

    @Test func accessibleInAQueryIsAFilter() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            #expect(Sec.copy(query([kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])).0 == errSecSuccess)
            #expect(
                Sec.copy(query([kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])).0
                    == errSecItemNotFound
            )
        }
    }

    @Test func synchronizableItemsAreInvisibleWithoutSynchronizableAny() throws {
        try withTemporaryKeychain { _ in
            var synced = Sec.password(account: "synced")
            synced[kSecAttrSynchronizable as String] = kCFBooleanTrue
            #expect(Sec.add(synced) == errSecSuccess)
            Sec.add(Sec.password(account: "local"))
            #expect(Sec.count(Self.genp) == 1)
            #expect(Sec.count(query([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 2)
            #expect(Sec.count(query([kSecAttrSynchronizable as String: true])) == 1)
            #expect(Sec.count(query([kSecAttrSynchronizable as String: false])) == 1)
            // A class-wide delete without kSecAttrSynchronizableAny leaves synced items alone.
            #expect(Sec.delete(Self.genp) == errSecSuccess)
            #expect(Sec.count(query([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])) == 1)
        }
    }

    @Test func synchronizableAnyOnAddStoresALocalItem() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
            #expect(Sec.add(item) == errSecSuccess)
            #expect(Sec.attributes(Sec.password(data: nil))?["sync"] as? Int == 0)
        }
    }

    @Test func deletingASynchronizableItemLeavesATombstoneThatAnAddReplaces() throws {
        try withTemporaryKeychain { _ in
            var synced = Sec.password()
            synced[kSecAttrSynchronizable as String] = true
            Sec.add(synced)
            let any: [String: Any] = query([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny])
            #expect(Sec.delete(any) == errSecSuccess)
            #expect(Sec.copy(any).0 == errSecItemNotFound)
            let tombstones = query([
                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny, kSecAttrTombstone as String: true,
            ])
            let tombstone = try #require(Sec.attributes(tombstones))
            #expect(tombstone["tomb"] as? Int == 1)
            #expect(tombstone["acct"] as? String == "alice")
            #expect(Sec.add(synced) == errSecSuccess)
            #expect(Sec.count(any) == 1)
        }
    }

    @Test func persistentReferenceIsTwentyBytesAndFindsTheItemLater() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecReturnPersistentRef as String] = true
            let (status, result) = Sec.addReturning(item)
            #expect(status == errSecSuccess)
            let reference = try #require(result as? Data)
            #expect(reference.count == 20)
            #expect(reference.prefix(4) == Data("genp".utf8))
            Sec.add(Sec.password(account: "other"))
            let (found, data) = Sec.copy([kSecValuePersistentRef as String: reference, kSecReturnData as String: true])
            #expect(found == errSecSuccess)
            #expect(data as? Data == Data("s3cret".utf8))
            #expect(
                Sec.copy([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference]).0
                    == errSecSuccess
            )
            #expect(
                Sec.copy([
                    kSecValuePersistentRef as String: reference,
                    kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                ]).0 == errSecSuccess
            )
            // CopyMatching: a persistent ref with another attribute is errSecParam.
            #expect(
                Sec.copy([kSecValuePersistentRef as String: reference, kSecAttrAccount as String: "alice"]).0
                    == errSecParam
            )
            // Update and Delete may combine it with attributes (AND).
            #expect(
                Sec.update(
                    [kSecValuePersistentRef as String: reference, kSecAttrAccount as String: "other"],
                    [kSecAttrLabel as String: "x"]
                ) == errSecItemNotFound
            )
            #expect(
                Sec.update(
                    [kSecValuePersistentRef as String: reference, kSecAttrAccount as String: "alice"],
                    [kSecAttrLabel as String: "x"]
                ) == errSecSuccess
            )
            #expect(Sec.delete([kSecValuePersistentRef as String: reference]) == errSecSuccess)
            #expect(Sec.copy([kSecValuePersistentRef as String: reference]).0 == errSecItemNotFound)
            #expect(Sec.count(Self.genp) == 1)
        }
    }

    @Test func persistentReferenceFindsASynchronizableItemWithoutSynchronizableAny() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecAttrSynchronizable as String] = true
            item[kSecReturnPersistentRef as String] = true
            let reference = try #require(Sec.addReturning(item).1 as? Data)
            #expect(Sec.copy([kSecValuePersistentRef as String: reference]).0 == errSecSuccess)
            #expect(Sec.delete([kSecValuePersistentRef as String: reference]) == errSecSuccess)
        }
    }

    @Test func persistentReferenceOfAnotherClassIsParamError() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecReturnPersistentRef as String] = true
            let reference = try #require(Sec.addReturning(item).1 as? Data)
            #expect(
                Sec.copy([kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: reference]).0
                    == errSecParam
            )
        }
    }

    @Test func corruptRowsAreSkippedAndAllCorruptIsItemNotFound() throws {
        let sqlite = try Peer.require("sqlite3", package: "sqlite3")
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        try LatchkeySecurity.withStore(store) {
            Sec.add(Sec.password(account: "damaged"))
            Sec.add(Sec.password(account: "intact"))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: sqlite)
            process.arguments = [
                keychain.path, "UPDATE genp SET attrs = zeroblob(64) WHERE id = (SELECT MIN(id) FROM genp)",
            ]
            try ProcessLaunch.run(process)
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            let all = Sec.copy(
                query([kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll])
            )
            #expect(all.0 == errSecSuccess)
            #expect((all.1 as? [[String: Any]])?.compactMap { $0["acct"] as? String } == ["intact"])
            #expect(Sec.copy(query([kSecAttrAccount as String: "damaged"])).0 == errSecItemNotFound)
        }
    }

    @Test func hostOrSubdomainMatchesInternetPasswords() throws {
        try withTemporaryKeychain { _ in
            for server in ["example.com", "api.example.com", "example.org", "badexample.com"] {
                Sec.add([
                    kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
                    kSecValueData as String: Data(),
                ])
            }
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassInternetPassword,
                kSecMatchHostOrSubdomainOfHost as String: "example.com",
                kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true,
            ])
            #expect(status == errSecSuccess)
            let servers = (result as? [[String: Any]])?.compactMap { $0["srvr"] as? String }
            #expect(servers == ["example.com", "api.example.com"])
        }
    }
}
#endif
