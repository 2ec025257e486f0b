import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// The plaintext record layout, decoded in place (docs/storage-format.md §Records).
struct RecordCodecTests {
    static let attributes: [AttributeName: AttributeValue] = [
        .account: .string("alice"),
        .service: .string("dienst-ü-日本-🔑"),
        .generic: .data(Data([0, 0xFF, 0x80, 0x41])),
        .creationDate: .date(Date(timeIntervalSinceReferenceDate: 123_456.5)),
        .synchronizable: .number(1),
        "dbl": .double(2.5),
        .label: .string(""),
    ]

    @Test func attributesRoundTrip() throws {
        #expect(try RecordCodec.decode(RecordCodec.encode(Self.attributes)) == Self.attributes)
    }

    @Test(arguments: [0, 1, 31, 32, 1000])
    func secretsRoundTrip(length: Int) throws {
        let secret = SecretData((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(try RecordCodec.decodeSecret(RecordCodec.encodeSecret(secret)) == secret)
    }

    /// The record of one string attribute `name` whose value bytes are `value`.
    static func record(name: [UInt8], value: [UInt8]) -> Data {
        var record: [UInt8] = [1, 0, 1, UInt8(name.count)] + name + [0x73]
        withUnsafeBytes(of: UInt32(value.count).bigEndian) { record += $0 }
        return Data(record + value)
    }

    @Test(
        arguments: [
            [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xF0, 0x90, 0x80, 0x41], [0x41, 0xC0, 0xAF], [0xE2, 0x82],
        ] as [[UInt8]]
    )
    func invalidUTF8IsCorrupt(bytes: [UInt8]) {
        for record in [Self.record(name: Array("acct".utf8), value: bytes), Self.record(name: bytes, value: [0x41])] {
            let error = #expect(throws: KeychainError.self) { try RecordCodec.decode(record) }
            #expect(error?.code == .decode)
        }
    }

    @Test func validMultibyteTextDecodes() throws {
        let text = "é✓🔑"
        let decoded = try RecordCodec.decode(Self.record(name: Array("acct".utf8), value: Array(text.utf8)))
        #expect(decoded == [.account: .string(text)])
    }

    @Test(arguments: [0, 1, 3, 6, 12])
    func truncatedRecordsAreCorrupt(cut: Int) {
        let full = RecordCodec.encode(Self.attributes)
        let error = #expect(throws: KeychainError.self) { try RecordCodec.decode(full.prefix(cut)) }
        #expect(error?.code == .decode)
    }

    @Test func aWrongVersionIsCorrupt() {
        var record = RecordCodec.encode(Self.attributes)
        record[0] = 2
        #expect(throws: KeychainError.self) { try RecordCodec.decode(record) }
        var secret = RecordCodec.encodeSecret(SecretData(string: "x"))
        secret[0] = 0
        #expect(throws: KeychainError.self) { try RecordCodec.decodeSecret(secret) }
    }
}
