#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing
import LatchkeyTesting

/// docs/apple-semantics.md §3.1, §3.4, §5: which keys each call accepts, the error for the rest, and Apple's
/// precedence.
struct ValidationTests {
    enum Call: String, Sendable {
        case add, copyMatching, update, delete
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let call: Call
        let extra: [String: String]
        let expected: OSStatus
        var testDescription: String { "\(call.rawValue): \(name)" }
    }

    /// Extra keys added to a valid generic-password dictionary; values are decoded by `value(_:)`.
    static let cases: [Case] = [
        Case(
            name: "attribute of another class",
            call: .copyMatching,
            extra: ["atag": "s:x"],
            expected: errSecNoSuchAttr
        ),
        Case(name: "attribute of another class", call: .add, extra: ["srvr": "s:x"], expected: errSecNoSuchAttr),
        Case(name: "unknown four-character key", call: .delete, extra: ["zzzz": "s:x"], expected: errSecNoSuchAttr),
        Case(name: "unknown class", call: .copyMatching, extra: ["class": "s:zzzz"], expected: errSecNoSuchClass),
        Case(name: "AppleShare class", call: .add, extra: ["class": "s:apls"], expected: errSecNoSuchClass),
        Case(name: "missing class", call: .copyMatching, extra: ["class": "remove"], expected: errSecParam),
        Case(name: "missing class", call: .delete, extra: ["class": "remove"], expected: errSecParam),
        Case(name: "return flag as NSNumber(1)", call: .copyMatching, extra: ["r_Data": "n:1"], expected: errSecParam),
        Case(
            name: "return flag as string",
            call: .copyMatching,
            extra: ["r_Attributes": "s:yes"],
            expected: errSecParam
        ),
        Case(
            name: "return flag as CFBoolean",
            call: .copyMatching,
            extra: ["r_Data": "b:true"],
            expected: errSecSuccess
        ),
        Case(name: "unknown return key", call: .copyMatching, extra: ["r_Everything": "b:true"], expected: errSecParam),
        Case(name: "unknown use key", call: .copyMatching, extra: ["u_Whatever": "s:x"], expected: errSecParam),
        Case(name: "credential reference", call: .copyMatching, extra: ["u_CredRef": "d:x"], expected: errSecParam),
        Case(name: "file-keychain use key", call: .copyMatching, extra: ["u_Keychain": "s:x"], expected: errSecParam),
        Case(name: "unknown value key", call: .copyMatching, extra: ["v_Other": "s:x"], expected: errSecParam),
        Case(name: "unknown long key", call: .copyMatching, extra: ["account": "s:x"], expected: errSecParam),
        Case(
            name: "internal f-key is ignored",
            call: .copyMatching,
            extra: ["f_Callback": "s:x"],
            expected: errSecSuccess
        ),
        Case(
            name: "data-protection flag is ignored",
            call: .copyMatching,
            extra: ["nleg": "b:true"],
            expected: errSecSuccess
        ),
        Case(
            name: "data-protection flag is ignored",
            call: .add,
            extra: ["nleg": "b:true", "acct": "s:new"],
            expected: errSecSuccess
        ),
        Case(name: "secret as string", call: .copyMatching, extra: ["v_Data": "s:x"], expected: errSecParam),
        Case(name: "bad accessibility", call: .add, extra: ["pdmn": "s:zz", "acct": "s:new"], expected: errSecParam),
        Case(name: "bad accessibility", call: .copyMatching, extra: ["pdmn": "s:zz"], expected: errSecParam),
        Case(
            name: "match limit string",
            call: .copyMatching,
            extra: ["m_Limit": "s:m_LimitSome"],
            expected: errSecParam
        ),
        Case(name: "match limit zero", call: .copyMatching, extra: ["m_Limit": "n:0"], expected: errSecParam),
        Case(name: "match limit one", call: .update, extra: ["m_Limit": "s:m_LimitOne"], expected: errSecParam),
        Case(name: "match limit all", call: .update, extra: ["m_Limit": "s:m_LimitAll"], expected: errSecParam),
        Case(
            name: "case-insensitive match",
            call: .update,
            extra: ["m_CaseInsensitive": "b:true"],
            expected: errSecParam
        ),
        Case(name: "return data", call: .update, extra: ["r_Data": "b:true"], expected: errSecParam),
        Case(name: "return attributes", call: .update, extra: ["r_Attributes": "b:true"], expected: errSecParam),
        Case(
            name: "secret in the query is ignored",
            call: .update,
            extra: ["v_Data": "d:other"],
            expected: errSecSuccess
        ),
        Case(name: "match limit one", call: .delete, extra: ["m_Limit": "s:m_LimitOne"], expected: errSecParam),
        Case(name: "match limit all", call: .delete, extra: ["m_Limit": "s:m_LimitAll"], expected: errSecParam),
        Case(name: "match limit number", call: .delete, extra: ["m_Limit": "n:5"], expected: errSecParam),
        Case(name: "return keys are ignored", call: .delete, extra: ["r_Data": "n:1"], expected: errSecSuccess),
        Case(name: "secret is ignored", call: .delete, extra: ["v_Data": "d:other"], expected: errSecSuccess),
        Case(name: "item list is ignored", call: .delete, extra: ["u_ItemList": "s:x"], expected: errSecSuccess),
        Case(name: "item list", call: .copyMatching, extra: ["u_ItemList": "s:x"], expected: errSecParam),
        Case(name: "item list", call: .update, extra: ["u_ItemList": "s:x"], expected: errSecParam),
        Case(
            name: "authentication UI skip",
            call: .add,
            extra: ["u_AuthUI": "s:u_AuthUIS", "acct": "s:new"],
            expected: errSecParam
        ),
        Case(name: "authentication UI skip", call: .update, extra: ["u_AuthUI": "s:u_AuthUIS"], expected: errSecParam),
        Case(name: "authentication UI skip", call: .delete, extra: ["u_AuthUI": "s:u_AuthUIS"], expected: errSecParam),
        Case(
            name: "authentication UI skip",
            call: .copyMatching,
            extra: ["u_AuthUI": "s:u_AuthUIS"],
            expected: errSecSuccess
        ),
        Case(
            name: "authentication UI fail",
            call: .copyMatching,
            extra: ["u_AuthUI": "s:u_AuthUIF"],
            expected: errSecSuccess
        ),
        Case(
            name: "bad authentication UI value",
            call: .copyMatching,
            extra: ["u_AuthUI": "s:sometimes"],
            expected: errSecParam
        ),
        Case(name: "operation prompt", call: .copyMatching, extra: ["u_OpPrompt": "s:Why"], expected: errSecSuccess),
        Case(
            name: "non-LAContext authentication context",
            call: .copyMatching,
            extra: ["u_AuthCtx": "s:ctx"],
            expected: errSecParam
        ),
        Case(name: "value ref", call: .copyMatching, extra: ["v_Ref": "s:ref"], expected: errSecParam),
        Case(
            name: "access control that is not a SecAccessControl",
            call: .add,
            extra: ["accc": "s:ak", "acct": "s:new"],
            expected: errSecParam
        ),
        Case(
            name: "issuers on passwords",
            call: .copyMatching,
            extra: ["m_Issuers": "s:x"],
            expected: errSecUnimplemented
        ),
        Case(
            name: "policy on passwords",
            call: .copyMatching,
            extra: ["m_Policy": "s:x"],
            expected: errSecUnimplemented
        ),
        Case(
            name: "host match on generic passwords",
            call: .copyMatching,
            extra: ["m_HostOrSubdomainOfHost": "s:x"],
            expected: errSecUnimplemented
        ),
        Case(
            name: "valid-on-date ignored for passwords",
            call: .copyMatching,
            extra: ["m_ValidOnDate": "d:x"],
            expected: errSecSuccess
        ),
        Case(name: "sharing group in changes", call: .update, extra: ["changes.ggrp": "s:x"], expected: errSecParam),
        Case(name: "class in changes", call: .update, extra: ["changes.class": "s:genp"], expected: errSecNoSuchAttr),
        Case(
            name: "return key in changes",
            call: .update,
            extra: ["changes.r_Data": "b:true"],
            expected: errSecNoSuchAttr
        ),
        Case(
            name: "persistent ref in changes",
            call: .update,
            extra: ["changes.v_PersistentRef": "d:x"],
            expected: errSecNoSuchAttr
        ),
        Case(name: "string secret in changes", call: .update, extra: ["changes.v_Data": "s:x"], expected: errSecParam),
        Case(
            name: "attribute of another class in changes",
            call: .update,
            extra: ["changes.srvr": "s:x"],
            expected: errSecNoSuchAttr
        ),
        Case(
            name: "synchronizable-any in changes",
            call: .update,
            extra: ["changes.sync": "s:syna"],
            expected: errSecParam
        ),
        Case(name: "null value", call: .copyMatching, extra: ["labl": "null"], expected: errSecParam),
    ]

