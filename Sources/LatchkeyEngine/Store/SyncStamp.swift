import Foundation

/// A reading of a keychain file's sync clock: the hybrid logical clock (docs/sync.md §4) that stamps each
/// change of a synchronizable item, persisted in the file so that it never goes back across restarts.
///
/// A stamp orders changes by milliseconds, then counter; the sync layer adds the machine id as the last
/// tie-breaker. A local change is stamped `max(wall clock, last stamp)`, with the counter raised when the
/// milliseconds did not move; a pulled change's stamp is taken in first (`merged(with:)`), so a change made
/// after seeing another is always stamped later than it, whatever the machines' clocks say.
package struct SyncStamp: Sendable, Hashable, Comparable {
    /// Physical milliseconds since 1970.
    package var milliseconds: UInt64
    /// The logical counter within `milliseconds`.
    package var counter: UInt32

    package init(milliseconds: UInt64, counter: UInt32) {
        self.milliseconds = milliseconds
        self.counter = counter
    }

    /// The zero stamp (a file whose clock never ran).
    package static let zero = SyncStamp(milliseconds: 0, counter: 0)

    package static func < (lhs: SyncStamp, rhs: SyncStamp) -> Bool {
        (lhs.milliseconds, lhs.counter) < (rhs.milliseconds, rhs.counter)
    }

    /// The stamp of a local change at wall-clock time `now`, after this stamp.
    package func next(now: Date) -> SyncStamp {
        let physical = UInt64(max(0, (now.timeIntervalSince1970 * 1000).rounded(.down)))
        if physical > milliseconds { return SyncStamp(milliseconds: physical, counter: 0) }
        if counter == .max { return SyncStamp(milliseconds: milliseconds + 1, counter: 0) }
        return SyncStamp(milliseconds: milliseconds, counter: counter + 1)
    }

    /// This stamp after taking in `received` (a pulled change's stamp): the later of the two.
    package func merged(with received: SyncStamp) -> SyncStamp { max(self, received) }

    /// `u64 ms ‖ u32 counter`, big-endian (the `meta` value `sync.clock`).
    var encoded: Data {
        var out = Data(capacity: 12)
        withUnsafeBytes(of: milliseconds.bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: counter.bigEndian) { out.append(contentsOf: $0) }
        return out
    }

    /// Decodes `encoded`; `nil` for bytes of another length.
    init?(encoded: Data) {
        guard encoded.count == 12 else { return nil }
        let bytes = [UInt8](encoded)
        milliseconds = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        counter = bytes[8..<12].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
