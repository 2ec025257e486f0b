#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing
import LatchkeyTesting

/// docs/apple-semantics.md §6.3: the caller's ordered access groups.
struct AccessGroupTests {
    @Test func firstGroupIsTheDefaultAndQueriesSeeAllGroups() throws {
        try withTemporaryKeychain(accessGroups: ["group.one", "group.two"]) { _ in
            Sec.add(Sec.password(account: "default"))
            var shared = Sec.password(account: "shared")
            shared[kSecAttrAccessGroup as String] = "group.two"
            #expect(Sec.add(shared) == errSecSuccess)
            #expect(Sec.attributes(Sec.password(account: "default", data: nil))?["agrp"] as? String == "group.one")
            #expect(Sec.count([kSecClass as String: kSecClassGenericPassword]) == 2)
            #expect(
                Sec.count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "group.two"])
                    == 1
            )
        }
    }

    @Test func sameServiceAndAccountMayExistOncePerGroup() throws {
        try withTemporaryKeychain(accessGroups: ["group.one", "group.two"]) { _ in
            #expect(Sec.add(Sec.password()) == errSecSuccess)
            var other = Sec.password()
            other[kSecAttrAccessGroup as String] = "group.two"
            #expect(Sec.add(other) == errSecSuccess)
            #expect(Sec.count(Sec.password(data: nil)) == 2)
        }
    }

    @Test func foreignGroupIsMissingEntitlementNamingTheGroups() throws {
        try withTemporaryKeychain(accessGroups: ["group.one", "group.two"]) { _ in
            Sec.add(Sec.password())
            var item = Sec.password(account: "x")
            item[kSecAttrAccessGroup as String] = "group.foreign"
            #expect(Sec.add(item) == errSecMissingEntitlement)
            let message = try #require(LatchkeySecurity.lastErrorMessage)
            #expect(message.contains("group.foreign"))
            #expect(message.contains("group.one"))
            var query = Sec.password(data: nil)
            query[kSecAttrAccessGroup as String] = "group.foreign"
            #expect(Sec.copy(query).0 == errSecMissingEntitlement)
            #expect(Sec.update(query, [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
            #expect(Sec.delete(query) == errSecMissingEntitlement)
            #expect(
                Sec.update(Sec.password(data: nil), [kSecAttrAccessGroup as String: "group.foreign"])
                    == errSecMissingEntitlement
            )
        }
    }

    @Test func updateAndDeleteCheckTheQueryGroupBeforeParsing() throws {
        try withTemporaryKeychain(accessGroups: ["group.one"]) { _ in
            var query = Sec.password(data: nil)
            query[kSecAttrAccessGroup as String] = "group.foreign"
            query[kSecAttrServer as String] = "not a generic-password attribute"
            #expect(Sec.update(query, [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
            #expect(Sec.delete(query) == errSecMissingEntitlement)
            #expect(Sec.copy(query).0 == errSecNoSuchAttr)
            var item = Sec.password()
            item[kSecAttrAccessGroup as String] = "group.foreign"
            item[kSecAttrServer as String] = "x"
            #expect(Sec.add(item) == errSecNoSuchAttr)
        }
    }

    @Test func itemsOfGroupsTheCallerLacksAreInvisible() throws {
        let keychain = TemporaryKeychain()
        let writer = try keychain.open(accessGroups: ["group.one"])
        LatchkeySecurity.withStore(writer) { _ = Sec.add(Sec.password()) }
        let reader = try keychain.open(accessGroups: ["group.two"])
        LatchkeySecurity.withStore(reader) {
            #expect(Sec.copy(Sec.password(data: nil)).0 == errSecItemNotFound)
            #expect(Sec.delete(Sec.password(data: nil)) == errSecItemNotFound)
        }
    }

    @Test func noGroupsIsMissingEntitlementForEveryCall() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open(accessGroups: [])
        LatchkeySecurity.withStore(store) {
            #expect(Sec.add(Sec.password()) == errSecMissingEntitlement)
            #expect(Sec.copy(Sec.password(data: nil)).0 == errSecMissingEntitlement)
            #expect(Sec.update(Sec.password(data: nil), [kSecAttrLabel as String: "x"]) == errSecMissingEntitlement)
            #expect(Sec.delete(Sec.password(data: nil)) == errSecMissingEntitlement)
        }
    }

    @Test func groupsComeFromTheEnvironmentInOrder() {
        #expect(AccessGroups.current(environment: ["LATCHKEY_ACCESS_GROUPS": "a.b, c.d"]) == ["a.b", "c.d"])
    }
}
#endif
