import Foundation
import Latchkey
import LatchkeySync
import Logging

/// `latchkey-bench sync --database URL`: sync through a PostgreSQL the caller runs (docs/benchmarks.md).
///
/// Measured in one run, each next to its floor (one `SELECT 1` round trip on the same server):
/// - **propagation**: one item changed on machine A until machine B holds it (A's `syncNow()` then B's);
/// - **initial sync**: N items sent by A, then pulled by a new machine B that joins (items per second);
/// - **overlapping writes**: 4 machines each write the same 1000 accounts, then sync until quiet; duplicates
///   (server rows beyond 1000) and whether every machine holds the same secrets.
///
/// Each run uses new sync keychains in the database (old rows of other keychains are left alone).
enum SyncBenchmarks {
    static let usage = """
        usage: latchkey-bench sync --database URL [--items N] [--changes K]

          --database URL   a PostgreSQL URL (postgresql://user@/db?host=/socket/dir); the run adds its own keychains
          --items N        items of the initial sync (default 100000)
          --changes K      changes timed for propagation (default 200)
        """

    /// Runs the sync benchmarks with `arguments` (after `sync`); returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        var url: String?
        var items = 100_000
        var changes = 200
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--database": url = value
            case "--items": items = value.flatMap(Int.init) ?? -1
            case "--changes": changes = value.flatMap(Int.init) ?? -1
            default:
                print(usage)
                return 64
            }
            index += 2
        }
        guard let url, items > 0, changes > 0 else {
            print(usage)
            return 64
        }
        let (itemCount, changeCount) = (items, changes)
        do {
            let lines = try awaitingResult { () async throws(any Error) -> [String] in
                try await measure(url: url, items: itemCount, changes: changeCount)
            }
            for line in lines { print(line) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("latchkey-bench sync: failed: \(error)\n".utf8))
            return 1
        }
    }

    /// Every measurement, as report lines.
    static func measure(url: String, items: Int, changes: Int) async throws -> [String] {
        let directory = try BenchmarkDirectory(keep: false)
        var lines: [String] = []
        let floor = try await roundTrip(url: url)
        lines.append(String(format: "floor: PostgreSQL round trip (SELECT 1)      median %8.1f µs", floor))

        // Propagation: A changes one item, A sends, B pulls.
        let a = try machine(directory, "prop-a")
        let setup = try await a.setup(databaseURL: url)
        let b = try machine(directory, "prop-b")
        try await b.join(databaseURL: url, secret: .enrollment(setup.enrollmentSecret))
        let store = a.store
        try store.add(
            .genericPassword,
            attributes: [.account: .string("rotated"), .service: .string("api"), .synchronizable: .number(1)],
            data: SecretData(string: "v0")
        )
        try await a.syncNow()
        try await b.syncNow()
        var samples: [UInt64] = []
        for change in 1...changes {
            let start = Stopwatch.now()
            try store.update(
                ItemQuery(.genericPassword, attributes: [.account: .string("rotated")], synchronizable: .yes),
                with: ItemChanges(data: SecretData(string: "v\(change)"))
            )
            try await a.syncNow()
            try await b.syncNow()
            samples.append(Stopwatch.now() - start)
            let seen = try b.store.findOne(
                ItemQuery(.genericPassword, attributes: [.account: .string("rotated")], synchronizable: .yes),
                withData: true
            )
            guard seen.data == SecretData(string: "v\(change)") else {
                throw BenchmarkFailure("machine B did not receive change \(change)")
            }
        }
        let propagation = Measurement(nanoseconds: samples)
        lines.append(
            String(
                format:
                    "propagation A→B (write, A sync, B sync)      median %8.1f µs  p99 %8.1f µs  (%.1f× / %.1f× the floor; target p50 < 100 ms, p99 < 500 ms)",
                propagation.medianMicroseconds,
                propagation.p99Microseconds,
                propagation.medianMicroseconds / floor,
                propagation.p99Microseconds / floor
            )
        )

        // Initial sync of `items` items to a new machine.
        let source = try machine(directory, "initial-a")
        let initial = try await source.setup(databaseURL: url)
        var filled = 0
        while filled < items {
            let count = min(5000, items - filled)
            _ = try source.store.batch(
                (filled..<(filled + count)).map { index in
                    .add(
                        NewItem(
                            .genericPassword,
                            attributes: [
                                .account: .string("item-\(index)"), .service: .string("bench"),
                                .synchronizable: .number(1),
                            ],
                            data: SecretData(string: "secret number \(index)")
                        )
                    )
                }
            )
            filled += count
        }
        let sendStart = Stopwatch.now()
        let sent = try await source.syncNow()
        let sendSeconds = Double(Stopwatch.now() - sendStart) / 1e9
        let target = try machine(directory, "initial-b")
        let pullStart = Stopwatch.now()
        try await target.join(databaseURL: url, secret: .recovery(initial.recoverySecret))
        let pulled = try await target.syncNow()
        let pullSeconds = Double(Stopwatch.now() - pullStart) / 1e9
        lines.append(
            String(
                format:
                    "initial sync: %d items sent in %.1f s (%.0f/s), pulled by a new machine in %.1f s (%.0f/s; target < 60 s)",
                sent.sent,
                sendSeconds,
                Double(sent.sent) / sendSeconds,
                pullSeconds,
                Double(pulled.applied) / pullSeconds
            )
        )

        // Four machines, 1000 overlapping accounts each.
        let first = try machine(directory, "fleet-0")
        let fleet = try await first.setup(databaseURL: url)
        var machines = [first]
        for index in 1..<4 {
            let joined = try machine(directory, "fleet-\(index)")
            try await joined.join(databaseURL: url, secret: .enrollment(fleet.enrollmentSecret))
            machines.append(joined)
        }
        for (index, machine) in machines.enumerated() {
            _ = try machine.store.batch(
                (0..<1000).map { account in
                    .add(
                        NewItem(
                            .genericPassword,
                            attributes: [
                                .account: .string("shared-\(account)"), .service: .string("fleet"),
                                .synchronizable: .number(1),
                            ],
                            data: SecretData(string: "machine \(index) value \(account)")
                        )
                    )
                }
            )
        }
        let fleetStart = Stopwatch.now()
        var rounds = 0
        var conflicts = 0
        while rounds < 10 {
            rounds += 1
            var moved = 0
            for machine in machines {
                let report = try await machine.syncNow()
                moved += report.sent + report.applied
                conflicts += report.conflicts
            }
            if moved == 0 { break }
        }
        let fleetSeconds = Double(Stopwatch.now() - fleetStart) / 1e9
        var sets: [[String: String]] = []
        for machine in machines {
            var values: [String: String] = [:]
            for item in try machine.store.findAll(
                ItemQuery(.genericPassword, attributes: [.service: .string("fleet")], synchronizable: .yes),
                withData: true
            ) {
                values[item.attributes[.account]?.stringValue ?? ""] = item.data?.utf8String
            }
            sets.append(values)
        }
        let identical = sets.allSatisfy { $0 == sets[0] } && sets[0].count == 1000
        lines.append(
            String(
                format:
                    "4 machines × 1000 overlapping writes: settled in %.1f s over %d rounds (%.0f writes/s), %d conflicts decided, %d items on each machine, identical: %@",
                fleetSeconds,
                rounds,
                4000 / fleetSeconds,
                conflicts,
                sets[0].count,
                identical ? "yes" : "NO"
            )
        )
        return lines
    }

    /// A new keychain in `directory` and its sync.
    static func machine(_ directory: BenchmarkDirectory, _ name: String) throws -> KeychainSync {
        let options = KeychainFileOptions(
            accessGroups: ["bench"],
            kdfCost: .testing,
            deviceSecretPath: directory.path + "/" + name + ".device-secret"
        )
        let store = try KeychainStore.open(
            path: directory.keychain(name),
            credentials: [.passphrase(SecretData(string: "bench"))],
            createIfMissing: true,
            options: options
        )
        return KeychainSync(store: store, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// The median of 200 `SELECT 1` round trips, in µs.
    static func roundTrip(url: String) async throws -> Double {
        try await KeychainSync.measureRoundTrip(databaseURL: url, samples: 200) { Stopwatch.now() }
    }
}
