import Foundation
import Latchkey

/// The record's plaintext encoding (record format 1), before padding (`RecordPadding`) and sealing.
///
/// ```
/// 0x01                          record format
/// u8 len ‖ class code           "genp", "inet", "cert", "keys"
/// timestamp                     28 bytes (HLCTimestamp)
/// u8 tombstone                  0 or 1
/// u16 count                     attributes, sorted by name (ASCII byte order):
///   u8 len ‖ name ‖ u8 tag ‖ u32 len ‖ payload
///   tag: 's' string (UTF-8) | 'd' data | 'n' Int64 | 'f' Double bits | 't' date (Double bits of
///        seconds since 2001-01-01), as storage-format.md §5
/// u8 hasSecret ‖ [u32 len ‖ secret bytes]
/// ```
///
/// Integers are big-endian.
extension SyncRecord {
    /// The record format this build writes and reads.
    static let format: Int16 = 1

    /// The encoding above. The caller wipes it after sealing (it holds the secret).
    func encoded() throws(SyncError) -> [UInt8] {
        var out = Data([0x01])
        let code = Data(itemClass.rawValue.utf8)
        out.append(UInt8(code.count))
        out.append(code)
        out.append(timestamp.encoded)
        out.append(isTombstone ? 1 : 0)
        guard attributes.count <= Int(UInt16.max) else {
            throw SyncError.unsyncableItem("it has more than 65 535 attributes")
        }
        out.appendBigEndian(UInt16(attributes.count))
        for name in attributes.keys.sorted(by: { $0.rawValue.utf8.lexicographicallyPrecedes($1.rawValue.utf8) }) {
            guard let value = attributes[name] else { continue }
            let nameBytes = Data(name.rawValue.utf8)
            guard nameBytes.count <= Int(UInt8.max) else {
                throw SyncError.unsyncableItem("an attribute name is longer than 255 bytes")
            }
            out.append(UInt8(nameBytes.count))
            out.append(nameBytes)
            let (tag, payload) = Self.payload(of: value)
            guard payload.count <= Int(UInt32.max) else { throw SyncError.unsyncableItem("an attribute is too large") }
            out.append(tag)
            out.appendBigEndian(UInt32(payload.count))
            out.append(payload)
        }
        var bytes = [UInt8](out)
        if let secret {
            guard secret.count <= Int(UInt32.max) else { throw SyncError.unsyncableItem("its secret is too large") }
            bytes.append(1)
            withUnsafeBytes(of: UInt32(secret.count).bigEndian) { bytes.append(contentsOf: $0) }
            secret.withUnsafeBytes { bytes.append(contentsOf: $0) }
        } else {
            bytes.append(0)
        }
        return bytes
    }

    /// The record `bytes` encode; `nil` when they do not parse.
    static func decode(_ bytes: Data) -> SyncRecord? {
        var reader = ByteReader(bytes)
        guard reader.u8() == 0x01,
            let codeLength = reader.u8(), let code = reader.take(Int(codeLength)),
            let itemClass = ItemClass(rawValue: String(decoding: code, as: UTF8.self)),
            itemClass != .identity,
            let milliseconds = reader.u64(), let counter = reader.u32(), let machine = reader.take(16),
            let tombstone = reader.u8(), tombstone <= 1,
            let count = reader.u16()
        else { return nil }
        var attributes: [AttributeName: AttributeValue] = [:]
        for _ in 0..<count {
            guard let nameLength = reader.u8(), let name = reader.take(Int(nameLength)),
                let tag = reader.u8(), let length = reader.u32(), let payload = reader.take(Int(length)),
                let value = value(tag: tag, payload: Data(payload))
            else { return nil }
            attributes[AttributeName(rawValue: String(decoding: name, as: UTF8.self))] = value
        }
        guard let hasSecret = reader.u8(), hasSecret <= 1 else { return nil }
        var secret: SecretData?
        if hasSecret == 1 {
            guard let length = reader.u32(), let bytes = reader.take(Int(length)) else { return nil }
            secret = SecretData(bytes)
        }
        guard reader.isAtEnd else { return nil }
        return SyncRecord(
            itemClass: itemClass,
            attributes: attributes,
            secret: secret,
            timestamp: HLCTimestamp(
                physicalMilliseconds: milliseconds,
                counter: counter,
                machine: UUID(bytes: machine)
            ),
            isTombstone: tombstone == 1
        )
    }

    private static func payload(of value: AttributeValue) -> (UInt8, Data) {
        var out = Data()
        switch value {
        case .string(let text): return (0x73, Data(text.utf8))
        case .data(let bytes): return (0x64, bytes)
        case .number(let number): out.appendBigEndian(number)
        case .double(let number): out.appendBigEndian(number.bitPattern)
        case .date(let date): out.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern)
        }
        switch value {
        case .number: return (0x6E, out)
        case .double: return (0x66, out)
        default: return (0x74, out)
        }
    }

    private static func value(tag: UInt8, payload: Data) -> AttributeValue? {
        func bits() -> UInt64? {
            payload.count == 8 ? payload.reduce(0) { $0 << 8 | UInt64($1) } : nil
        }
        switch tag {
        case 0x73: return String(validating: payload, as: UTF8.self).map(AttributeValue.string)
        case 0x64: return .data(payload)
        case 0x6E: return bits().map { .number(Int64(bitPattern: $0)) }
        case 0x66: return bits().map { .double(Double(bitPattern: $0)) }
        case 0x74: return bits().map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
        default: return nil
        }
    }
}

/// Reads big-endian integers and byte runs from a record, refusing to read past its end.
private struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        take(MemoryLayout<T>.size).map { $0.reduce(T.zero) { $0 << 8 | T($1) } }
    }

    mutating func u8() -> UInt8? { integer(UInt8.self) }
    mutating func u16() -> UInt16? { integer(UInt16.self) }
    mutating func u32() -> UInt32? { integer(UInt32.self) }
    mutating func u64() -> UInt64? { integer(UInt64.self) }
}
