import Foundation

/// One line of benchmark output: a timed operation or a single measured value.
struct BenchmarkResult: Sendable {
    enum Kind: Sendable {
        case timing(Measurement)
        case value(Double, unit: String)
    }

    /// The operation's stable name (`find-primary-key`, `disk-bytes-per-item` ...), used as the JSON `op`.
    var op: String
    /// Items in the keychain when it was measured.
    var items: Int
    var kind: Kind
    /// The operation's floor and its median, when the floor was measured earlier in the run.
    var floor: (op: String, medianMicroseconds: Double)?

    /// Median over the floor's median.
    var ratio: Double? {
        guard case .timing(let measurement) = kind, let floor, floor.medianMicroseconds > 0 else { return nil }
        return measurement.medianMicroseconds / floor.medianMicroseconds
    }

    /// Median minus the floor's median, in microseconds.
    var overFloorMicroseconds: Double? {
        guard case .timing(let measurement) = kind, let floor else { return nil }
        return measurement.medianMicroseconds - floor.medianMicroseconds
    }

    /// The median in microseconds of a timed operation.
    var medianMicroseconds: Double? {
        guard case .timing(let measurement) = kind else { return nil }
        return measurement.medianMicroseconds
    }

    /// The target this operation is held to, if any.
    var target: Target? { Target.all[op] }
}

/// What an operation's median must reach against its floor (issue 13).
struct Target: Sendable {
    enum Limit: Sendable {
        /// At most this many times the floor's median.
        case ratio(Double)
        /// At most this many microseconds over the floor's median.
        case overFloor(Double)
        /// A median of at most this many microseconds, whatever the floor.
        case median(Double)
        /// At most this many times the sum of the floor's median and the median of another operation of the
        /// same run (the agent find: 1.5 × (the in-process find + the socket round trip timed with it)).
        case ratioOfFloorPlus(Double, String)
    }

    var limit: Limit
    /// How the target reads in the human report.
    var text: String

    /// Whether `result` meets the target; `nil` when its floor (or the other operation it adds) was not
    /// measured among `results`.
    func met(by result: BenchmarkResult, among results: [BenchmarkResult]) -> Bool? {
        switch limit {
        case .ratio(let maximum): result.ratio.map { $0 <= maximum }
        case .overFloor(let maximum): result.overFloorMicroseconds.map { $0 <= maximum }
        case .median(let maximum): result.medianMicroseconds.map { $0 <= maximum }
        case .ratioOfFloorPlus:
            limitMicroseconds(for: result, among: results).flatMap { limit in
                result.medianMicroseconds.map { $0 <= limit }
            }
        }
    }

    /// The largest median that meets a `ratioOfFloorPlus` target, in µs; `nil` for the other limits or when
    /// a part was not measured.
    func limitMicroseconds(for result: BenchmarkResult, among results: [BenchmarkResult]) -> Double? {
        guard case .ratioOfFloorPlus(let maximum, let other) = limit, let floor = result.floor?.medianMicroseconds,
            let added = results.last(where: { $0.op == other })?.medianMicroseconds
        else { return nil }
        return maximum * (floor + added)
    }

    static let all: [String: Target] = [
        "find-primary-key": Target(limit: .ratio(2), text: "<= 2x the SQLite point lookup (timed with it)"),
        "add": Target(limit: .ratio(1.5), text: "<= 1.5x one fdatasync (timed with it)"),
        "update": Target(limit: .ratio(1.5), text: "<= 1.5x one fdatasync (timed with it)"),
        "delete": Target(limit: .ratio(1.5), text: "<= 1.5x one fdatasync (timed with it)"),
        "secitem-find-data": Target(limit: .overFloor(5), text: "<= 5 us over the same core find (timed with it)"),
        "secitem-find-attributes": Target(
            limit: .overFloor(5),
            text: "<= 5 us over the same core find (timed with it)"
        ),
        "agent-find-primary-key": Target(
            limit: .ratioOfFloorPlus(1.5, "find-primary-key"),
            text: "<= 1.5x (the in-process find + the socket round trip timed with it)"
        ),
    ]
}

/// Collects results and prints them as a table or as JSON lines.
struct ResultReport {
    private(set) var results: [BenchmarkResult] = []
    /// Whether each result is printed as a JSON line as soon as it is known (the table waits for the end).
    let json: Bool

    init(json: Bool) {
        self.json = json
    }

    /// Each operation's floor: the operation whose median its own is divided by. The store's operations
    /// are held against the raw floor (`FloorBenchmarks`), the `SecItem` reads against the same core find
    /// (both timed alternately, sample by sample), the other faces against the core operation they
    /// translate to.
    static let floors: [String: String] = [
        "find-primary-key": "floor-sqlite-lookup-find-primary-key",
        "find-attributes": "floor-sqlite-lookup-find-attributes",
        "add": "floor-fdatasync-add",
        "update": "floor-fdatasync-update",
        "delete": "floor-fdatasync-delete",
        "secitem-find-data": "secitem-find-data-core",
        "secitem-find-attributes": "secitem-find-attributes-core",
        "secitem-update": "update",
        "secitem-add": "add",
        "secitem-delete": "delete",
        "keychain-get-string": "find-primary-key",
        "keychain-get-codable": "find-primary-key",
        "keychain-set-string": "update",
        "keychain-set-codable": "update",
        "token-header-keychain": "find-primary-key",
        "agent-find-primary-key": "floor-socket-roundtrip-agent-find",
        "agent-find-access-log-on": "floor-socket-roundtrip-agent-find-log-on",
        "agent-find-access-log-off": "floor-socket-roundtrip-agent-find-log-off",
        "agent-find-under-load": "agent-find-idle",
    ]

