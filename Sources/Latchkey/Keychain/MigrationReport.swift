/// What a `KeychainMigration` did (or, for a dry run, would do), item by item.
public struct MigrationReport: Sendable, Hashable, CustomStringConvertible {
    /// What happens to one source item.
    public enum Action: String, Sendable, Hashable, CaseIterable {
        /// Written to the destination and removed from the source.
        case moved
        /// Written to the destination; the source item stays.
        case copied
        /// Rewritten where it is (same primary key: accessibility, label, comment or value changed).
        case rewrittenInPlace
        /// Written to the destination over an existing item there (`.replaceDestination`).
        case replacedDestination
        /// Left in the source because the destination key is taken (`.keepDestination`).
        case keptDestination
        /// Left out by the transform (it returned `nil`); the source item stays.
        case skippedByTransform
        /// The destination key is taken and the policy is `.fail` (dry runs only; `run()` throws).
        case conflict
    }

    /// One source item.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The item's key in the source.
        public var sourceKey: String
        /// Its key in the destination (the transform may rename it).
        public var destinationKey: String
        /// What happens to it.
        public var action: Action

        /// The action only; keys are attribute values and are not printed.
        public var description: String { "Entry(\(action))" }
    }

    /// Every source item, in the source's order.
    public var entries: [Entry]
    /// Whether this report comes from `dryRun()` (nothing was changed).
    public var isDryRun: Bool

    /// The entries with `action`.
    public func entries(_ action: Action) -> [Entry] { entries.filter { $0.action == action } }

    /// Whether the migration changes (or changed) anything.
    public var changesSomething: Bool {
        entries.contains { ![.keptDestination, .skippedByTransform, .conflict].contains($0.action) }
    }

    /// One line of counts per action, e.g. `"3 moved, 1 conflict"`.
    public var summary: String {
        let counts = Action.allCases.compactMap { action -> String? in
            let count = entries.lazy.filter { $0.action == action }.count
            return count == 0 ? nil : "\(count) \(action.rawValue)"
        }
        return counts.isEmpty ? "nothing to migrate" : counts.joined(separator: ", ")
    }

    /// Counts only; no key is printed.
    public var description: String { "MigrationReport(\(isDryRun ? "dry run: " : "")\(summary))" }
}
