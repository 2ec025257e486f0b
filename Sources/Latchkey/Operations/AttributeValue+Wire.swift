import Foundation

// The wire form (docs/wire-protocol.md) of attribute values and attribute dictionaries.
//
//   value       = tag, payload: 1 string (length, UTF-8) | 2 data (length, bytes) | 3 number (zigzag varint)
//                 | 4 double (8 bytes, little-endian bits) | 5 date (8 bytes: timeIntervalSinceReferenceDate);
//                 a NaN double or date is refused
//   attributes  = count (varint), then count × (name: length, UTF-8; value)

extension AttributeValue {
    private enum Tag: UInt8 {
        case string = 1
        case data = 2
        case number = 3
        case double = 4
        case date = 5
    }

    func encodeWire(to writer: inout WireWriter) {
        switch self {
        case .string(let text):
            writer.byte(Tag.string.rawValue)
            writer.string(text)
        case .data(let bytes):
            writer.byte(Tag.data.rawValue)
            writer.bytes(bytes)
        case .number(let value):
            writer.byte(Tag.number.rawValue)
            writer.signed(value)
        case .double(let value):
            writer.byte(Tag.double.rawValue)
            writer.double(value)
        case .date(let date):
            writer.byte(Tag.date.rawValue)
            writer.double(date.timeIntervalSinceReferenceDate)
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> AttributeValue {
        let raw = try reader.byte("an attribute value")
        guard let tag = Tag(rawValue: raw) else { throw WireReader.unknownTag(raw, of: "attribute value") }
        switch tag {
        case .string: return .string(try reader.string("a string attribute"))
        case .data: return .data(try reader.bytes("a data attribute"))
        case .number: return .number(try reader.signed("a number attribute"))
        case .double: return .double(try reader.number("a double attribute"))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try reader.number("a date attribute")))
        }
    }
}

extension [AttributeName: AttributeValue] {
    func encodeWire(to writer: inout WireWriter) {
        writer.varint(UInt64(count))
        for (name, value) in self {
            writer.string(name.rawValue)
            value.encodeWire(to: &writer)
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> [AttributeName: AttributeValue] {
        // An entry takes at least 3 bytes: an empty name's length, a tag and a one-byte payload.
        let count = try reader.count("the attribute count", minimumSize: 3)
        var attributes: [AttributeName: AttributeValue] = [:]
        attributes.reserveCapacity(Swift.min(count, 64))
        for _ in 0..<count {
            let name = AttributeName(rawValue: try reader.string("an attribute name"))
            let value = try AttributeValue.decodeWire(from: &reader)
            guard attributes.updateValue(value, forKey: name) == nil else {
                throw WireReader.malformed("an attribute name appears twice")
            }
        }
        return attributes
    }
}
