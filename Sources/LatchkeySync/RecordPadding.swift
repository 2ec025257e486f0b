import Foundation

/// The bucket sizes a row's plaintext is padded to before sealing, so that ciphertext lengths say little
/// about an item.
///
/// The padded plaintext is `u32 length ‖ record ‖ zero bytes`, as long as the smallest bucket that holds
/// `4 + length`: 256 bytes, then every power of two up to 64 KiB, then multiples of 64 KiB. A server sees
/// which bucket a row is in (its ciphertext is the bucket plus 28 bytes: nonce and tag), never the exact
/// size: a 1-byte and a 19-byte secret of otherwise equal items give equal lengths, and a record's size is
/// known only to within a factor of two.
enum RecordPadding {
    /// The smallest bucket.
    static let minimum = 256
    /// Above this, buckets are its multiples.
    static let largest = 65_536

    /// The bucket for `count` bytes (length prefix included).
    static func bucket(for count: Int) -> Int {
        if count > largest { return (count + largest - 1) / largest * largest }
        var size = minimum
        while size < count { size *= 2 }
        return size
    }

    /// `record` with its length in front and zeros up to its bucket.
    static func pad(_ record: Data) -> Data {
        var out = Data()
        let size = bucket(for: 4 + record.count)
        out.reserveCapacity(size)
        out.appendBigEndian(UInt32(record.count))
        out.append(record)
        out.append(Data(count: size - out.count))
        return out
    }

    /// The record inside a padded plaintext; `nil` when the length or the padding is wrong.
    static func unpad(_ padded: Data) -> Data? {
        let bytes = [UInt8](padded)
        guard bytes.count >= 4 else { return nil }
        let length = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard 4 + length <= bytes.count, bucket(for: 4 + length) == bytes.count,
            bytes[(4 + length)...].allSatisfy({ $0 == 0 })
        else { return nil }
        return Data(bytes[4..<(4 + length)])
    }
}
