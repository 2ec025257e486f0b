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
}

/// Collects results and prints them as a table or as JSON lines.
struct ResultReport {
    private(set) var results: [BenchmarkResult] = []
    /// Whether each result is printed as a JSON line as soon as it is known (the table waits for the end).
    let json: Bool

    init(json: Bool) {
        self.json = json
    }

    mutating func add(_ op: String, items: Int, _ measurement: Measurement) {
        record(BenchmarkResult(op: op, items: items, kind: .timing(measurement)))
    }

    mutating func add(_ op: String, items: Int, value: Double, unit: String) {
        record(BenchmarkResult(op: op, items: items, kind: .value(value, unit: unit)))
    }

    private mutating func record(_ result: BenchmarkResult) {
        results.append(result)
        if json { print(Self.jsonLine(result)) }
    }

    static func jsonLine(_ result: BenchmarkResult) -> String {
        let head = "{\"op\": \(quoted(result.op)), \"items\": \(result.items)"
        switch result.kind {
        case .timing(let measurement):
            return head + ", \"median_us\": \(format(measurement.medianMicroseconds, 2)), "
                + "\"p99_us\": \(format(measurement.p99Microseconds, 2)), \"samples\": \(measurement.count)}"
        case .value(let value, _):
            return head + ", \"value\": \(format(value, 2))}"
        }
    }

    /// The human table: timed operations, then values.
    func table() -> String {
        var lines = [
            pad("operation", 22) + pad("items", 9, right: true) + pad("samples", 9, right: true)
                + pad("median µs", 13, right: true) + pad("p99 µs", 13, right: true)
        ]
        lines.append(String(repeating: "-", count: 66))
        for result in results {
            guard case .timing(let measurement) = result.kind else { continue }
            lines.append(
                pad(result.op, 22) + pad("\(result.items)", 9, right: true)
                    + pad("\(measurement.count)", 9, right: true)
                    + pad(Self.format(measurement.medianMicroseconds, 1), 13, right: true)
                    + pad(Self.format(measurement.p99Microseconds, 1), 13, right: true)
            )
        }
        lines.append("")
        for result in results {
            guard case .value(let value, let unit) = result.kind else { continue }
            lines.append(
                pad(result.op, 22) + pad("\(result.items)", 9, right: true)
                    + pad(Self.format(value, 2), 22, right: true) + " " + unit
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
