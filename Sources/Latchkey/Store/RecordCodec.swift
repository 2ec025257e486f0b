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
        // Reads the plaintext in place (no copy to an array); names and strings are validated as UTF-8
        // straight from the buffer.
        let decoded: Result<[AttributeName: AttributeValue], KeychainError> = record.withUnsafeBytes { buffer in
            do throws(KeychainError) {
                return .success(try decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try decoded.get()
    }

    private static func decode(
        _ buffer: UnsafeRawBufferPointer
    ) throws(KeychainError) -> [AttributeName: AttributeValue] {
        var cursor = Cursor(buffer)
        guard try cursor.byte() == version else { throw corrupt }
        let count = Int(try cursor.uint(2))
        var result: [AttributeName: AttributeValue] = [:]
        result.reserveCapacity(count)
        for _ in 0..<count {
            let nameLength = Int(try cursor.byte())
            let name = AttributeName(rawValue: try text(cursor.take(nameLength)))
            guard let tag = Tag(rawValue: try cursor.byte()) else { throw corrupt }
            let length = Int(try cursor.uint(4))
            let payload = try cursor.take(length)
            let value: AttributeValue
            switch tag {
            case .string: value = .string(try text(payload))
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
            result[name] = value
        }
        return result
    }

    /// `bytes` as a string, or `corrupt` when they are not valid UTF-8.
    ///
    /// `String(decoding:)` has a fast path for contiguous UTF-8 but repairs invalid input instead of
    /// failing; a repair always changes the bytes (it inserts U+FFFD), so comparing them back is the check
    /// (`String(validating:)` takes a generic, much slower path).
    private static func text(_ bytes: UnsafeRawBufferPointer) throws(KeychainError) -> String {
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        let text = String(decoding: units, as: UTF8.self)
        // ASCII (attribute names, most values) is valid as it stands; only other text needs the comparison.
        guard units.allSatisfy({ $0 < 0x80 }) || text.utf8.elementsEqual(units) else { throw corrupt }
        return text
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

    /// Decodes a secret record; the caller zeroes `record` afterwards (it holds the plaintext).
    static func decodeSecret(_ record: Data) throws(KeychainError) -> SecretData {
        let decoded: Result<SecretData, KeychainError> = record.withUnsafeBytes { buffer in
            do throws(KeychainError) {
                var cursor = Cursor(buffer)
                guard try cursor.byte() == version else { throw corrupt }
                let length = Int(try cursor.uint(4))
                return .success(SecretData(try cursor.take(length)))
            } catch {
                return .failure(error)
            }
        }
        return try decoded.get()
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

    private static func word(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private static func pad(_ data: inout Data) {
        let remainder = data.count % padding
        if remainder != 0 { data.append(contentsOf: repeatElement(0, count: padding - remainder)) }
    }

    /// Reads a record front to back, refusing to read past its end.
    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func byte() throws(KeychainError) -> UInt8 {
            guard offset < bytes.count else { throw corrupt }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint(_ width: Int) throws(KeychainError) -> UInt64 {
            word(try take(width))
        }

        mutating func take(_ count: Int) throws(KeychainError) -> UnsafeRawBufferPointer {
            guard count >= 0, count <= bytes.count - offset else { throw corrupt }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }
    }
}
