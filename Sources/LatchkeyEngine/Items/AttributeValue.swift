import Foundation

/// An attribute's value with its kind preserved: a String stays a String, Data stays Data.
///
/// Booleans are numbers (0 or 1), as in Apple's keychain.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// Bytes.
    case data(Data)
    /// An integer (also used for booleans and four-character codes given as numbers).
    case number(Int64)
    /// A non-integral number.
    case double(Double)
    /// A point in time.
    case date(Date)

    /// A boolean as Apple stores it: the number 1 or 0.
    public static func bool(_ value: Bool) -> AttributeValue { .number(value ? 1 : 0) }

    /// The text, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The bytes, when this is data.
    public var dataValue: Data? { if case .data(let value) = self { value } else { nil } }
    /// The integer, when this is an integral number.
    public var numberValue: Int64? {
        switch self {
        case .number(let value): value
        case .double(let value) where value.rounded() == value && abs(value) < 9e18: Int64(value)
        default: nil
        }
    }
    /// The date, when this is a date.
    public var dateValue: Date? { if case .date(let value) = self { value } else { nil } }
    /// The boolean reading of a number (non-zero is true).
    public var boolValue: Bool? { numberValue.map { $0 != 0 } }

    /// The kind only, never the value: attribute values must not reach logs or error messages.
    public var description: String {
        switch self {
        case .string: "string(redacted)"
        case .data(let data): "data(\(data.count) bytes)"
        case .number: "number(redacted)"
        case .double: "double(redacted)"
        case .date: "date(redacted)"
        }
    }

    /// The bytes compared by matching and hashed into search tokens.
    ///
    /// Strings and data with equal bytes are equal (Apple's String/Data equivalence); integral numbers
    /// compare by value whatever their representation.
    package var canonicalBytes: Data {
        switch self {
        case .string(let text): Data([0x42]) + Data(text.utf8)
        case .data(let bytes): Data([0x42]) + bytes
        case .number(let value): Data([0x4E]) + Data(String(value).utf8)
        case .double(let value):
            if let integral = numberValue {
                Data([0x4E]) + Data(String(integral).utf8)
            } else {
                Data([0x46]) + withUnsafeBytes(of: value.bitPattern.bigEndian) { Data($0) }
            }
        case .date(let date):
            Data([0x44]) + withUnsafeBytes(of: date.timeIntervalSinceReferenceDate.bitPattern.bigEndian) { Data($0) }
        }
    }

    /// Equality as keychain matching sees it (byte-exact, case-sensitive, String ≡ Data): the same answer
    /// as comparing `canonicalBytes`, without building them for strings, data and integers (the values
    /// every search compares).
    func matches(_ other: AttributeValue) -> Bool {
        switch (self, other) {
        case (.string(let left), .string(let right)): return left.utf8.elementsEqual(right.utf8)
        case (.data(let left), .data(let right)): return left == right
        case (.string(let text), .data(let bytes)), (.data(let bytes), .string(let text)):
            return text.utf8.elementsEqual(bytes)
        case (.string, _), (.data, _), (_, .string), (_, .data): return false
        case (.number(let left), .number(let right)): return left == right
        default: return canonicalBytes == other.canonicalBytes
        }
    }
}
