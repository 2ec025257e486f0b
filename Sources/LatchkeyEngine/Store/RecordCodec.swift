import Foundation
import LatchkeyCrypto

/// The plaintext layout of encrypted attribute records and secrets (docs/storage-format.md §Records).
///
/// Attribute record: `0x01 ‖ count(u16) ‖ { nameLength(u8) ‖ name ‖ tag(u8) ‖ length(u32) ‖ payload }*`,
/// then, for an item with search tags, `0x54 ‖ tagCount(u16) ‖ { token(16) }*` (its tags' keyed tokens,
/// sorted), then `0x58 ‖ tagCount(u16) ‖ { length(u16) ‖ utf8 }*` (the tags' text, in the tokens' order),
/// then zero padding to a multiple of 32 bytes so ciphertext lengths reveal little. Readers before search
/// tags stop after the attributes, and readers before tag text after the tokens, so each trailer is
/// invisible to the readers before it. Records written before tag text have the tokens only.
/// Secret: `0x01 ‖ length(u32) ‖ bytes`, padded the same way.
enum RecordCodec {
    static let version: UInt8 = 1
    static let padding = 32

    private enum Tag: UInt8 {
        case string = 0x73, data = 0x64, number = 0x6E, double = 0x66, date = 0x74
    }

    /// The byte that opens the search-tag trailer (never a padding byte, which is zero).
    static let tagMarker: UInt8 = 0x54

    /// The byte that opens the tag-text trailer, right after the token trailer.
    static let tagTextMarker: UInt8 = 0x58

    /// The most search tags one item may have (the trailer's count is 16 bits).
    static let maximumTags = 256

    /// The longest search tag in bytes of UTF-8 (the text trailer's lengths are 16 bits).
    static let maximumTagLength = Int(UInt16.max)

