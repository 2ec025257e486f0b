/// Lower-case hexadecimal text of bytes, for identifiers in paths, object paths and messages.
///
/// `String(format: "%02x", byte)` per byte goes through Foundation's formatter and a `CVarArg` box for each
/// byte: it was 4–5 % of the agent's time serving Secret Service lookups (item identifiers are persistent
/// references in hex).
extension Sequence where Element == UInt8 {
    /// The bytes as lower-case hexadecimal digits, two per byte.
    package var lowercaseHex: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
