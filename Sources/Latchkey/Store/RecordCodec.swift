import Foundation
import LatchkeyCrypto

/// The plaintext layout of encrypted attribute records and secrets (docs/storage-format.md §Records).
///
/// Attribute record: `0x01 ‖ count(u16) ‖ { nameLength(u8) ‖ name ‖ tag(u8) ‖ length(u32) ‖ payload }*`,
/// then zero padding to a multiple of 32 bytes so ciphertext lengths reveal little.
/// Secret: `0x01 ‖ length(u32) ‖ bytes`, padded the same way.
enum RecordCodec {
    static let version: UInt8 = 1
    static let padding = 32

    private enum Tag: UInt8 {
        case string = 0x73, data = 0x64, number = 0x6E, double = 0x66, date = 0x74
    }

    static func encode(_ attributes: [AttributeName: AttributeValue]) -> Data {
        var out = Data()
        out.reserveCapacity(64 + attributes.count * 24)
        out.append(version)
        append(UInt16(attributes.count), to: &out)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            let nameBytes = Array(name.rawValue.utf8)
            out.append(UInt8(nameBytes.count))
            out.append(contentsOf: nameBytes)
            let tag: Tag
            let payload: Data
            switch value {
            case .string(let text): (tag, payload) = (.string, Data(text.utf8))
            case .data(let bytes): (tag, payload) = (.data, bytes)
            case .number(let number): (tag, payload) = (.number, bigEndian(UInt64(bitPattern: number)))
            case .double(let number): (tag, payload) = (.double, bigEndian(number.bitPattern))
            case .date(let date): (tag, payload) = (.date, bigEndian(date.timeIntervalSinceReferenceDate.bitPattern))
            }
            out.append(tag.rawValue)
            append(UInt32(payload.count), to: &out)
            out.append(payload)
        }
        pad(&out)
        return out
    }

    static func decode(_ record: Data) throws(KeychainError) -> [AttributeName: AttributeValue] {
        let bytes = [UInt8](record)
        var cursor = Cursor(bytes: bytes)
        guard try cursor.byte() == version else { throw corrupt }
        let count = Int(try cursor.uint(2))
        var result: [AttributeName: AttributeValue] = [:]
        result.reserveCapacity(count)
        for _ in 0..<count {
            let nameLength = Int(try cursor.byte())
            guard let name = String(validating: try cursor.take(nameLength), as: UTF8.self) else { throw corrupt }
            guard let tag = Tag(rawValue: try cursor.byte()) else { throw corrupt }
            let length = Int(try cursor.uint(4))
            let payload = try cursor.take(length)
            let value: AttributeValue
            switch tag {
            case .string:
                guard let text = String(validating: payload, as: UTF8.self) else { throw corrupt }
                value = .string(text)
            case .data: value = .data(Data(payload))
            case .number:
                guard payload.count == 8 else { throw corrupt }
                value = .number(Int64(bitPattern: word(payload)))
            case .double:
                guard payload.count == 8 else { throw corrupt }
                value = .double(Double(bitPattern: word(payload)))
            case .date:
                guard payload.count == 8 else { throw corrupt }
                value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: word(payload))))
            }
            result[AttributeName(rawValue: name)] = value
        }
        return result
    }

    static func encodeSecret(_ secret: SecretData) -> Data {
        var out = Data()
        out.reserveCapacity(secret.count + padding + 5)
        out.append(version)
        append(UInt32(secret.count), to: &out)
        secret.withUnsafeBytes { out.append(contentsOf: $0) }
        pad(&out)
        return out
    }

    static func decodeSecret(_ record: Data) throws(KeychainError) -> SecretData {
        var plaintext = [UInt8](record)
        defer { for index in plaintext.indices { plaintext[index] = 0 } }
        var cursor = Cursor(bytes: plaintext)
        guard try cursor.byte() == version else { throw corrupt }
        let length = Int(try cursor.uint(4))
        return SecretData(try cursor.take(length))
    }

    private static var corrupt: KeychainError {
        KeychainError(.decode, "An item's decrypted record is malformed.")
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }

    private static func bigEndian(_ value: UInt64) -> Data {
        withUnsafeBytes(of: value.bigEndian) { Data($0) }
    }

    private static func word(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private static func pad(_ data: inout Data) {
        let remainder = data.count % padding
        if remainder != 0 { data.append(contentsOf: repeatElement(0, count: padding - remainder)) }
    }

    private struct Cursor {
        let bytes: [UInt8]
        var offset = 0

        mutating func byte() throws(KeychainError) -> UInt8 {
            guard offset < bytes.count else { throw corrupt }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint(_ width: Int) throws(KeychainError) -> UInt64 {
            word(try take(width))
        }

        mutating func take(_ count: Int) throws(KeychainError) -> ArraySlice<UInt8> {
            guard count >= 0, offset + count <= bytes.count else { throw corrupt }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
    }
}
