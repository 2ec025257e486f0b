import Foundation
import LatchkeyCrypto

#if canImport(Glibc)
import Glibc
#endif

/// Appends the agent protocol's binary values (docs/wire-protocol.md) to one growing buffer.
///
/// The vocabulary is small: single bytes (tags, booleans), unsigned LEB128 varints (lengths, counts),
/// zigzag varints (signed integers), 8-byte little-endian IEEE doubles, and length-prefixed bytes and
/// UTF-8 strings. `KeychainWireCodec` and the `+Wire` extensions of the model types build frames from them.
///
/// The buffer holds secrets while a frame is built, so every buffer it lets go of is overwritten with
/// zeros first (when it grows, and when the writer or the `Data` that `finish()` hands over is released).
/// It is noncopyable so that no second owner of the buffer can exist.
///
/// ```swift
/// var writer = WireWriter()
/// writer.byte(2)
/// writer.string("svce")
/// let frame = writer.finish()
/// ```
package struct WireWriter: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// How many bytes were written so far.
    package private(set) var count: Int

    /// Makes an empty writer.
    ///
    /// - Parameter capacity: Bytes reserved up front (a find and its one-item answer fit in 256).
    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
        count = 0
    }

    deinit {
        Self.release(base, capacity: capacity)
    }

    /// Hands the written bytes over as `Data` without copying them; the buffer is zeroed when the `Data`
    /// (and every copy of it) is released.
    package consuming func finish() -> Data {
        let base = self.base
        let capacity = self.capacity
        let count = self.count
        discard self
        return Data(
            bytesNoCopy: base,
            count: count,
            deallocator: .custom { pointer, _ in
                Self.release(pointer, capacity: capacity)
            }
        )
    }

    /// Appends one byte (a tag, a version).
    package mutating func byte(_ value: UInt8) {
        reserve(1)
        base.storeBytes(of: value, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends a boolean as one byte, 1 or 0.
    package mutating func bool(_ value: Bool) {
        byte(value ? 1 : 0)
    }

    /// Appends an unsigned LEB128 varint (1 byte below 128, at most 10).
    package mutating func varint(_ value: UInt64) {
        reserve(10)
        var remaining = value
        while remaining >= 0x80 {
            base.storeBytes(of: UInt8(truncatingIfNeeded: remaining) | 0x80, toByteOffset: count, as: UInt8.self)
            count += 1
            remaining >>= 7
        }
        base.storeBytes(of: UInt8(truncatingIfNeeded: remaining), toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends a signed integer as a zigzag varint (small magnitudes of either sign take one byte).
    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends an `Int` as a zigzag varint.
    package mutating func int(_ value: Int) {
        signed(Int64(value))
    }

    /// Appends a double as its 8-byte little-endian IEEE 754 bit pattern (exact, NaN payloads included).
    package mutating func double(_ value: Double) {
        reserve(8)
        base.storeBytes(of: value.bitPattern.littleEndian, toByteOffset: count, as: UInt64.self)
        count += 8
    }

    /// Appends a length (varint) and the bytes.
    package mutating func bytes(_ value: Data) {
        varint(UInt64(value.count))
        reserve(value.count)
        let destination = base + count
        value.withUnsafeBytes { source in
            guard let start = source.baseAddress, source.count > 0 else { return }
            destination.copyMemory(from: start, byteCount: source.count)
        }
        count += value.count
    }

    /// Appends a length (varint) and the string's UTF-8 bytes.
    package mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in raw(UnsafeRawBufferPointer(utf8)) }
    }

    /// Appends a length (varint) and the secret's bytes, read in place (no intermediate copy).
    package mutating func secret(_ value: SecretData) {
        value.withUnsafeBytes { source in raw(source) }
    }

    private mutating func raw(_ source: UnsafeRawBufferPointer) {
        varint(UInt64(source.count))
        reserve(source.count)
        if let start = source.baseAddress, source.count > 0 {
            (base + count).copyMemory(from: start, byteCount: source.count)
        }
        count += source.count
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
        moved.copyMemory(from: base, byteCount: count)
        Self.release(base, capacity: capacity)
        base = moved
        capacity = grown
    }

    private static func release(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        #if canImport(Glibc)
        explicit_bzero(pointer, capacity)
        #else
        memset(pointer, 0, capacity)
        #endif
        pointer.deallocate()
    }
}
