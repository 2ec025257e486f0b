#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// docs/apple-semantics.md §4: every combination of return keys and match limits.
struct ReturnShapeTests {
    enum Shape: Sendable, Equatable {
        case nothing, data, persistentRef, dictionary
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let returns: [String]
        let shape: Shape
        /// Keys the dictionary must hold / must not hold.
        let present: [String]
        let absent: [String]
        var testDescription: String { returns.isEmpty ? "no return keys" : returns.joined(separator: "+") }
    }

    static let cases: [Case] = [
        Case(returns: [], shape: .nothing, present: [], absent: []),
        Case(returns: ["r_Data"], shape: .data, present: [], absent: []),
        Case(returns: ["r_PersistentRef"], shape: .persistentRef, present: [], absent: []),
        Case(returns: ["r_Ref"], shape: .nothing, present: [], absent: []),
        Case(
            returns: ["r_Attributes"],
            shape: .dictionary,
            present: ["acct", "svce", "agrp", "pdmn", "cdat", "mdat", "sync", "tomb", "musr", "sha1", "accc"],
            absent: ["v_Data", "v_PersistentRef", "class", "UUID", "persistref"]
        ),
        Case(
            returns: ["r_Data", "r_Attributes"],
            shape: .dictionary,
            present: ["acct", "v_Data"],
            absent: ["v_PersistentRef", "class"]
        ),
        Case(
            returns: ["r_Attributes", "r_PersistentRef"],
            shape: .dictionary,
            present: ["acct", "v_PersistentRef"],
            absent: ["v_Data", "class"]
        ),
        Case(
            returns: ["r_Data", "r_Attributes", "r_PersistentRef"],
            shape: .dictionary,
            present: ["acct", "v_Data", "v_PersistentRef"],
            absent: ["class"]
        ),
        Case(
            returns: ["r_Data", "r_PersistentRef"],
            shape: .dictionary,
            present: ["acct", "svce", "v_Data", "v_PersistentRef", "accc"],
            absent: ["class"]
        ),
        Case(
            returns: ["r_Ref", "r_Attributes"],
            shape: .dictionary,
            present: ["acct", "class", "UUID", "v_Data"],
            absent: ["v_PersistentRef"]
        ),
        Case(
            returns: ["r_Ref", "r_PersistentRef"],
            shape: .dictionary,
            present: ["acct", "class", "UUID", "v_Data", "v_PersistentRef"],
            absent: []
        ),
    ]

