/// The command line of `latchkey-bench`.
///
/// ```
/// latchkey-bench [--items N] [--samples K] [--unlock-samples U] [--seed S] [--json] [--keep] [--only OP,...]
/// ```
struct BenchmarkOptions: Sendable {
    /// How many generic-password items the keychain holds before the operations are measured.
    var items = 1000
    /// How many operations each store measurement times.
    var samples = 2000
    /// How many unlocks at the standard KDF cost are timed (each takes a few hundred milliseconds);
    /// unlocks at the testing cost use ten times as many.
    var unlockSamples = 5
    /// Seed of the generator that picks keys and secrets, so runs are repeatable.
    var seed: UInt64 = 0x6C61_7463_686B_6579
    /// Print one JSON object per line instead of the human table.
    var json = false
    /// Keep the temporary directory (for inspecting the file) instead of removing it.
    var keep = false
    /// Run only these measurements (by op name); `nil` runs everything. The fill always runs.
    var only: Set<String>?

    /// Whether the measurement named `op` should run.
    func includes(_ op: String) -> Bool { only?.contains(op) ?? true }

    static let usage = """
        usage: latchkey-bench [--items N] [--samples K] [--unlock-samples U] [--seed S] [--json] [--keep]
                              [--only OP,OP...]

          --items N           items in the keychain before measuring (default 1000)
          --samples K         operations timed per store measurement (default 2000)
          --unlock-samples U  unlocks timed at the standard KDF cost (default 5; testing cost: 10 x U)
          --seed S            seed for key choice and secrets (default fixed, runs are repeatable)
          --json              one JSON object per line: {"op", "items", "median_us", "p99_us", "samples"}
                              or {"op", "items", "value"}
          --keep              keep the temporary keychain directory and print its path
          --only OP,OP...     run only these measurements (e.g. find-primary-key, for profiling)
        """

    /// Why the command line was rejected.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses `arguments` (without the program name).
    ///
    /// - Returns: `nil` when `--help` was asked for.
    /// - Throws: `UsageError` for an unknown flag or a bad number.
    static func parse(_ arguments: [String]) throws(UsageError) -> BenchmarkOptions? {
        var options = BenchmarkOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--items": options.items = try count(argument, remaining.popFirst(), minimum: 1)
            case "--samples": options.samples = try count(argument, remaining.popFirst(), minimum: 1)
            case "--unlock-samples": options.unlockSamples = try count(argument, remaining.popFirst(), minimum: 1)
            case "--seed":
                guard let text = remaining.popFirst(), let seed = UInt64(text) else {
                    throw UsageError(description: "--seed needs an unsigned integer")
                }
                options.seed = seed
            case "--json": options.json = true
            case "--keep": options.keep = true
            case "--only":
                guard let list = remaining.popFirst(), !list.isEmpty else {
                    throw UsageError(description: "--only needs a comma-separated list of operations")
                }
                options.only = Set(list.split(separator: ",").map(String.init))
            case "--help", "-h": return nil
            default: throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return options
    }

    private static func count(_ flag: String, _ text: String?, minimum: Int) throws(UsageError) -> Int {
        guard let text, let value = Int(text.replacingOccurrences(of: "_", with: "")), value >= minimum else {
            throw UsageError(description: "\(flag) needs an integer of at least \(minimum)")
        }
        return value
    }
}