    static func value(_ encoded: String) -> Any {
        let payload = String(encoded.dropFirst(2))
        switch encoded.prefix(2) {
        case "s:": return payload
        case "d:": return Data(payload.utf8)
        case "n:": return NSNumber(value: Int(payload) ?? 0)
        case "b:": return payload == "true"
        default: return NSNull()
        }
    }

    @Test(arguments: cases)
    func keyIsAcceptedOrRejectedLikeApple(_ testCase: Case) throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            var dictionary = testCase.call == .add ? Sec.password() : Sec.password(data: nil)
            var changes: [String: Any] = [kSecAttrLabel as String: "changed"]
            for (key, encoded) in testCase.extra {
                if key.hasPrefix("changes.") {
                    changes[String(key.dropFirst("changes.".count))] = Self.value(encoded)
                } else if encoded == "remove" {
                    dictionary[key] = nil
                } else {
                    dictionary[key] = Self.value(encoded)
                }
            }
            let status: OSStatus
            switch testCase.call {
            case .add: status = Sec.add(dictionary)
            case .copyMatching: status = Sec.copy(dictionary).0
            case .update: status = Sec.update(dictionary, changes)
            case .delete: status = Sec.delete(dictionary)
            }
            #expect(status == testCase.expected)
        }
    }

    @Test func addWithMatchLimitSucceedsWithoutStoring() throws {
        // docs/apple-semantics.md §3.4 note A (inferred from Apple's source): reproduced deliberately.
        try withTemporaryKeychain { _ in
            var item = Sec.password()
            item[kSecMatchLimit as String] = kSecMatchLimitOne
            #expect(Sec.add(item) == errSecSuccess)
            #expect(Sec.copy(Sec.password(data: nil)).0 == errSecItemNotFound)
        }
    }

    @Test func identityClassWithoutItemsOrReference() throws {
        try withTemporaryKeychain { _ in
            #expect(Sec.copy([kSecClass as String: kSecClassIdentity]).0 == errSecItemNotFound)
            // An identity is added by reference only.
            #expect(Sec.add([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "x"]) == errSecParam)
            #expect(Sec.delete([kSecClass as String: kSecClassIdentity]) == errSecItemNotFound)
        }
    }

    @Test func moreThan128KeysIsParamError() throws {
        try withTemporaryKeychain { _ in
            var query = Sec.password(data: nil)
            for index in 0..<130 { query["f_key\(index)"] = index }
            #expect(Sec.copy(query).0 == errSecParam)
        }
    }

    @Test func accessibleTogetherWithAccessControlIsParamError() throws {
        try withTemporaryKeychain { _ in
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil))
            var item = Sec.password()
            item[kSecAttrAccessControl as String] = control
            item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
            #expect(Sec.add(item) == errSecParam)
        }
    }

    @Test func accessControlWithSynchronizableIsParamError() throws {
        try withTemporaryKeychain { _ in
            let control = try #require(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)
            )
            var item = Sec.password()
            item[kSecAttrAccessControl as String] = control
            item[kSecAttrSynchronizable as String] = true
            #expect(Sec.add(item) == errSecParam)
        }
    }

    @Test func clientSideErrorComesBeforeMissingEntitlement() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open(accessGroups: [])
        LatchkeySecurity.withStore(store) {
            var item = Sec.password()
            item[kSecAttrAccessControl as String] = "not an access control"
            #expect(Sec.add(item) == errSecParam)
            // Dictionary parse errors come after the entitlement check.
            var parseError = Sec.password()
            parseError[kSecAttrServer as String] = "x"
            #expect(Sec.add(parseError) == errSecMissingEntitlement)
            #expect(Sec.copy(Sec.password(data: nil)).0 == errSecMissingEntitlement)
        }
    }

    @Test func lastErrorMessageExplainsTheFailure() throws {
        try withTemporaryKeychain { _ in
            #expect(Sec.add(Sec.password()) == errSecSuccess)
            #expect(LatchkeySecurity.lastErrorMessage == nil)
            #expect(Sec.add(Sec.password()) == errSecDuplicateItem)
            #expect(LatchkeySecurity.lastErrorMessage?.isEmpty == false)
            #expect(LatchkeySecurity.lastErrorMessage?.contains("s3cret") == false)
        }
    }
}
#endif
