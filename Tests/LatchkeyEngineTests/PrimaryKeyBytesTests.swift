import Foundation
import Testing

@testable import LatchkeyEngine

/// `ItemSchema.primaryKeyBytes` is hashed into every item's primary-key token (`pk`, the uniqueness index): it
/// is built in place since issue 25 and must stay byte for byte the tuple of docs/storage-format.md §6.
struct PrimaryKeyBytesTests {
    /// The definition, written out: for each primary-key attribute, its name's UTF-8, the length of its
    /// canonical bytes (big-endian `UInt32`), those bytes; a missing attribute is its fallback or "".
    static func reference(_ schema: ItemSchema, _ attributes: [AttributeName: AttributeValue]) -> Data {
        var out = Data()
        for name in schema.primaryKey {
            let value = attributes[name] ?? schema.attributes[name]?.primaryKeyFallback ?? .string("")
            let bytes = value.canonicalBytes
            out.append(contentsOf: Array(name.rawValue.utf8))
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(bytes)
        }
        return out
    }

    @Test(arguments: [ItemClass.genericPassword, .internetPassword, .certificate, .key])
    func primaryKeyBytesAreTheDocumentedTuple(itemClass: ItemClass) {
        let schema = ItemSchema.of(itemClass)
        let sets: [[AttributeName: AttributeValue]] = [
            [:],
            [.account: .string("alice"), .service: .string("mail"), .accessGroup: .string("group")],
            [.account: .data(Data([0, 1, 2])), .server: .string("caf\u{E9}.example"), .port: .number(443)],
            [.account: .string(""), .synchronizable: .number(1), .port: .double(8080), .path: .string("/")],
        ]
        for attributes in sets {
            #expect(schema.primaryKeyBytes(of: attributes) == Self.reference(schema, attributes))
        }
    }

    @Test func aKnownGenericPasswordTupleIsPinned() {
        let bytes = ItemSchema.of(.genericPassword).primaryKeyBytes(of: [
            .account: .string("a"), .service: .string("s"),
        ])
        // "acct" ‖ 00000002 ‖ 42 61, then "svce" ‖ 00000002 ‖ 42 73 (kind byte 0x42 for text and data).
        let expectedStart =
            Data("acct".utf8) + Data([0, 0, 0, 2, 0x42, 0x61]) + Data("svce".utf8)
            + Data([0, 0, 0, 2, 0x42, 0x73])
        #expect(bytes.prefix(expectedStart.count) == expectedStart)
    }
}
