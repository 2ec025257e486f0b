import Foundation
import Latchkey

/// A group of measurements run against the shared filled keychain.
///
/// Add a suite (for example for the `Security` functions or the typed `Keychain` API) as a new file
/// with a type conforming to this protocol, and list it in `main.swift`.
protocol BenchmarkSuite {
    /// A short name shown in progress messages.
    static var name: String { get }
    /// Runs the suite's measurements and records them in `context.report`.
    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws
}

/// What every suite gets: the options, the private directory, a seeded generator and the report.
struct BenchmarkContext {
    let options: BenchmarkOptions
    let directory: BenchmarkDirectory
    var generator: SeededGenerator
    var report: ResultReport
    /// The floor's point lookup, kept open so that finds are timed beside it (set by `FloorBenchmarks`).
    var floorLookup: FloorLookup?

    /// Store options for benchmark keychains: a fixed access group, the run's own device secret, no logging.
    func storeOptions(kdfCost: KDFCost) -> KeychainStore.Options {
        KeychainStore.Options(
            accessGroups: [FilledKeychain.accessGroup],
            kdfCost: kdfCost,
            deviceSecretPath: directory.deviceSecretPath
        )
    }

    /// A uniformly random index in `0..<bound`.
    mutating func index(below bound: Int) -> Int {
        Int.random(in: 0..<bound, using: &generator)
    }

    /// A ~32-byte secret (32 pseudo-random bytes).
    mutating func secret() -> SecretData {
        SecretData(generator.bytes(32))
    }

    /// Times `count` runs of `body`, each given its run number; `check` looks at each result after the
    /// clock has stopped (so results need not be kept, and checking costs nothing in the measurement).
    func measure<T>(
        _ count: Int,
        _ body: (Int) throws -> T,
        check: (Int, T) throws -> Void = { _, _ in }
    ) throws -> Measurement {
        var samples: [UInt64] = []
        samples.reserveCapacity(count)
        for run in 0..<count {
            let start = Stopwatch.now()
            let result = try body(run)
            samples.append(Stopwatch.now() - start)
            try check(run, result)
        }
        return Measurement(nanoseconds: samples)
    }

    /// Times `count` runs of `body`, each right after one timed run of `floor`, so that an operation and
    /// its floor are measured at the same moments (a shared machine's speed moves within minutes).
    ///
    /// - Returns: The floor's measurement and the operation's.
    func measurePaired(
        _ count: Int,
        floor: (Int) throws -> Void,
        _ body: (Int) throws -> Void
    ) throws -> (floor: Measurement, operation: Measurement) {
        var floorSamples: [UInt64] = []
        var samples: [UInt64] = []
        floorSamples.reserveCapacity(count)
        samples.reserveCapacity(count)
        for run in 0..<count {
            var start = Stopwatch.now()
            try floor(run)
            floorSamples.append(Stopwatch.now() - start)
            start = Stopwatch.now()
            try body(run)
            samples.append(Stopwatch.now() - start)
        }
        return (Measurement(nanoseconds: floorSamples), Measurement(nanoseconds: samples))
    }

    /// `measurePaired` with one durable flush (`SyncFloor`) as the floor.
    func measurePaired(
        _ count: Int,
        floor: SyncFloor,
        _ body: (Int) throws -> Void
    ) throws -> (floor: Measurement, operation: Measurement) {
        try measurePaired(count, floor: { _ in try floor.sync() }, body)
    }

    /// A progress line on standard error (standard output stays machine-readable).
    func progress(_ message: String) {
        FileHandle.standardError.write(Data(("latchkey-bench: " + message + "\n").utf8))
    }
}
