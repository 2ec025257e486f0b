#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic nanoseconds, cheap enough to bracket single operations of a few microseconds.
enum Stopwatch {
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs `body` and returns its wall-clock duration in nanoseconds.
    static func time<E: Error>(_ body: () throws(E) -> Void) throws(E) -> UInt64 {
        let start = now()
        try body()
        return now() - start
    }
}

/// The durations of one measured operation, summarised from the sorted samples.
///
/// The median of an even count is the mean of the two middle samples; p99 is the nearest-rank
/// percentile (the smallest sample that at least 99 % of the samples do not exceed).
struct Measurement: Sendable {
    /// Samples in nanoseconds, ascending.
    let sorted: [UInt64]

    init(nanoseconds samples: [UInt64]) {
        precondition(!samples.isEmpty, "a measurement needs at least one sample")
        sorted = samples.sorted()
    }

    var count: Int { sorted.count }

    /// The median in microseconds.
    var medianMicroseconds: Double {
        let middle = sorted.count / 2
        let nanoseconds =
            sorted.count.isMultiple(of: 2)
            ? (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2 : Double(sorted[middle])
        return nanoseconds / 1000
    }

    /// The nearest-rank percentile `percent` (0 < percent ≤ 100) in microseconds.
    func percentileMicroseconds(_ percent: Double) -> Double {
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1]) / 1000
    }

    /// p99 in microseconds.
    var p99Microseconds: Double { percentileMicroseconds(99) }
}
