import Foundation
import LatchkeyCrypto

/// A bounds-checked cursor over one binary frame of the agent protocol (docs/wire-protocol.md): the reading
/// side of `WireWriter`.
///
/// Every read checks the bytes that remain first and throws `KeychainError.Code.decode` (-26275) instead
/// of reading past the end; a length or count is compared with what remains before anything is allocated
/// for it, so a frame claiming 2^60 bytes costs nothing. Errors name what was being read, never its value.
///
/// A reader exists only inside `WireReader.read(_:_:)`, which lends it the frame's bytes in place.
///
/// ```swift
/// let name = try WireReader.read(frame) { (reader: inout WireReader) throws(KeychainError) in
///     try reader.string("an attribute name")
/// }
/// ```
package struct WireReader {
    /// How deep batches may nest in one frame (a bound on the decoder's recursion).
    package static let maximumDepth = 32

    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    private init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    /// The bytes not read yet.
    package var remaining: Int { buffer.count - offset }

    /// Runs `body` with a reader over `frame`'s bytes (no copy) and checks that it read all of them.
    ///
    /// - Throws: What `body` throws, or `decode` when bytes are left over.
    package static func read<Value>(
        _ frame: Data,
        _ body: (inout WireReader) throws(KeychainError) -> Value
    ) throws(KeychainError) -> Value {
        let result: Result<Value, KeychainError> = frame.withUnsafeBytes { bytes in
            var reader = WireReader(bytes)
            do throws(KeychainError) {
                let value = try body(&reader)
                guard reader.remaining == 0 else {
                    throw malformed("\(reader.remaining) bytes follow the end of the value")
                }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The `decode` error for a frame that breaks the format in the way `detail` says.
    package static func malformed(_ detail: String) -> KeychainError {
        KeychainError(.decode, "The keychain frame is malformed: \(detail).")
    }

    /// The `decode` error for a tag byte that names no case of `type`.
    package static func unknownTag(_ tag: UInt8, of type: String) -> KeychainError {
        malformed("unknown \(type) tag \(tag)")
    }

    /// The `decode` error for an operation or outcome tag this build does not define: the tag a newer peer
    /// added (docs/wire-protocol.md, "Versioning"), named with this build's protocol version and tags.
    package static func unknownTag(_ tag: UInt8, of type: String, highest: UInt8) -> KeychainError {
        KeychainError(
            .decode,
            "The keychain frame holds \(type) \(tag), which protocol version \(KeychainWireCodec.version) of this "
                + "Latchkey does not define (its \(type)s are 1 to \(highest)): the other side is a newer Latchkey. "
                + "Use the same Latchkey version for the agent and its clients (restart the agent after an upgrade)."
        )
    }

    /// Reads one byte.
    package mutating func byte(_ what: @autoclosure () -> String) throws(KeychainError) -> UInt8 {
        guard offset < buffer.count else { throw Self.malformed("the frame ends before \(what())") }
        let value = buffer[offset]
        offset += 1
        return value
    }

    /// Reads a boolean: exactly 0 or 1.
    package mutating func bool(_ what: @autoclosure () -> String) throws(KeychainError) -> Bool {
        switch try byte(what()) {
        case 0: return false
        case 1: return true
        case let other: throw Self.malformed("\(what()) is \(other), not a boolean")
        }
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes that fits in 64 bits.
    package mutating func varint(_ what: @autoclosure () -> String) throws(KeychainError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < buffer.count else { throw Self.malformed("the frame ends inside \(what())") }
            let byte = buffer[offset]
            offset += 1
            guard shift < 63 || byte <= 1 else { throw Self.malformed("\(what()) overflows 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// Reads a zigzag varint.
    package mutating func signed(_ what: @autoclosure () -> String) throws(KeychainError) -> Int64 {
        let raw = try varint(what())
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads a zigzag varint that fits in `Int`.
    package mutating func int(_ what: @autoclosure () -> String) throws(KeychainError) -> Int {
        let value = try signed(what())
        guard let int = Int(exactly: value) else { throw Self.malformed("\(what()) does not fit this platform") }
        return int
    }

    /// Reads an 8-byte little-endian IEEE 754 double.
    package mutating func double(_ what: @autoclosure () -> String) throws(KeychainError) -> Double {
        guard remaining >= 8 else { throw Self.malformed("the frame ends inside \(what())") }
        let bits = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return Double(bitPattern: UInt64(littleEndian: bits))
    }

    /// Reads a double that is a number: NaN is refused, since it equals nothing, itself included (JSON, the
    /// protocol's version 1, could not carry it either).
    package mutating func number(_ what: @autoclosure () -> String) throws(KeychainError) -> Double {
        let value = try double(what())
        guard !value.isNaN else { throw Self.malformed("\(what()) is not a number (NaN)") }
        return value
    }

    /// Reads a count of elements that each take at least `minimumSize` bytes, refusing a count that the
    /// bytes left cannot hold.
    package mutating func count(
        _ what: @autoclosure () -> String,
        minimumSize: Int = 1
    ) throws(KeychainError) -> Int {
        let claimed = try varint(what())
        guard claimed <= UInt64(remaining / max(minimumSize, 1)) else {
            throw Self.malformed("\(what()) claims \(claimed) elements where \(remaining) bytes remain")
        }
        return Int(claimed)
    }

    /// Reads a length-prefixed run of bytes.
    package mutating func bytes(_ what: @autoclosure () -> String) throws(KeychainError) -> Data {
        Data(try span(what()))
    }

    /// Reads a length-prefixed UTF-8 string; invalid UTF-8 is refused.
    package mutating func string(_ what: @autoclosure () -> String) throws(KeychainError) -> String {
        let bytes = try span(what())
        guard let text = String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
            throw Self.malformed("\(what()) is not valid UTF-8")
        }
        return text
    }

    /// Reads a length-prefixed secret straight from the frame into a `SecretData` (its only copy).
    package mutating func secret(_ what: @autoclosure () -> String) throws(KeychainError) -> SecretData {
        SecretData(try span(what()))
    }

    /// Reads a presence byte and, when it is 1, the value `body` reads; `nil` when it is 0.
    package mutating func optional<Value>(
        _ what: @autoclosure () -> String,
        _ body: (inout WireReader) throws(KeychainError) -> Value
    ) throws(KeychainError) -> Value? {
        try bool("whether \(what()) is present") ? try body(&self) : nil
    }

    private mutating func span(_ what: @autoclosure () -> String) throws(KeychainError) -> UnsafeRawBufferPointer {
        let length = try varint("the length of \(what())")
        guard length <= UInt64(remaining) else {
            throw Self.malformed("\(what()) claims \(length) bytes where \(remaining) remain")
        }
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + Int(length)])
        offset += Int(length)
        return slice
    }
}
