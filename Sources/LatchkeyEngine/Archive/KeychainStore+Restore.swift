import Foundation

/// What a restore (`KeychainStore.restore(_:replacingExisting:)`, the operation API's `restore`) did with one
/// archived item.
public enum RestoreOutcome: String, Sendable, Hashable {
    /// The item was added.
    case added
    /// An item with the same primary key existed and was replaced (only when asked).
    case replaced
    /// An item with the same primary key exists and was left alone.
    case duplicate
}

extension KeychainStore {
    /// Adds an archived item, keeping its creation and modification dates.
    ///
    /// Unlike `add`, the item's `cdat` and `mdat` are kept when present, so a backup round trip loses
    /// nothing; its search tags are given back to it. Defaults, coercion, access-group checks and
    /// uniqueness are those of `add`.
    ///
    /// - Parameters:
    ///   - item: An item from a `KeychainArchive`.
    ///   - replacingExisting: Whether a live item with the same primary key is replaced (otherwise it is
    ///     left alone and `.duplicate` is returned).
    /// - Returns: Whether the item was added, replaced an existing one, or was a duplicate.
    /// - Throws: `interactionNotAllowed` when the item's class key is locked; `missingEntitlement` when its
    ///   access group is not the caller's; `noSuchAttribute`/`param` for malformed attributes.
    @discardableResult
    public func restore(
        _ item: KeychainArchive.Item,
        replacingExisting: Bool = false
    ) throws(KeychainError)
        -> RestoreOutcome
    {
        let item = NewItem(item.itemClass, attributes: item.attributes, data: item.data, searchTags: item.searchTags)
        return try transaction { try $0.restore(item, replacingExisting: replacingExisting) }
    }
}
