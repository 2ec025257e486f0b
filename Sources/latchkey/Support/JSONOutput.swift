import Foundation
import Latchkey

/// A JSON value for `--json` output, encoded with sorted keys so output is stable.
enum JSONValue: Encodable, Equatable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let values): try container.encode(values)
        case .object(let values): try container.encode(values)
        }
    }

    /// Writes the value and a newline on standard output.
    func print() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

/// How items and attributes are shown: `security`'s attribute dump for people, JSON for programs.
enum ItemOutput {
    /// An attribute value as JSON: strings, numbers and booleans as such, dates as ISO 8601 text, bytes as
    /// `{"base64": "…"}`.
    static func json(_ value: AttributeValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .data(let bytes): .object(["base64": .string(bytes.base64EncodedString())])
        case .number(let number): .integer(number)
        case .double(let number): .double(number)
        case .date(let date): .string(isoDate(date))
        }
    }

    /// An attribute as JSON: as `json(_:)`, except that the protocol (`ptcl`) and authentication type (`atyp`)
    /// are always strings, whatever type the item holds them in (`fourCharCode(_:)`).
    static func json(_ value: AttributeValue, of name: AttributeName) -> JSONValue {
        switch name {
        case .protocol, .authenticationType: .string(fourCharCode(value))
        default: json(value)
        }
    }

    /// A protocol or authentication type as text: a code stored as a string is itself (`htps`); the number an
    /// item holds when none was given (0, Apple's default for `ptcl`) is `""`, as for `atyp`; another number is
    /// its four characters when they are printable ASCII (Apple's `FourCharCode`, `0x68747073` → `htps`), else its
    /// decimal digits; bytes are their UTF-8 text, else `0x` and their hex digits.
    static func fourCharCode(_ value: AttributeValue) -> String {
        switch value {
        case .string(let text): return text
        case .number(0): return ""
        case .number(let number):
            let bytes = (0..<4).reversed().map { UInt8(truncatingIfNeeded: number >> ($0 * 8)) }
            if (0...0xFFFF_FFFF).contains(number), bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) {
                return String(decoding: bytes, as: UTF8.self)
            }
            return String(number)
        case .data(let bytes):
            return String(data: bytes, encoding: .utf8) ?? "0x" + bytes.map { String(format: "%02x", $0) }.joined()
        case .double(let number): return String(number)
        case .date(let date): return isoDate(date)
        }
    }

    /// A secret as JSON: its text when it is UTF-8, else `{"base64": "…"}`.
    static func json(secret: SecretData) -> JSONValue {
        if let text = secret.utf8String { return .string(text) }
        return .object(["base64": .string(secret.data.base64EncodedString())])
    }

    /// One item as a JSON object: `class`, `keychain`, `attributes` (short keys) and, when asked, `password`.
    static func json(_ item: FoundItem, keychain: String, secretKey: String = "password") -> JSONValue {
        var object: [String: JSONValue] = [
            "class": .string(item.itemClass.rawValue),
            "keychain": .string(keychain),
            "attributes": .object(
                Dictionary(uniqueKeysWithValues: item.attributes.map { ($0.key.rawValue, json($0.value, of: $0.key)) })
            ),
        ]
        if let data = item.data { object[secretKey] = json(secret: data) }
        return .object(object)
    }

    /// `security`'s dump of one item: keychain, class and every attribute, sorted by short key.
    static func human(_ item: FoundItem, keychain: String) -> String {
        var out = "keychain: \"\(keychain)\"\n"
        out += "class: \"\(item.itemClass.rawValue)\"\n"
        out += "attributes:\n"
        for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
            out += "    \"\(name.rawValue)\"=\(AttributeText.render(value))\n"
        }
        return out
    }

    /// A secret as `security` prints it after `password:` or `data:`: quoted text, or hex for binary data.
    static func humanSecret(_ secret: SecretData) -> String {
        if let text = secret.utf8String, !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) {
            return "\"\(text)\""
        }
        return "0x" + secret.data.map { String(format: "%02X", $0) }.joined()
    }

    static func isoDate(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Writes text on standard output without a trailing newline of its own.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
