#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// docs/apple-semantics.md §1.2: how each attribute kind coerces the value it is given, and what comes back.
struct ValueKindTests {
    enum Input: Sendable {
        case string(String), data(String), int(Int), bool(Bool), date, nsNumberBool
        var value: Any {
            switch self {
            case .string(let text): text
            case .data(let text): Data(text.utf8)
            case .int(let number): number
            case .bool(let flag): flag
            case .date: Date(timeIntervalSinceReferenceDate: 1000)
            case .nsNumberBool: NSNumber(value: true)
            }
        }
    }

    enum Expected: Sendable, Equatable {
        case string(String), data(Data), number(Int), rejected(OSStatus)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let itemClass: String
        let key: String
        let input: Input
        let expected: Expected
        var testDescription: String { "\(itemClass).\(key) ← \(input)" }
    }

    static let cases: [Case] = [
        // Blob: String and Data kept as given, numbers kept, anything else rejected.
        Case(itemClass: "genp", key: "acct", input: .string("bob"), expected: .string("bob")),
        Case(itemClass: "genp", key: "acct", input: .data("bob"), expected: .data(Data("bob".utf8))),
        Case(itemClass: "genp", key: "acct", input: .int(7), expected: .number(7)),
        Case(itemClass: "genp", key: "acct", input: .date, expected: .rejected(errSecParam)),
        Case(itemClass: "genp", key: "acct", input: .bool(true), expected: .rejected(errSecParam)),
        Case(itemClass: "genp", key: "gena", input: .string("id"), expected: .string("id")),
        Case(itemClass: "genp", key: "gena", input: .data("id"), expected: .data(Data("id".utf8))),
        Case(itemClass: "inet", key: "atyp", input: .string("form"), expected: .string("form")),
        // Data: a String becomes UTF-8 bytes; a number becomes 4 little-endian bytes.
        Case(itemClass: "keys", key: "klbl", input: .string("abc"), expected: .data(Data("abc".utf8))),
        Case(itemClass: "keys", key: "klbl", input: .int(1), expected: .data(Data([1, 0, 0, 0]))),
        Case(itemClass: "cert", key: "issr", input: .string("CN"), expected: .data(Data("CN".utf8))),
        Case(itemClass: "keys", key: "klbl", input: .date, expected: .rejected(errSecParam)),
        // String: Data is decoded as UTF-8.
        Case(
            itemClass: "genp",
            key: "agrp",
            input: .data("com.example.shared"),
            expected: .string("com.example.shared")
        ),
        Case(itemClass: "genp", key: "agrp", input: .int(3), expected: .rejected(errSecParam)),
        // Number: booleans become 0/1, decimal strings become numbers, other strings stay strings.
        Case(itemClass: "genp", key: "type", input: .string("42"), expected: .number(42)),
        Case(itemClass: "genp", key: "type", input: .string("-7"), expected: .number(-7)),
        Case(itemClass: "genp", key: "type", input: .string("0042"), expected: .string("0042")),
        Case(itemClass: "genp", key: "crtr", input: .bool(true), expected: .number(1)),
        Case(itemClass: "genp", key: "invi", input: .nsNumberBool, expected: .number(1)),
        Case(itemClass: "genp", key: "nega", input: .int(0), expected: .number(0)),
        Case(itemClass: "genp", key: "type", input: .data("x"), expected: .rejected(errSecParam)),
        Case(itemClass: "inet", key: "ptcl", input: .string("htps"), expected: .string("htps")),
        Case(itemClass: "inet", key: "port", input: .int(443), expected: .number(443)),
        Case(itemClass: "keys", key: "kcls", input: .string("1"), expected: .number(1)),
        Case(itemClass: "keys", key: "type", input: .string("42"), expected: .number(42)),
        Case(itemClass: "keys", key: "type", input: .string("73"), expected: .number(73)),
        Case(itemClass: "keys", key: "bsiz", input: .int(2048), expected: .number(2048)),
        Case(itemClass: "keys", key: "perm", input: .bool(true), expected: .number(1)),
        // Access: validated against the accessibility list.
        Case(itemClass: "genp", key: "pdmn", input: .string("ck"), expected: .string("ck")),
        Case(itemClass: "genp", key: "pdmn", input: .string("zz"), expected: .rejected(errSecParam)),
        // Date: only dates (caller creation dates are overwritten, but the type is still checked).
        Case(itemClass: "genp", key: "cdat", input: .string("yesterday"), expected: .rejected(errSecParam)),
        // Sync: a boolean becomes 0/1.
        Case(itemClass: "genp", key: "sync", input: .bool(true), expected: .number(1)),
    ]

    @Test(arguments: cases)
    func attributeValueIsCoercedByKind(_ testCase: Case) throws {
        try withTemporaryKeychain { _ in
            let item: [String: Any] = [
                kSecClass as String: testCase.itemClass,
                testCase.key: testCase.input.value,
                kSecValueData as String: Data("secret".utf8),
            ]
            let status = Sec.add(item)
            if case .rejected(let code) = testCase.expected {
                #expect(status == code)
                return
            }
            try #require(status == errSecSuccess)
            var query: [String: Any] = [kSecClass as String: testCase.itemClass]
            if testCase.key == "sync" { query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny }
            let attributes = try #require(Sec.attributes(query))
            let stored = attributes[testCase.key]
            switch testCase.expected {
            case .string(let text):
                #expect(stored is String)
                #expect(stored as? String == text)
            case .data(let bytes):
                #expect(stored as? Data == bytes)
                #expect(!(stored is String))
            case .number(let number):
                #expect(stored is NSNumber)
                #expect((stored as? NSNumber)?.intValue == number)
            case .rejected:
                break
            }
        }
    }

    @Test func secretMustBeData() throws {
        try withTemporaryKeychain { _ in
            var item = Sec.password(data: nil)
            item[kSecValueData as String] = "not data"
            #expect(Sec.add(item) == errSecParam)
        }
    }

    @Test func booleansComeBackAsNumbersThatBridgeToBool() throws {
        try withTemporaryKeychain { _ in
            Sec.add(Sec.password())
            let attributes = try #require(Sec.attributes(Sec.password(data: nil)))
            #expect(attributes["sync"] as? Bool == false)
            #expect(attributes["tomb"] as? Int == 0)
            #expect(attributes[kSecAttrSynchronizable as String] as? NSNumber == 0)
        }
    }
}
#endif