    mutating func add(_ op: String, items: Int, _ measurement: Measurement) {
        var result = BenchmarkResult(op: op, items: items, kind: .timing(measurement))
        if let floorOp = Self.floors[op],
            let floor = results.last(where: { $0.op == floorOp }),
            case .timing(let floorMeasurement) = floor.kind
        {
            result.floor = (floorOp, floorMeasurement.medianMicroseconds)
        }
        record(result)
    }

    mutating func add(_ op: String, items: Int, value: Double, unit: String) {
        record(BenchmarkResult(op: op, items: items, kind: .value(value, unit: unit)))
    }

    private mutating func record(_ result: BenchmarkResult) {
        results.append(result)
        if json { print(Self.jsonLine(result, among: results)) }
    }

    static func jsonLine(_ result: BenchmarkResult, among results: [BenchmarkResult]) -> String {
        let head = "{\"op\": \(quoted(result.op)), \"items\": \(result.items)"
        switch result.kind {
        case .timing(let measurement):
            var line =
                head + ", \"median_us\": \(format(measurement.medianMicroseconds, 2)), "
                + "\"p99_us\": \(format(measurement.p99Microseconds, 2)), \"samples\": \(measurement.count)"
            if let floor = result.floor, let ratio = result.ratio, let over = result.overFloorMicroseconds {
                line += ", \"floor\": \(quoted(floor.op)), \"ratio\": \(format(ratio, 2)), "
                line += "\"over_floor_us\": \(format(over, 2))"
            }
            if let target = result.target {
                switch target.limit {
                case .ratio(let maximum): line += ", \"target_ratio\": \(format(maximum, 2))"
                case .overFloor(let maximum): line += ", \"target_over_floor_us\": \(format(maximum, 2))"
                case .median(let maximum): line += ", \"target_median_us\": \(format(maximum, 2))"
                case .ratioOfFloorPlus(let maximum, let other):
                    line += ", \"target_ratio_of_floor_plus\": \(format(maximum, 2)), \"plus\": \(quoted(other))"
                }
                if let limit = target.limitMicroseconds(for: result, among: results) {
                    line += ", \"target_median_us\": \(format(limit, 2))"
                }
                if let met = target.met(by: result, among: results) { line += ", \"met\": \(met)" }
            }
            return line + "}"
        case .value(let value, _):
            return head + ", \"value\": \(format(value, 2))}"
        }
    }

    /// The human table: timed operations, then values.
    func table() -> String {
        var lines = [
            pad("operation", 38) + pad("items", 8, right: true) + pad("samples", 9, right: true)
                + pad("median µs", 12, right: true) + pad("p99 µs", 12, right: true) + "  "
                + pad("floor", 38) + pad("ratio", 7, right: true) + pad("+µs", 9, right: true)
        ]
        lines.append(String(repeating: "-", count: 133))
        for result in results {
            guard case .timing(let measurement) = result.kind else { continue }
            var line =
                pad(result.op, 38) + pad("\(result.items)", 8, right: true)
                + pad("\(measurement.count)", 9, right: true)
                + pad(Self.format(measurement.medianMicroseconds, 1), 12, right: true)
                + pad(Self.format(measurement.p99Microseconds, 1), 12, right: true)
            if let floor = result.floor, let ratio = result.ratio, let over = result.overFloorMicroseconds {
                line += "  " + pad(floor.op, 38) + pad(Self.format(ratio, 2) + "x", 7, right: true)
                line += pad(Self.format(over, 1), 9, right: true)
            }
            lines.append(line)
        }
        lines.append("")
        let targeted = results.filter { $0.target != nil }
        if !targeted.isEmpty {
            lines.append("targets:")
            for result in targeted {
                guard let target = result.target else { continue }
                let verdict =
                    target.met(by: result, among: results).map { $0 ? "met" : "NOT met" } ?? "floor not measured"
                var measured = ""
                if let ratio = result.ratio, let over = result.overFloorMicroseconds {
                    measured = " (\(Self.format(ratio, 2))x, +\(Self.format(over, 1)) µs)"
                }
                if let limit = target.limitMicroseconds(for: result, among: results) {
                    measured += " (limit \(Self.format(limit, 1)) µs)"
                }
                lines.append("  " + pad(result.op, 26) + target.text + ": " + verdict + measured)
            }
            lines.append("")
        }
        for result in results {
            guard case .value(let value, let unit) = result.kind else { continue }
            lines.append(
                pad(result.op, 38) + pad("\(result.items)", 8, right: true)
                    + pad(Self.format(value, 2), 21, right: true) + " " + unit
            )
        }
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return right ? fill + text : text + fill
    }

    static func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