    /// Encodes an attribute record.
    ///
    /// - Parameters:
    ///   - attributes: The item's attributes.
    ///   - tags: The item's search-tag tokens, sorted.
    ///   - tagText: The tags' text in the order of `tags`, or `nil` to seal the tokens only (an item whose
    ///     text is not known: written before tag text was kept). Ignored unless it has one tag per token.
    static func encode(
        _ attributes: [AttributeName: AttributeValue],
        tags: [Data] = [],
        tagText: [String]? = nil
    ) -> Data {
        // Built in an array (appending to `Data` costs far more per call) and copied once.
        var out: [UInt8] = []
        out.reserveCapacity(64 + attributes.count * 32 + tags.count * (IndexTokenizer.tokenLength + 16))
        out.append(version)
        append(UInt16(attributes.count), to: &out)
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            out.append(UInt8(name.rawValue.utf8.count))
            out.append(contentsOf: name.rawValue.utf8)
            switch value {
            case .string(let text):
                out.append(Tag.string.rawValue)
                append(UInt32(text.utf8.count), to: &out)
                out.append(contentsOf: text.utf8)
            case .data(let bytes):
                out.append(Tag.data.rawValue)
                append(UInt32(bytes.count), to: &out)
                out.append(contentsOf: bytes)
            case .number(let number): appendWord(.number, UInt64(bitPattern: number), to: &out)
            case .double(let number): appendWord(.double, number.bitPattern, to: &out)
            case .date(let date): appendWord(.date, date.timeIntervalSinceReferenceDate.bitPattern, to: &out)
            }
        }
        if !tags.isEmpty {
            out.append(tagMarker)
            append(UInt16(clamping: tags.count), to: &out)
            for token in tags.prefix(Int(UInt16.max)) { out.append(contentsOf: token) }
            if let tagText, tagText.count == tags.count,
                tagText.allSatisfy({ $0.utf8.count <= maximumTagLength })
            {
                out.append(tagTextMarker)
                append(UInt16(clamping: tagText.count), to: &out)
                for text in tagText.prefix(Int(UInt16.max)) {
                    append(UInt16(text.utf8.count), to: &out)
                    out.append(contentsOf: text.utf8)
                }
            }
        }
        pad(&out)
        return Data(out)
    }

    /// A decoded attribute record.
    struct DecodedRecord {
        /// The item's attributes.
        var attributes: [AttributeName: AttributeValue]
        /// The search-tag tokens sealed in the record (empty when it has none).
        var tags: [Data]
        /// The tags' text in the order of `tags`: `nil` when not asked for, or when the record has tokens but
        /// no text (written before tag text was kept); empty for an item without tags.
        var tagText: [String]?
    }

    /// Decodes a record's attributes and its search-tag tokens (empty when it has no trailer); with
    /// `withTagText`, also the tags' text (the hot read path leaves it undecoded).
    static func decodeRecord(_ record: Data, withTagText: Bool = false) throws(KeychainError) -> DecodedRecord {
        let decoded: Result<DecodedRecord, KeychainError> = record.withUnsafeBytes { buffer in
            do throws(KeychainError) {
                var cursor = Cursor(buffer)
                let attributes = try decode(&cursor)
                let tags = try decodeTags(&cursor)
                let text = withTagText ? try decodeTagText(&cursor, count: tags.count) : nil
                return .success(DecodedRecord(attributes: attributes, tags: tags, tagText: text))
            } catch {
                return .failure(error)
            }
        }
        return try decoded.get()
    }

    /// The tag-text trailer at `cursor` for `count` tokens: `[]` without tokens, `nil` when the record has
    /// tokens but no text.
    private static func decodeTagText(_ cursor: inout Cursor, count: Int) throws(KeychainError) -> [String]? {
        guard count > 0 else { return [] }
        guard cursor.offset < cursor.bytes.count, cursor.bytes[cursor.offset] == tagTextMarker else { return nil }
        cursor.offset += 1
        guard Int(try cursor.uint(2)) == count else { throw corrupt }
        var text: [String] = []
        text.reserveCapacity(count)
        for _ in 0..<count {
            let length = Int(try cursor.uint(2))
            text.append(try Self.text(cursor.take(length)))
        }
        return text
    }

    /// The search-tag trailer at `cursor`, if there is one (else only padding follows).
    private static func decodeTags(_ cursor: inout Cursor) throws(KeychainError) -> [Data] {
        guard cursor.offset < cursor.bytes.count, cursor.bytes[cursor.offset] == tagMarker else { return [] }
        cursor.offset += 1
        let count = Int(try cursor.uint(2))
        var tags: [Data] = []
        tags.reserveCapacity(count)
        for _ in 0..<count { tags.append(Data(try cursor.take(IndexTokenizer.tokenLength))) }
        return tags
    }

    /// `tag ‖ 8 ‖ word` (big-endian): a number, double or date.
    private static func appendWord(_ tag: Tag, _ word: UInt64, to out: inout [UInt8]) {
        out.append(tag.rawValue)
        append(UInt32(8), to: &out)
        append(word, to: &out)
    }

    static func decode(_ record: Data) throws(KeychainError) -> [AttributeName: AttributeValue] {
        // Reads the plaintext in place (no copy to an array); names and strings are validated as UTF-8
        // straight from the buffer.
        let decoded: Result<[AttributeName: AttributeValue], KeychainError> = record.withUnsafeBytes { buffer in
            do throws(KeychainError) {
                return .success(try decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try decoded.get()
    }

    private static func decode(
        _ buffer: UnsafeRawBufferPointer
    ) throws(KeychainError) -> [AttributeName: AttributeValue] {
        var cursor = Cursor(buffer)
        return try decode(&cursor)
    }

    /// The attributes at the start of a record; `cursor` is left after them.
    private static func decode(_ cursor: inout Cursor) throws(KeychainError) -> [AttributeName: AttributeValue] {
        guard try cursor.byte() == version else { throw corrupt }
        let count = Int(try cursor.uint(2))
        var result: [AttributeName: AttributeValue] = [:]
        result.reserveCapacity(count)
        for _ in 0..<count {
            let nameLength = Int(try cursor.byte())
            let name = AttributeName(rawValue: try text(cursor.take(nameLength)))
            guard let tag = Tag(rawValue: try cursor.byte()) else { throw corrupt }
            let length = Int(try cursor.uint(4))
            let payload = try cursor.take(length)
            let value: AttributeValue
            switch tag {
            case .string: value = .string(try text(payload))
            case .data: value = .data(Data(payload))
            case .number:
                guard payload.count == 8 else { throw corrupt }
                value = .number(Int64(bitPattern: word(payload)))
            case .double:
                guard payload.count == 8 else { throw corrupt }
                value = .double(Double(bitPattern: word(payload)))
            case .date:
                guard payload.count == 8 else { throw corrupt }
                value = .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: word(payload))))
            }
            result[name] = value
        }
        return result
    }

    /// `bytes` as a string, or `corrupt` when they are not valid UTF-8.
    ///
    /// `String(decoding:)` has a fast path for contiguous UTF-8 but repairs invalid input instead of
    /// failing; a repair always changes the bytes (it inserts U+FFFD), so comparing them back is the check
    /// (`String(validating:)` takes a generic, much slower path).
    private static func text(_ bytes: UnsafeRawBufferPointer) throws(KeychainError) -> String {
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        let text = String(decoding: units, as: UTF8.self)
        // ASCII (attribute names, most values) is valid as it stands; only other text needs the comparison.
        guard units.allSatisfy({ $0 < 0x80 }) || text.utf8.elementsEqual(units) else { throw corrupt }
        return text
    }

    static func encodeSecret(_ secret: SecretData) -> Data {
        withEncodedSecret(secret) { Data($0) }
    }

    /// Calls `body` with the secret's record, in a buffer that is zeroed before it is freed.
    static func withEncodedSecret<R, E: Error>(
        _ secret: SecretData,
        _ body: (UnsafeRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        var length = 5 + secret.count
        length += (padding - length % padding) % padding
        let result: Result<R, E> = withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { buffer in
            defer { buffer.initializeMemory(as: UInt8.self, repeating: 0) }
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer[0] = version
            withUnsafeBytes(of: UInt32(secret.count).bigEndian) {
                UnsafeMutableRawBufferPointer(rebasing: buffer[1..<5]).copyMemory(from: $0)
            }
            secret.withUnsafeBytes { bytes in
                guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
                (target + 5).copyMemory(from: source, byteCount: bytes.count)
            }
            do throws(E) {
                return .success(try body(UnsafeRawBufferPointer(buffer)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Decodes a secret record; the caller zeroes `record` afterwards (it holds the plaintext).
    static func decodeSecret(_ record: Data) throws(KeychainError) -> SecretData {
        let decoded: Result<SecretData, KeychainError> = record.withUnsafeBytes { buffer in
            do throws(KeychainError) {
                var cursor = Cursor(buffer)
                guard try cursor.byte() == version else { throw corrupt }
                let length = Int(try cursor.uint(4))
                return .success(SecretData(try cursor.take(length)))
            } catch {
                return .failure(error)
            }
        }
        return try decoded.get()
    }

    private static var corrupt: KeychainError {
        KeychainError(.decode, "An item's decrypted record is malformed.")
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func word(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0) { ($0 << 8) | UInt64($1) }
    }

    private static func pad(_ bytes: inout [UInt8]) {
        let remainder = bytes.count % padding
        if remainder != 0 { bytes.append(contentsOf: repeatElement(0, count: padding - remainder)) }
    }

    /// Reads a record front to back, refusing to read past its end.
    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func byte() throws(KeychainError) -> UInt8 {
            guard offset < bytes.count else { throw corrupt }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint(_ width: Int) throws(KeychainError) -> UInt64 {
            word(try take(width))
        }

        mutating func take(_ count: Int) throws(KeychainError) -> UnsafeRawBufferPointer {
            guard count >= 0, count <= bytes.count - offset else { throw corrupt }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }
    }
}
