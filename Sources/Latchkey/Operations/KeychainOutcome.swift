import Foundation

/// The answer to a `KeychainOperation`, carrying the engine's own value types (`FoundItem`, `LockState`,
/// `RestoreOutcome`, `DamagedItem`, `IntegrityReport`).
///
/// Like `KeychainOperation`, an outcome is a struct, so adding an outcome breaks no caller's `switch`: read
/// it with the accessor for what the operation answers (`items()`, `count()`, `lockState()` ...), each of
/// which throws `internalComponent` for any other outcome, or tell outcomes apart by `kind` with a
/// `default:` branch. Build one with the static functions (`.items([item])`, `.count(2)`).
///
/// ```swift
/// let state = try service.perform(.lockState).lockState()
/// ```
public struct KeychainOutcome: Sendable, Hashable {
    /// The outcome and its values; switched over exhaustively inside the package only.
    package enum Storage: Sendable, Hashable {
        case items([FoundItem])
        case count(Int)
        case exists(Bool)
        case lockState(LockState)
        case accessGroups([String])
        case changeCounter(Int64)
        case restored(RestoreOutcome)
        case damagedItems([DamagedItem])
        case integrity(IntegrityReport)
        indirect case batch([KeychainOutcome])
    }

    /// The outcome and its values.
    package let storage: Storage

    /// Wraps one case of the package's storage.
    package init(_ storage: Storage) {
        self.storage = storage
    }

    /// Items found, added or upserted.
    public static func items(_ items: [FoundItem]) -> Self { Self(.items(items)) }
    /// How many items an update or delete changed.
    public static func count(_ count: Int) -> Self { Self(.count(count)) }
    /// Whether an item exists.
    public static func exists(_ exists: Bool) -> Self { Self(.exists(exists)) }
    /// The lock state.
    public static func lockState(_ state: LockState) -> Self { Self(.lockState(state)) }
    /// The caller's access groups.
    public static func accessGroups(_ groups: [String]) -> Self { Self(.accessGroups(groups)) }
    /// The change counter.
    public static func changeCounter(_ counter: Int64) -> Self { Self(.changeCounter(counter)) }
    /// What a restore did.
    public static func restored(_ outcome: RestoreOutcome) -> Self { Self(.restored(outcome)) }
    /// The damaged items of a class.
    public static func damagedItems(_ items: [DamagedItem]) -> Self { Self(.damagedItems(items)) }
    /// A verification's report.
    public static func integrity(_ report: IntegrityReport) -> Self { Self(.integrity(report)) }
    /// One outcome per operation of a batch.
    public static func batch(_ outcomes: [KeychainOutcome]) -> Self { Self(.batch(outcomes)) }

    /// The items, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func items() throws(KeychainError) -> [FoundItem] {
        guard case .items(let items) = storage else { throw mismatch("items") }
        return items
    }

    /// The count, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func count() throws(KeychainError) -> Int {
        guard case .count(let count) = storage else { throw mismatch("a count") }
        return count
    }

    /// Whether an item exists, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func exists() throws(KeychainError) -> Bool {
        guard case .exists(let exists) = storage else { throw mismatch("a boolean") }
        return exists
    }

    /// The lock state, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func lockState() throws(KeychainError) -> LockState {
        guard case .lockState(let state) = storage else { throw mismatch("a lock state") }
        return state
    }

    /// The access groups, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func accessGroups() throws(KeychainError) -> [String] {
        guard case .accessGroups(let groups) = storage else { throw mismatch("access groups") }
        return groups
    }

    /// The change counter, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func changeCounter() throws(KeychainError) -> Int64 {
        guard case .changeCounter(let counter) = storage else { throw mismatch("a change counter") }
        return counter
    }

    /// What a restore did, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func restored() throws(KeychainError) -> RestoreOutcome {
        guard case .restored(let outcome) = storage else { throw mismatch("a restore outcome") }
        return outcome
    }

    /// The damaged items, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func damagedItems() throws(KeychainError) -> [DamagedItem] {
        guard case .damagedItems(let items) = storage else { throw mismatch("damaged items") }
        return items
    }

    /// The integrity report, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func integrity() throws(KeychainError) -> IntegrityReport {
        guard case .integrity(let report) = storage else { throw mismatch("an integrity report") }
        return report
    }

    /// A batch's outcomes, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func batch() throws(KeychainError) -> [KeychainOutcome] {
        guard case .batch(let outcomes) = storage else { throw mismatch("a batch") }
        return outcomes
    }

    private func mismatch(_ expected: String) -> KeychainError {
        Self.mismatch(expected)
    }

    /// The error for an outcome that is not what the operation answers.
    package static func mismatch(_ expected: String) -> KeychainError {
        KeychainError(
            .internalComponent,
            "The keychain answered a request with something other than \(expected). "
                + "Use the same Latchkey version for the agent and its clients."
        )
    }
}