    private func query(_ returns: [String], limit: Any) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: limit]
        for key in returns { query[key] = true }
        return query
    }

    private func check(_ value: Any?, _ testCase: Case) {
        switch testCase.shape {
        case .nothing:
            #expect(value == nil)
        case .data:
            #expect(value as? Data == Data("s3cret".utf8))
        case .persistentRef:
            #expect((value as? Data)?.count == 20)
        case .dictionary:
            guard let dictionary = value as? [String: Any] else {
                Issue.record("expected a dictionary, got \(String(describing: value))")
                return
            }
            for key in testCase.present { #expect(dictionary[key] != nil, "missing \(key)") }
            for key in testCase.absent { #expect(dictionary[key] == nil, "unexpected \(key)") }
            if let data = dictionary["v_Data"] { #expect(data as? Data == Data("s3cret".utf8)) }
            if let reference = dictionary["v_PersistentRef"] { #expect((reference as? Data)?.count == 20) }
            if testCase.returns == ["r_Data", "r_PersistentRef"] {
                #expect(dictionary["accc"] is Data)  // stays serialized in this shape (docs/apple-semantics.md §4.1)
            } else if dictionary["accc"] != nil {
                #expect(dictionary["accc"] is SecAccessControl)
            }
            if let itemClass = dictionary["class"] { #expect(itemClass as? String == "genp") }
        }
    }

    @Test(arguments: cases)
    func matchLimitOneGivesASingleValue(_ testCase: Case) throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            var result: CFTypeRef? = NSString(string: "untouched")
            let status = SecItemCopyMatching(query(testCase.returns, limit: kSecMatchLimitOne) as CFDictionary, &result)
            #expect(status == errSecSuccess)
            check(result, testCase)
        }
    }

    @Test(arguments: cases)
    func matchLimitAllGivesAnArrayInInsertionOrder(_ testCase: Case) throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "first"))
            Sec.add(Sec.password(account: "second"))
            Sec.add(Sec.password(account: "third"))
            let (status, result) = Sec.copy(query(testCase.returns, limit: kSecMatchLimitAll))
            #expect(status == errSecSuccess)
            let array = try #require(result as? [Any])
            if testCase.shape == .nothing {
                #expect(array.isEmpty)
                return
            }
            #expect(array.count == 3)
            for value in array { check(value, testCase) }
            if testCase.shape == .dictionary, testCase.present.contains("acct") {
                #expect((result as? [[String: Any]])?.map { $0["acct"] as? String } == ["first", "second", "third"])
            }
        }
    }

    @Test func numericLimitOneGivesASingleObjectAndLargerGivesAnArray() throws {
        try withTemporaryKeychain { _ in
            for account in ["a", "b", "c"] { Sec.add(Sec.password(account: account)) }
            let one = Sec.copy(query(["r_Attributes"], limit: 1))
            #expect(one.0 == errSecSuccess)
            #expect((one.1 as? [String: Any])?["acct"] as? String == "a")
            let two = Sec.copy(query(["r_Attributes"], limit: 2))
            #expect((two.1 as? [[String: Any]])?.map { $0["acct"] as? String } == ["a", "b"])
            let many = Sec.copy(query(["r_Attributes"], limit: NSNumber(value: 10)))
            #expect((many.1 as? [[String: Any]])?.count == 3)
        }
    }

    @Test func notFoundLeavesTheResultUntouchedAndIsNeverAnEmptyArray() throws {
        try withTemporaryKeychain { _ in
            var result: CFTypeRef? = NSString(string: "untouched")
            let status = SecItemCopyMatching(query(["r_Attributes"], limit: kSecMatchLimitAll) as CFDictionary, &result)
            #expect(status == errSecItemNotFound)
            #expect(result as? String == "untouched")
        }
    }

    @Test func refAloneReturnsNothing() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            var result: CFTypeRef? = NSString(string: "untouched")
            #expect(
                SecItemCopyMatching(query(["r_Ref"], limit: kSecMatchLimitOne) as CFDictionary, &result)
                    == errSecSuccess
            )
            #expect(result == nil)
        }
    }

    @Test func itemWithoutDataGivesNoValueForReturnData() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "empty", data: nil))
            Sec.add(Sec.password(account: "full"))
            let single = Sec.copy(
                query(["r_Data"], limit: kSecMatchLimitOne).merging([kSecAttrAccount as String: "empty"]) { $1 }
            )
            #expect(single.0 == errSecSuccess)
            #expect(single.1 == nil)
            let all = Sec.copy(query(["r_Data"], limit: kSecMatchLimitAll))
            #expect((all.1 as? [Data]) == [Data("s3cret".utf8)])
            let emptyData = Sec.password(account: "zero", data: "")
            Sec.add(emptyData)
            let zero = Sec.copy(
                query(["r_Data"], limit: kSecMatchLimitOne).merging([kSecAttrAccount as String: "zero"]) { $1 }
            )
            #expect(zero.1 as? Data == Data())
        }
    }

    @Test func returnDataWithMatchLimitAllIsAllowed() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "a"))
            Sec.add(Sec.password(account: "b"))
            let (status, result) = Sec.copy(query(["r_Data"], limit: kSecMatchLimitAll))
            #expect(status == errSecSuccess)
            #expect((result as? [Data])?.count == 2)
        }
    }

    // MARK: SecItemAdd results (docs/apple-semantics.md §4.3)

    @Test func addWithoutReturnKeysWritesNothing() throws {
        try withTemporaryKeychain { _ in
            var result: CFTypeRef? = NSString(string: "untouched")
            #expect(SecItemAdd(Sec.password() as CFDictionary, &result) == errSecSuccess)
            #expect(result as? String == "untouched")
        }
    }

    @Test func addReturnDataGivesTheDataOrNull() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecReturnData as String] = true
            #expect(Sec.addReturning(item).1 as? Data == Data("s3cret".utf8))
            var empty = Sec.password(account: "nodata", data: nil)
            empty[kSecReturnData as String] = true
            #expect(Sec.addReturning(empty).1 is NSNull)
        }
    }

    @Test func addReturnAttributesOmitsInternalAttributes() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecReturnAttributes as String] = true
            let dictionary = try #require(Sec.addReturning(item).1 as? [String: Any])
            for key in ["acct", "svce", "agrp", "pdmn", "cdat", "mdat", "sync", "sha1"] {
                #expect(dictionary[key] != nil, "\(key)")
            }
            for key in ["musr", "tomb", "UUID", "persistref", "accc", "v_Data", "class"] {
                #expect(dictionary[key] == nil, "\(key)")
            }
        }
    }

    @Test func addReturnDataAndPersistentRefGivesJustThoseTwo() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecReturnData as String] = true
            item[kSecReturnPersistentRef as String] = true
            let dictionary = try #require(Sec.addReturning(item).1 as? [String: Any])
            #expect(Set(dictionary.keys) == ["v_Data", "v_PersistentRef"])
        }
    }

    @Test func addReturnRefWithAttributesCarriesClassAndData() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecReturnRef as String] = true
            item[kSecReturnAttributes as String] = true
            let dictionary = try #require(Sec.addReturning(item).1 as? [String: Any])
            #expect(dictionary["class"] as? String == "genp")
            #expect(dictionary["v_Data"] as? Data == Data("s3cret".utf8))
            var refOnly = Sec.password(account: "other")
            refOnly[kSecReturnRef as String] = true
            var result: CFTypeRef? = NSString(string: "untouched")
            #expect(SecItemAdd(refOnly as CFDictionary, &result) == errSecSuccess)
            #expect(result as? String == "untouched")
        }
    }
}
#endif
