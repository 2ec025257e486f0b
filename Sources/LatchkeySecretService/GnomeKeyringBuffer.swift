import Foundation
import Latchkey

/// A reader of gnome-keyring's binary encoding (`egg-buffer.c`): big-endian `uint32`s, and strings and byte
/// arrays as a length and the bytes, `0xffffffff` meaning none. Every read checks the length against what is
/// left, so a truncated or damaged file is an error naming it, never a crash.
struct GnomeKeyringBuffer {
    /// The bytes read.
    let bytes: [UInt8]
    /// The file, for messages.
    let path: String
    /// Where the next read starts.
    var offset = 0

    /// A reader of `bytes` from the start.
    init(_ bytes: [UInt8], path: String) {
        self.bytes = bytes
        self.path = path
    }

    /// The error for a damaged file: what is wrong, and the file.
    func damaged(_ what: String) -> KeychainError {
        KeychainError(
            .decode,
            "The gnome-keyring keyring \(path) is damaged (\(what)): nothing was imported; restore the file from a "
                + "backup, or leave it out by naming the other keyring files."
        )
    }

    /// The next `count` bytes.
    mutating func bytes(count: Int) throws(KeychainError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - offset else { throw damaged("it ends before its last field") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// The next big-endian `uint32`.
    mutating func uint32() throws(KeychainError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw damaged("it ends before its last field") }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// The next time: a high and a low `uint32` of seconds since 1970.
    mutating func time() throws(KeychainError) -> Date {
        let high = UInt64(try uint32())
        let low = UInt64(try uint32())
        return Date(gnomeKeyringSeconds: high << 32 | low)
    }

    /// The next byte array, or `nil` for none (length `0xffffffff`).
    mutating func byteArray() throws(KeychainError) -> [UInt8]? {
        let length = try uint32()
        if length == 0xffff_ffff { return nil }
        guard length < 0x7fff_ffff else { throw damaged("a length is out of range") }
        return try bytes(count: Int(length))
    }

    /// The next string, or `nil` for none; it must be UTF-8 without NUL, as `egg_buffer_get_string` wants.
    mutating func string() throws(KeychainError) -> String? {
        guard let raw = try byteArray() else { return nil }
        guard !raw.contains(0), let text = String(validating: raw, as: UTF8.self) else {
            throw damaged("a text field is not UTF-8")
        }
        return text
    }

    /// The next attribute list: a count, then per attribute its name, its type (0 a string, 1 a `uint32`) and
    /// its value. uint32 values become their decimal digits; names of gnome-keyring's own bookkeeping
    /// (`gkr:compat:`) are left out, as its Secret Service leaves them out.
    ///
    /// - Parameter hashed: Whether this is the unencrypted, hashed copy (read past, values not kept).
    mutating func attributes(hashed: Bool) throws(KeychainError) -> [String: String] {
        let count = try uint32()
        guard Int(count) <= (bytes.count - offset) / 8 else { throw damaged("an attribute count is out of range") }
        var attributes: [String: String] = [:]
        for _ in 0..<count {
            guard let name = try string() else { throw damaged("an attribute has no name") }
            let value: String
            switch try uint32() {
            case 0: value = try string() ?? ""
            case 1: value = String(try uint32())
            default: throw damaged("an attribute has an unknown type")
            }
            if !hashed && !name.hasPrefix("gkr:compat:") { attributes[name] = value }
        }
        return attributes
    }
}
