import Foundation

extension AttributeValue {
    /// Calls `body` with `canonicalBytes` in two pieces, a kind prefix and the value's own bytes, without
    /// building the joined `Data` for strings and data (the common, long values): hashing both pieces
    /// in order hashes `canonicalBytes` (`TokenCacheTests` and `ItemCryptoTests` hold the two equal).
    func withCanonicalBytes<R>(_ body: (_ prefix: UnsafeRawBufferPointer, _ bytes: UnsafeRawBufferPointer) -> R) -> R {
        switch self {
        case .string(var text):
            return withUnsafeBytes(of: Self.bytesPrefix) { prefix in
                text.withUTF8 { body(prefix, UnsafeRawBufferPointer($0)) }
            }
        case .data(let data):
            return withUnsafeBytes(of: Self.bytesPrefix) { prefix in data.withUnsafeBytes { body(prefix, $0) } }
        case .number, .double, .date:
            return canonicalBytes.withUnsafeBytes { body(UnsafeRawBufferPointer(start: nil, count: 0), $0) }
        }
    }

    /// The kind byte `canonicalBytes` puts before the bytes of strings and data.
    private static let bytesPrefix: UInt8 = 0x42
}
