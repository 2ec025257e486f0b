import Foundation

/// A hybrid logical clock's reading: physical milliseconds, a logical counter and the machine that read it.
///
/// Timestamps are totally ordered: by `physicalMilliseconds`, then `counter`, then `machine`'s 16 bytes in
/// byte order. The machine breaks ties, so two machines never produce equal timestamps and every machine
/// decides the winner of two concurrent edits alike (the later timestamp wins).
///
/// Encoded in a record (`SyncRecord`) as 28 bytes: `u64 physicalMilliseconds ‖ u32 counter ‖ machine (16)`,
/// big-endian.
public struct HLCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 00:00:00 UTC, the largest physical time the clock has seen.
    public let physicalMilliseconds: UInt64
    /// Orders readings within one `physicalMilliseconds`.
    public let counter: UInt32
    /// The machine whose clock made the reading.
    public let machine: UUID

    /// Makes a timestamp from its parts.
    ///
    /// - Parameters:
    ///   - physicalMilliseconds: Milliseconds since 1970.
    ///   - counter: The logical counter.
    ///   - machine: The machine that read it.
    public init(physicalMilliseconds: UInt64, counter: UInt32, machine: UUID) {
        self.physicalMilliseconds = physicalMilliseconds
        self.counter = counter
        self.machine = machine
    }

    /// Whether `lhs` happened before `rhs` in the clock's total order.
    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool {
        if lhs.physicalMilliseconds != rhs.physicalMilliseconds {
            return lhs.physicalMilliseconds < rhs.physicalMilliseconds
        }
        if lhs.counter != rhs.counter { return lhs.counter < rhs.counter }
        return lhs.machine.bytes.lexicographicallyPrecedes(rhs.machine.bytes)
    }

    /// `ms.counter@machine`, for logs and test failures (a timestamp is not secret).
    public var description: String { "\(physicalMilliseconds).\(counter)@\(machine)" }

    /// The 28-byte encoding.
    var encoded: Data {
        var out = Data(capacity: 28)
        out.appendBigEndian(physicalMilliseconds)
        out.appendBigEndian(counter)
        out.append(machine.bytes)
        return out
    }
}
