#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// docs/apple-semantics.md §1.5–§1.8: which attributes make items unique.
struct PrimaryKeyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let itemClass: String
        let key: String
        let first: String
        let second: String
        let isPrimaryKey: Bool
        var testDescription: String { "\(itemClass).\(key) \(isPrimaryKey ? "is" : "is not") in the primary key" }
    }

    static let cases: [Case] = [
        Case(itemClass: "genp", key: "acct", first: "a", second: "b", isPrimaryKey: true),
        Case(itemClass: "genp", key: "svce", first: "a", second: "b", isPrimaryKey: true),
        Case(
            itemClass: "genp",
            key: "agrp",
            first: "com.example.app",
            second: "com.example.shared",
            isPrimaryKey: true
        ),
        Case(itemClass: "genp", key: "labl", first: "a", second: "b", isPrimaryKey: false),
        Case(itemClass: "genp", key: "gena", first: "a", second: "b", isPrimaryKey: false),
        Case(itemClass: "genp", key: "desc", first: "a", second: "b", isPrimaryKey: false),
        Case(itemClass: "genp", key: "pdmn", first: "ak", second: "ck", isPrimaryKey: false),
        Case(itemClass: "inet", key: "srvr", first: "a.example", second: "b.example", isPrimaryKey: true),
        Case(itemClass: "inet", key: "sdmn", first: "a", second: "b", isPrimaryKey: true),
        Case(itemClass: "inet", key: "ptcl", first: "htps", second: "http", isPrimaryKey: true),
        Case(itemClass: "inet", key: "atyp", first: "form", second: "dflt", isPrimaryKey: true),
        Case(itemClass: "inet", key: "port", first: "443", second: "80", isPrimaryKey: true),
        Case(itemClass: "inet", key: "path", first: "/a", second: "/b", isPrimaryKey: true),
        Case(itemClass: "inet", key: "icmt", first: "a", second: "b", isPrimaryKey: false),
        Case(itemClass: "keys", key: "atag", first: "a", second: "b", isPrimaryKey: true),
        Case(itemClass: "keys", key: "klbl", first: "a", second: "b", isPrimaryKey: true),
        Case(itemClass: "keys", key: "kcls", first: "0", second: "1", isPrimaryKey: true),
        Case(itemClass: "keys", key: "type", first: "42", second: "73", isPrimaryKey: true),
        Case(itemClass: "keys", key: "bsiz", first: "256", second: "384", isPrimaryKey: true),
        Case(itemClass: "keys", key: "labl", first: "a", second: "b", isPrimaryKey: false),
        Case(itemClass: "cert", key: "slnr", first: "1", second: "2", isPrimaryKey: true),
        Case(itemClass: "cert", key: "issr", first: "a", second: "b", isPrimaryKey: true),
        Case(itemClass: "cert", key: "subj", first: "a", second: "b", isPrimaryKey: false),
        Case(itemClass: "cert", key: "labl", first: "a", second: "b", isPrimaryKey: false),
    ]

    @Test(arguments: cases)
    func secondAddCollidesUnlessAPrimaryKeyAttributeDiffers(_ testCase: Case) throws {
        try withTemporaryKeychain { _ in
            func item(_ value: String) -> [String: Any] {
                var item: [String: Any] = [
                    kSecClass as String: testCase.itemClass, kSecValueData as String: Data("x".utf8),
                ]
                if testCase.itemClass == "genp" || testCase.itemClass == "inet" {
                    item[kSecAttrAccount as String] = "shared"
                }
                item[testCase.key] = value
                return item
            }
            #expect(Sec.add(item(testCase.first)) == errSecSuccess)
            #expect(Sec.add(item(testCase.second)) == (testCase.isPrimaryKey ? errSecSuccess : errSecDuplicateItem))
        }
    }

    @Test func stringAndDataWithTheSameBytesCollide() throws {
        try withTemporaryKeychain { _ in
            #expect(Sec.add(Sec.password(account: "bob")) == errSecSuccess)
            var item = Sec.password(account: "ignored")
            item[kSecAttrAccount as String] = Data("bob".utf8)
            #expect(Sec.add(item) == errSecDuplicateItem)
        }
    }

    @Test func synchronizableAndLocalItemsCoexist() throws {
        try withTemporaryKeychain { _ in
            #expect(Sec.add(Sec.password()) == errSecSuccess)
            var synced = Sec.password()
            synced[kSecAttrSynchronizable as String] = true
            #expect(Sec.add(synced) == errSecSuccess)
            #expect(Sec.add(synced) == errSecDuplicateItem)
        }
    }
}
#endif
