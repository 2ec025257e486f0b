import Foundation
import Latchkey

/// Single-item operations of `KeychainStore` on the filled keychain, each over `--samples` operations
/// on random keys:
///
/// - `find-primary-key`: `findOne` by service + account with the secret (`withData: true`);
/// - `find-attributes`: the same without the secret;
///
/// each find right after one timed floor lookup (`FloorLookup`), reported as
/// `floor-sqlite-lookup-find-primary-key` / `-find-attributes`, the floor the find is read against;
/// - `update`: a new secret for a random item (durable);
/// - `add`: new items (durable);
/// - `delete`: random distinct existing items (durable);
///
/// each durable write right after one timed `fdatasync` of a small write (`SyncFloor`), reported as
/// `floor-fdatasync-update` / `-add` / `-delete`, the floor the write is read against;
///
/// - `ledger-scan`: one verification of every row against the row ledger (`ledgerReport()`), what a
///   process pays once per file and again after another process's write;
///
/// then `peak-rss-mib` (before any standard-cost scrypt, which alone needs 128 MiB) and `rss-mib`.
enum StoreBenchmarks: BenchmarkSuite {
    static let name = "store"
    /// Untimed finds that prepare cached statements and warm SQLite's page cache first.
    static let warmUp = 200
    /// Whole-file ledger verifications timed (each reads every row: what a process pays once, and again
    /// after another process wrote).
    static let ledgerScans = 5

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        let samples = context.options.samples
        var picks = (0..<samples).map { _ in keychain.accounts[context.index(below: keychain.accounts.count)] }
        for run in 0..<min(warmUp, samples) {
            _ = try keychain.store.findOne(FilledKeychain.query(account: picks[run]), withData: true)
        }
        for (op, withData) in [("find-primary-key", true), ("find-attributes", false)]
        where context.options.includes(op) {
            picks.shuffle(using: &context.generator)
            context.progress("\(name): \(op)")
            let measured = try find(keychain, picks, withData: withData, &context)
            if let floor = measured.floor {
                context.report.add("floor-sqlite-lookup-" + op, items: keychain.items, floor)
            }
            context.report.add(op, items: keychain.items, measured.operation)
        }
        if context.options.includes("ledger-scan") {
            context.progress("\(name): ledger-scan")
            let measured = try context.measure(ledgerScans) { _ in
                try keychain.store.ledgerReport()
            } check: { _, report in
                guard report.isSound, report.rows == keychain.accounts.count else {
                    throw BenchmarkFailure("the ledger scan did not verify every row")
                }
            }
            context.report.add("ledger-scan", items: keychain.items, measured)
        }
        let floor = try SyncFloor(directory: context.directory, name: "store-sync-floor")
        if context.options.includes("update") {
            context.progress("\(name): update")
            picks.shuffle(using: &context.generator)
            report("update", try update(keychain, picks, floor, &context), keychain, &context)
        }
        if context.options.includes("add") {
            context.progress("\(name): add")
            report("add", try add(keychain, floor, &context), keychain, &context)
        }
        if context.options.includes("delete") {
            context.progress("\(name): delete")
            report("delete", try delete(keychain, floor, &context), keychain, &context)
        }
        context.report.add("peak-rss-mib", items: keychain.items, value: SystemProbe.peakResidentMiB(), unit: "MiB")
        if let current = SystemProbe.currentResidentMiB() {
            context.report.add("rss-mib", items: keychain.items, value: current, unit: "MiB")
        }
    }

    /// Records a durable write after the flush floor measured with it (`floor-fdatasync-<op>`).
    private static func report(
        _ op: String,
        _ measured: (floor: Measurement, operation: Measurement),
        _ keychain: FilledKeychain,
        _ context: inout BenchmarkContext
    ) {
        context.report.add("floor-fdatasync-" + op, items: keychain.items, measured.floor)
        context.report.add(op, items: keychain.items, measured.operation)
    }

    /// `findOne` by service + account, each right after one timed floor lookup when the floor is open;
    /// checks (untimed) that each result is the item asked for.
    private static func find(
        _ keychain: FilledKeychain,
        _ picks: [String],
        withData: Bool,
        _ context: inout BenchmarkContext
    )
        throws -> (floor: Measurement?, operation: Measurement)
    {
        var found: [FoundItem] = []
        found.reserveCapacity(picks.count)
        func find(_ run: Int) throws {
            found.append(try keychain.store.findOne(FilledKeychain.query(account: picks[run]), withData: withData))
        }
        let measured: (floor: Measurement?, operation: Measurement)
        if let lookup = context.floorLookup {
            let ids = picks.map { _ in context.index(below: lookup.rows) }
            let paired = try context.measurePaired(picks.count, floor: { run in _ = try lookup.lookup(ids[run]) }) {
                run in try find(run)
            }
            measured = (paired.floor, paired.operation)
        } else {
            measured = (nil, try context.measure(picks.count) { run in try find(run) })
        }
        for (run, item) in found.enumerated() {
            guard item.attributes[.account] == .string(picks[run]) else {
                throw BenchmarkFailure("a find returned the wrong item")
            }
            guard (item.data?.count == 32) == withData else {
                throw BenchmarkFailure("a find returned \(withData ? "no" : "a") secret unexpectedly")
            }
        }
        return measured
    }

    /// A new 32-byte secret for each picked item.
    private static func update(
        _ keychain: FilledKeychain,
        _ picks: [String],
        _ floor: SyncFloor,
        _ context: inout BenchmarkContext
    ) throws
        -> (floor: Measurement, operation: Measurement)
    {
        let secrets = (0..<picks.count).map { _ in context.secret() }
        return try context.measurePaired(picks.count, floor: floor) { run in
            let changed = try keychain.store.update(
                FilledKeychain.query(account: picks[run]),
                with: ItemChanges(data: secrets[run])
            )
            guard changed == 1 else { throw BenchmarkFailure("update changed \(changed) items, expected 1") }
        }
    }

    /// New items `new-<n>`; they join `keychain.accounts`.
    private static func add(
        _ keychain: FilledKeychain,
        _ floor: SyncFloor,
        _ context: inout BenchmarkContext
    ) throws -> (floor: Measurement, operation: Measurement) {
        let accounts = (0..<context.options.samples).map { "new-\($0)" }
        let secrets = accounts.map { _ in context.secret() }
        let measurement = try context.measurePaired(accounts.count, floor: floor) { run in
            try keychain.store.add(
                .genericPassword,
                attributes: FilledKeychain.attributes(account: accounts[run]),
                data: secrets[run]
            )
        }
        keychain.accounts += accounts
        return measurement
    }

    /// Deletes random distinct items (at most every item there is); they leave `keychain.accounts`.
    private static func delete(
        _ keychain: FilledKeychain,
        _ floor: SyncFloor,
        _ context: inout BenchmarkContext
    ) throws -> (floor: Measurement, operation: Measurement) {
        let count = min(context.options.samples, keychain.accounts.count)
        var victims: [String] = []
        victims.reserveCapacity(count)
        for _ in 0..<count {
            keychain.accounts.swapAt(context.index(below: keychain.accounts.count), keychain.accounts.count - 1)
            if let last = keychain.accounts.popLast() { victims.append(last) }
        }
        return try context.measurePaired(victims.count, floor: floor) { run in
            let deleted = try keychain.store.delete(FilledKeychain.query(account: victims[run]))
            guard deleted == 1 else { throw BenchmarkFailure("delete removed \(deleted) items, expected 1") }
        }
    }
}
