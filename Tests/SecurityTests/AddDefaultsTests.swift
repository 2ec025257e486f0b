#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// docs/apple-semantics.md §1.10: what an add fills in.
struct AddDefaultsTests {
    @Test func genericPasswordGetsApplesDefaults() throws {
        try withTemporaryKeychain { _ in
            let before = Date()
            #expect(
                Sec.add([kSecClass as String: kSecClassGenericPassword, kSecValueData as String: Data("x".utf8)])
                    == errSecSuccess
            )
            let item = try #require(Sec.attributes([kSecClass as String: kSecClassGenericPassword]))
            #expect(item["acct"] as? String == "")
            #expect(item["svce"] as? String == "")
            #expect(item["agrp"] as? String == "com.example.app")
            #expect(item["pdmn"] as? String == "ak")
            #expect(item["sync"] as? Int == 0)
            #expect(item["tomb"] as? Int == 0)
            #expect(item["musr"] as? Data == Data())
            #expect((item["sha1"] as? Data)?.count == 20)
            let created = try #require(item["cdat"] as? Date)
            #expect(item["mdat"] as? Date == created)
            #expect(created >= before.addingTimeInterval(-1) && created <= Date().addingTimeInterval(1))
            #expect(item["accc"] is SecAccessControl)
            #expect(item["class"] == nil)
            #expect(item["v_Data"] == nil)
            #expect(item["persistref"] == nil)
        }
    }

    @Test func callerCreationDateIsOverwritten() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecAttrCreationDate as String] = Date(timeIntervalSince1970: 0)
            item[kSecAttrModificationDate as String] = Date(timeIntervalSince1970: 0)
            #expect(Sec.add(item) == errSecSuccess)
            let stored = try #require(Sec.attributes(Sec.password(data: nil)))
            #expect((stored["cdat"] as? Date).map { $0.timeIntervalSinceNow > -60 } == true)
            #expect((stored["mdat"] as? Date).map { $0.timeIntervalSinceNow > -60 } == true)
        }
    }

    @Test func certificateDefaultsToAlwaysAccessible() throws {
        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([kSecClass as String: kSecClassCertificate, kSecValueData as String: Data([0x30, 0x00])])
                    == errSecSuccess
            )
            let item = try #require(Sec.attributes([kSecClass as String: kSecClassCertificate]))
            #expect(item["pdmn"] as? String == "dk")
            #expect(item["ctyp"] as? Int == 0)
            #expect(item["issr"] as? Data == Data())
            #expect(item["slnr"] as? Data == Data())
        }
    }

    @Test func rawKeyGetsEmptyPrimaryKeyDefaultsAndNothingDerived() throws {
        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([kSecClass as String: kSecClassKey, kSecValueData as String: Data([1, 2, 3])]) == errSecSuccess
            )
            let item = try #require(Sec.attributes([kSecClass as String: kSecClassKey]))
            #expect(item["kcls"] as? Int == 0)
            #expect(item["klbl"] as? Data == Data())
            #expect(item["atag"] as? String == "")
            #expect(item["crtr"] as? Int == 0)
            #expect(item["type"] as? Int == 0)
            #expect(item["bsiz"] as? Int == 0)
            #expect(item["esiz"] as? Int == 0)
            #expect(item["sdat"] as? Date == Date(timeIntervalSinceReferenceDate: 0))
            #expect(item["edat"] as? Date == Date(timeIntervalSinceReferenceDate: 0))
        }
    }

    @Test func internetPasswordGetsEmptyPrimaryKeyDefaults() throws {
        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([kSecClass as String: kSecClassInternetPassword, kSecValueData as String: Data("x".utf8)])
                    == errSecSuccess
            )
            let item = try #require(Sec.attributes([kSecClass as String: kSecClassInternetPassword]))
            for key in ["acct", "sdmn", "srvr", "atyp", "path"] { #expect(item[key] as? String == "", "\(key)") }
            #expect(item["ptcl"] as? Int == 0)
            #expect(item["port"] as? Int == 0)
        }
    }

    @Test func missingAccountAndEmptyAccountAreTheSameKey() throws {
        try withTemporaryKeychain { _ in
            #expect(
                Sec.add([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"])
                    == errSecSuccess
            )
            #expect(
                Sec.add([
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                    kSecAttrAccount as String: "",
                ]) == errSecDuplicateItem
            )
        }
    }

    @Test func thisDeviceOnlySynchronizableItemIsAccepted() throws {
        // Documented as not allowed, but Apple's source does not enforce it (docs/apple-semantics.md §3.4): stored.
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            item[kSecAttrSynchronizable as String] = true
            #expect(Sec.add(item) == errSecSuccess)
        }
    }

    @Test func explicitAccessibilityIsKept() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            #expect(Sec.add(item) == errSecSuccess)
            #expect(Sec.attributes(Sec.password(data: nil))?["pdmn"] as? String == "cku")
        }
    }
}
#endif
