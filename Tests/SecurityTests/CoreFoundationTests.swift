#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

struct CoreFoundationTests {
    @Test func cfStringKeyedDictionaryWorksAsQuery() throws {
        try withTemporaryKeychain { _ in
            let item: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword,
                kSecAttrService: "svc",
                kSecAttrAccount: "cf",
                kSecValueData: Data("v".utf8),
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            let query: [CFString: Any] = [
                kSecClass: kSecClassGenericPassword,
                kSecAttrAccount: "cf",
                kSecReturnData: kCFBooleanTrue as Any,
                kSecMatchLimit: kSecMatchLimitOne,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("v".utf8))
        }
    }

    @Test func nsDictionaryLiteralWorksAsQuery() throws {
        try withTemporaryKeychain { _ in
            let item: NSDictionary = [
                kSecClass: kSecClassGenericPassword,
                kSecAttrAccount: "ns",
                kSecValueData: Data("v".utf8),
            ]
            #expect(SecItemAdd(item, nil) == errSecSuccess)
            let query: NSDictionary = [
                kSecClass: kSecClassGenericPassword,
                kSecAttrAccount: "ns",
                kSecReturnAttributes: true,
            ]
            var result: AnyObject?
            #expect(SecItemCopyMatching(query, &result) == errSecSuccess)
            let attributes = try #require(result as? [String: Any])
            #expect(attributes["acct"] as? String == "ns")
        }
    }

    @Test func arrayResultsCastToArrayOfDictionaries() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password(account: "a"))
            Sec.add(Sec.password(account: "b"))
            let (status, result) = Sec.copy([
                kSecClass as String: kSecClassGenericPassword,
                kSecReturnAttributes as String: kCFBooleanTrue!,
                kSecReturnData as String: kCFBooleanTrue!,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ])
            #expect(status == errSecSuccess)
            let items = try #require(result as? [[String: Any]])
            #expect(items.map { $0["acct"] as? String } == ["a", "b"])
            #expect(items.allSatisfy { $0["v_Data"] as? Data == Data("s3cret".utf8) })
            let nsArray = try #require(result as? NSArray)
            #expect(nsArray.count == 2)
        }
    }

    @Test func anyHashableLookupWorksWithStringAndCFStringKeys() throws {
        // As on Apple platforms, a CFString as AnyHashable is the String with the same text
        // (CFTypes+AnyHashable.swift), so a result cast to [AnyHashable: Any] is read with either spelling.
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            let (_, result) = Sec.copy(Sec.password(data: nil).merging([kSecReturnAttributes as String: true]) { $1 })
            let attributes = try #require(result as? [AnyHashable: Any])
            #expect(attributes[kSecAttrAccount as String] as? String == "alice")
            #expect(attributes[kSecAttrAccount] as? String == "alice")
            #expect(attributes[kSecAttrSynchronizable] as? Bool == false)
            #expect((result as? NSDictionary)?[kSecAttrAccount] as? String == "alice")
            #expect((result as? [CFString: Any])?[kSecAttrAccount] as? String == "alice")
        }
    }

    @Test func cfTypesAsAnyHashableAreTheirSwiftValues() {
        #expect(AnyHashable(kSecClassGenericPassword) == AnyHashable("genp"))
        #expect(AnyHashable(kSecClassGenericPassword).base is String)
        #expect(AnyHashable(NSMutableString(string: "acct")) == AnyHashable(kSecAttrAccount))
        #expect(AnyHashable(kCFBooleanTrue) == AnyHashable(true))
        #expect(AnyHashable(NSNumber(value: false)) == AnyHashable(false))
        #expect(AnyHashable(kCFBooleanTrue) != AnyHashable(1))
        #expect(AnyHashable(NSNumber(value: 1)) == AnyHashable(1))
        #expect(AnyHashable(NSNumber(value: 1)) != AnyHashable(true))
        #expect(AnyHashable(NSData(data: Data([1]))) == AnyHashable(Data([1])))
        let query: NSDictionary = [kSecClass: kSecClassGenericPassword, kSecReturnData: kCFBooleanTrue as Any]
        #expect(query.isEqual(to: [kSecClass as String: "genp", kSecReturnData as String: true]))
        #expect(Set<AnyHashable>([kSecAttrService, "svce", NSString(string: "svce")]).count == 1)
    }

    @Test func booleanConstantsAreBooleans() {
        #expect(CFBooleanGetValue(kCFBooleanTrue))
        #expect(!CFBooleanGetValue(kCFBooleanFalse))
        #expect(kCFBooleanTrue as? Bool == true)
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 1)) == CFNumberGetTypeID())
        #expect(CFGetTypeID("text" as CFString) == CFStringGetTypeID())
        #expect(CFGetTypeID(NSData()) == CFDataGetTypeID())
        #expect(CFGetTypeID(SecPolicyCreateBasicX509()) == SecPolicyGetTypeID())
        #expect(kCFAllocatorDefault == nil)
    }

    @Test func cfErrorFunctionsReadNSError() throws {
        let error: CFError = NSError(domain: "NSOSStatusErrorDomain", code: -50, userInfo: ["k": "v"])
        #expect(CFErrorGetDomain(error) as String? == "NSOSStatusErrorDomain")
        #expect(CFErrorGetCode(error) == -50)
        let info = try #require(CFErrorCopyUserInfo(error) as? [String: Any])
        #expect(info["k"] as? String == "v")
        #expect(kCFBundleIdentifierKey as String == "CFBundleIdentifier")
    }

    @Test func randomBytesFillTheBuffer() {
        var first = [UInt8](repeating: 0, count: 32)
        var second = [UInt8](repeating: 0, count: 32)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        #expect(SecRandomCopyBytes(kSecRandomDefault, second.count, &second) == errSecSuccess)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }
}
#endif
