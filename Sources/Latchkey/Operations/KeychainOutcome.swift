import Foundation

/// The answer to a `KeychainOperation`.
public enum KeychainOutcome: Sendable, Hashable, Codable {
    /// Items found, added or upserted.
    case items([FoundItem])
    /// How many items an update or delete changed.
    case count(Int)
    /// Whether an item exists.
    case exists(Bool)
    /// The lock state.
    case lockState(LockState)
    /// The caller's access groups.
    case accessGroups([String])
    /// The change counter.
    case changeCounter(Int64)
    /// What a restore did.
    case restored(KeychainStore.RestoreOutcome)
    /// The damaged items of a class.
    case damagedItems([DamagedItem])
    /// A verification's report.
    case integrity(IntegrityReport)
    /// One outcome per operation of a batch.
    indirect case batch([KeychainOutcome])

    /// The items, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func items() throws(KeychainError) -> [FoundItem] {
        guard case .items(let items) = self else { throw Self.mismatch("items") }
        return items
    }

    /// The count, or a `KeychainError.Code.internalComponent` error for any other outcome.
    public func count() throws(KeychainError) -> Int {
        guard case .count(let count) = self else { throw Self.mismatch("a count") }
        return count
    }

    static func mismatch(_ expected: String) -> KeychainError {
        KeychainError(.internalComponent, "The keychain answered a request with something other than \(expected).")
    }
}
