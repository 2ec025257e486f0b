import Foundation

/// How an attribute's value is coerced and stored (Apple's schema kinds, docs/apple-semantics.md §1.2).
public enum AttributeKind: Sendable, Hashable {
    /// Strings and data kept as given; numbers kept; anything else rejected.
    case blob
    /// Data; a string becomes its UTF-8 bytes; a number becomes 4 little-endian bytes of its Int32.
    case data
    /// A string; data is decoded as UTF-8.
    case string
    /// A number; a string that round-trips as a decimal integer becomes a number, any other string is kept.
    case number
    /// An accessibility code (`pdmn`), validated.
    case access
    /// A date only.
    case date
    /// A serialized access control (data only).
    case accessControl
    /// Data of 0 or 16 bytes.
    case uuid
    /// Data of exactly 20 bytes.
    case sha1

    /// The value as stored, or `nil` when this kind cannot hold it (→ `errSecParam`).
    public func coerce(_ value: AttributeValue) -> AttributeValue? {
        switch (self, value) {
        case (.blob, .string), (.blob, .data), (.blob, .number), (.blob, .double):
            return value
        case (.data, .data):
            return value
        case (.data, .string(let text)):
            return .data(Data(text.utf8))
        case (.data, .number), (.data, .double):
            guard let number = value.numberValue else { return nil }
            let word = Int32(truncatingIfNeeded: number).littleEndian
            return .data(withUnsafeBytes(of: word) { Data($0) })
        case (.string, .string):
            return value
        case (.string, .data(let bytes)):
            return String(data: bytes, encoding: .utf8).map(AttributeValue.string)
        case (.number, .number), (.number, .double):
            return value
        case (.number, .string(let text)):
            if let number = Int64(text), String(number) == text { return .number(number) }
            return value
        case (.access, .string(let code)):
            return Accessibility(rawValue: code) == nil ? nil : value
        case (.access, .data(let bytes)):
            guard let code = String(data: bytes, encoding: .utf8), Accessibility(rawValue: code) != nil else {
                return nil
            }
            return .string(code)
        case (.date, .date):
            return value
        case (.accessControl, .data):
            return value
        case (.uuid, .data(let bytes)):
            return bytes.isEmpty || bytes.count == 16 ? value : nil
        case (.sha1, .data(let bytes)):
            return bytes.count == 20 ? value : nil
        default:
            return nil
        }
    }
}
