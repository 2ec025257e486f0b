#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// End-to-end flows written the way apps write them.
struct ScenarioTests {
    @Test func loginTokenSavedByDeleteThenAddReadsBackAsData() throws {
        try withTemporaryKeychain { _ in
            func save(_ token: String) -> OSStatus {
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: "com.example.api",
                    kSecAttrAccount as String: "session",
                ]
                SecItemDelete(query as CFDictionary)
                var item = query
                item[kSecValueData as String] = token.data(using: .utf8)!
                item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
                return SecItemAdd(item as CFDictionary, nil)
            }
            func load() -> String? {
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: "com.example.api",
                    kSecAttrAccount as String: "session",
                    kSecReturnData as String: kCFBooleanTrue!,
                    kSecMatchLimit as String: kSecMatchLimitOne,
                ]
                var dataTypeRef: AnyObject?
                let status = SecItemCopyMatching(query as CFDictionary, &dataTypeRef)
                guard status == noErr, let data = dataTypeRef as? Data else { return nil }
                return String(data: data, encoding: .utf8)
            }
            #expect(load() == nil)
            #expect(save("token-1") == errSecSuccess)
            #expect(load() == "token-1")
            #expect(save("token-2") == errSecSuccess)
            #expect(load() == "token-2")
        }
    }

    @Test func duplicateAddReturnsDuplicateItemThenUpdateSucceeds() throws {
        try withTemporaryKeychain { _ in
            #expect(Sec.add(Sec.password(data: "one")) == errSecSuccess)
            #expect(Sec.add(Sec.password(data: "two")) == errSecDuplicateItem)
            let query = Sec.password(data: nil)
            #expect(Sec.update(query, [kSecValueData as String: Data("two".utf8)]) == errSecSuccess)
            var read = query
            read[kSecReturnData as String] = true
            #expect(Sec.copy(read).1 as? Data == Data("two".utf8))
        }
    }

    @Test func updateWithReadQueryKeysIsParamError() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            var query = Sec.password(data: nil)
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            #expect(Sec.update(query, [kSecValueData as String: Data("x".utf8)]) == errSecParam)
            query[kSecMatchLimit as String] = nil
            query[kSecReturnData as String] = true
            #expect(Sec.update(query, [kSecValueData as String: Data("x".utf8)]) == errSecParam)
            var read = Sec.password(data: nil)
            read[kSecReturnData as String] = true
            #expect(Sec.copy(read).1 as? Data == Data("s3cret".utf8))
        }
    }

    @Test func readWithDataAndAttributesGivesOneDictionary() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            var query = Sec.password(data: nil)
            query[kSecReturnData as String] = true
            query[kSecReturnAttributes as String] = true
            let (status, result) = Sec.copy(query)
            #expect(status == errSecSuccess)
            let item = try #require(result as? [String: Any])
            #expect(item["v_Data"] as? Data == Data("s3cret".utf8))
            #expect(item[kSecValueData as String] as? Data == Data("s3cret".utf8))
            #expect(item["acct"] as? String == "alice")
            #expect(item["svce"] as? String == "svc")
            #expect(item["cdat"] is Date)
            #expect(item["mdat"] is Date)
            #expect(item["agrp"] as? String == "com.example.app")
            #expect(item["pdmn"] as? String == "ak")
            #expect(item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
        }
    }

    @Test func keyItemWithLabelAndStringApplicationLabelIsFoundByLabel() throws {
        try withTemporaryKeychain { _ in
            let keyBytes = Data((0..<32).map { UInt8($0) })
            let status = Sec.add([
                kSecClass as String: kSecClassKey,
                kSecAttrLabel as String: "signing key",
                kSecAttrApplicationLabel as String: "app-label",
                kSecValueData as String: keyBytes,
            ])
            #expect(status == errSecSuccess)
            let (found, result) = Sec.copy([
                kSecClass as String: kSecClassKey,
                kSecAttrLabel as String: "signing key",
                kSecReturnAttributes as String: true,
                kSecReturnData as String: true,
            ])
            #expect(found == errSecSuccess)
            let item = try #require(result as? [String: Any])
            #expect(item["v_Data"] as? Data == keyBytes)
            #expect(item["klbl"] as? Data == Data("app-label".utf8))
            #expect(item["labl"] as? String == "signing key")
            #expect(item["kcls"] as? Int == 0)
            #expect(item["type"] as? Int == 0)
            #expect(item["sdat"] as? Date == Date(timeIntervalSinceReferenceDate: 0))
        }
    }

    @Test func genericAttributeUsedAsItemID() throws {
        try withTemporaryKeychain { _ in
            let id = Data("item-42".utf8)
            #expect(
                Sec.add([
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: "svc",
                    kSecAttrAccount as String: "a",
                    kSecAttrGeneric as String: id,
                    kSecValueData as String: Data("v".utf8),
                ]) == errSecSuccess
            )
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrGeneric as String: id,
                kSecReturnData as String: true,
            ])
            #expect(status == errSecSuccess)
            #expect(result as? Data == Data("v".utf8))
            #expect(
                Sec.copy([kSecClass as String: kSecClassGenericPassword, kSecAttrGeneric as String: Data("other".utf8)])
                    .0 == errSecItemNotFound
            )
            // A String with the same bytes matches (String/Data equivalence).
            #expect(
                Sec.copy([kSecClass as String: kSecClassGenericPassword, kSecAttrGeneric as String: "item-42"]).0
                    == errSecSuccess
            )
        }
    }

    @Test func classOnlyUpdateCollidingItemsIsDuplicateAndChangesNothing() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "a", data: "1"))
            Sec.add(Sec.password(account: "b", data: "2"))
            let status = Sec.update(
                [kSecClass as String: kSecClassGenericPassword],
                [kSecAttrAccount as String: "same"]
            )
            #expect(status == errSecDuplicateItem)
            #expect(Sec.count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"]) == 1)
            #expect(Sec.count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "b"]) == 1)
            #expect(Sec.count([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "same"]) == 0)
        }
    }

    @Test func errorMessageStringsReadAsApplesTexts() {
        #expect(
            SecCopyErrorMessageString(errSecItemNotFound, nil) as String?
                == "The specified item could not be found in the keychain."
        )
        #expect(
            SecCopyErrorMessageString(errSecDuplicateItem, nil) as String?
                == "The specified item already exists in the keychain."
        )
        #expect(
            SecCopyErrorMessageString(errSecParam, nil) as String?
                == "One or more parameters passed to a function were not valid."
        )
        #expect(
            SecCopyErrorMessageString(errSecInteractionNotAllowed, nil) as String? == "User interaction is not allowed."
        )
    }
}
#endif
