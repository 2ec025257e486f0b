import Foundation
import LatchkeyCrypto

/// Builds a `KeychainArchive` file item by item: each item is encoded into the archive's JSON document as it is
/// appended, so that a backup holds the document (about the size of the archive) instead of every item twice
/// and an encoder's tree of them.
///
/// The document is the one `KeychainArchive` describes (version 2, keys sorted), written without `JSONEncoder`;
/// `KeychainArchive.open` reads it. Secrets are written in base64 straight from their `SecretData` into the
/// document, and the document is zeroed when the buffer grows and once it is sealed.
///
/// ```swift
/// var writer = KeychainArchiveWriter()
/// for item in items { try writer.append(item) }
/// let file = try writer.sealed(passphrase: SecretData(string: "backup passphrase"))
/// ```
public struct KeychainArchiveWriter: ~Copyable {
    /// The JSON document so far: the opening, then the items' objects separated by commas.
    private var document: [UInt8] = []
    /// How many items were appended.
    public private(set) var count = 0

    /// Starts an archive.
    ///
    /// - Parameter created: When the archive was made.
    public init(created: Date = Date()) {
        document.reserveCapacity(64 * 1024)
        document.append(contentsOf: Array("{\"created\":".utf8))
        document.append(contentsOf: Array(Self.number(created.timeIntervalSince1970).utf8))
        document.append(contentsOf: Array(",\"format\":\"latchkey-archive\",\"items\":[".utf8))
    }

    /// Appends one item.
    ///
    /// - Throws: `KeychainError.Code.param` for an attribute holding a non-finite number (JSON has none).
    public mutating func append(_ item: KeychainArchive.Item) throws(KeychainError) {
        var object: [UInt8] = count == 0 ? [] : [UInt8(ascii: ",")]
        object += Array("{\"attributes\":{".utf8)
        for (index, name) in item.attributes.keys.sorted(by: { $0.rawValue < $1.rawValue }).enumerated() {
            guard let value = item.attributes[name] else { continue }
            if index > 0 { object.append(UInt8(ascii: ",")) }
            Self.appendString(name.rawValue, to: &object)
            object += Array(":{".utf8)
            switch value {
            case .string(let text):
                object += Array("\"s\":".utf8)
                Self.appendString(text, to: &object)
            case .data(let bytes):
                object += Array("\"b\":\"".utf8)
                object += Array(bytes.base64EncodedString().utf8)
                object.append(UInt8(ascii: "\""))
            case .number(let number):
                object += Array("\"n\":\(number)".utf8)
            case .double(let number):
                guard number.isFinite else { throw KeychainError(.param, "An attribute holds a non-finite number.") }
                object += Array("\"f\":\(Self.number(number))".utf8)
            case .date(let date):
                object += Array("\"t\":\(Self.number(date.timeIntervalSinceReferenceDate))".utf8)
            }
            object.append(UInt8(ascii: "}"))
        }
        object += Array("},\"class\":".utf8)
        Self.appendString(item.itemClass.rawValue, to: &object)
        grow(by: object.count + (item.data.map { ($0.count + 2) / 3 * 4 + 10 } ?? 0) + 256)
        document.append(contentsOf: object)
        if let secret = item.data {
            document.append(contentsOf: Array(",\"data\":\"".utf8))
            secret.withUnsafeBytes { Self.appendBase64($0, to: &document) }
            document.append(UInt8(ascii: "\""))
        }
        if !item.searchTags.isEmpty {
            var tags = Array(",\"tags\":[".utf8)
            for (index, tag) in item.searchTags.enumerated() {
                if index > 0 { tags.append(UInt8(ascii: ",")) }
                Self.appendString(tag, to: &tags)
            }
            tags.append(UInt8(ascii: "]"))
            grow(by: tags.count + 1)
            document.append(contentsOf: tags)
        }
        document.append(UInt8(ascii: "}"))
        count += 1
    }

    /// Closes the document and encrypts it under `passphrase`, as `KeychainArchive.sealed(passphrase:cost:)`.
    ///
    /// - Parameters:
    ///   - passphrase: The archive's own passphrase; must not be empty.
    ///   - cost: The scrypt cost (`.standard` unless testing).
    /// - Returns: The archive file's bytes.
    /// - Throws: `KeychainError.Code.param` for an empty passphrase; `.internal` if the crypto backend fails.
    public consuming func sealed(passphrase: SecretData, cost: KDFCost = .standard) throws(KeychainError) -> Data {
        grow(by: 32)
        document.append(contentsOf: Array("],\"version\":\(KeychainArchive.payloadVersion)}".utf8))
        defer { Self.zero(&document) }
        return try KeychainArchive.sealed(payload: document, passphrase: passphrase, cost: cost)
    }

    /// Makes room for `extra` more bytes, moving the document to a buffer twice as large when needed and zeroing
    /// the old one (it holds secrets in base64).
    private mutating func grow(by extra: Int) {
        let needed = document.count + extra
        guard needed > document.capacity else { return }
        var larger: [UInt8] = []
        larger.reserveCapacity(max(needed, document.capacity * 2))
        larger.append(contentsOf: document)
        Self.zero(&document)
        document = larger
    }

    /// Overwrites every byte of `bytes` with zero.
    private static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            memset(base, 0, buffer.count)
        }
    }

    /// A double as JSON: Swift's shortest text that reads back as the same value (`1.5`, `7.5e-05`).
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "0"
    }

    /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as UTF-8.
    private static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
    private static let base64Digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `bytes` in padded base64 (RFC 4648), without an intermediate copy of them.
    private static func appendBase64(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out.append(base64Digits[Int(chunk >> 18 & 63)])
            out.append(base64Digits[Int(chunk >> 12 & 63)])
            out.append(base64Digits[Int(chunk >> 6 & 63)])
            out.append(base64Digits[Int(chunk & 63)])
            index += 3
        }
        let remaining = bytes.count - index
        guard remaining > 0 else { return }
        let chunk = UInt32(bytes[index]) << 16 | (remaining == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
        out.append(base64Digits[Int(chunk >> 18 & 63)])
        out.append(base64Digits[Int(chunk >> 12 & 63)])
        out.append(remaining == 2 ? base64Digits[Int(chunk >> 6 & 63)] : UInt8(ascii: "="))
        out.append(UInt8(ascii: "="))
    }
}
