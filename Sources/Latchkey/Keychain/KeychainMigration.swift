import Foundation

/// Moves or rewrites a keychain's items into another service, access group, accessibility class or
/// sync policy, atomically, optionally transforming each item.
///
/// All items move in one write transaction: either every item is migrated or, when anything fails
/// (a locked class, a conflict under `.fail`, an error thrown by the transform, a full disk), nothing
/// changed at all. Items whose primary key does not change (same service, key, group and sync flag:
/// typically an accessibility change) are rewritten in place, so no `-25299` duplicate-item error can
/// arise from the migration itself.
///
/// ```swift
/// let old = Keychain(service: "com.example.legacy").accessibility(.whenUnlocked)
/// let new = Keychain(service: "com.example.app").accessibility(.afterFirstUnlock)
/// let migration = KeychainMigration(from: old, to: new)
/// print(try migration.dryRun().summary)    // what would change, changing nothing
/// try migration.run()
/// ```
public struct KeychainMigration: Sendable {
    /// What to do when the destination already holds an item under a migrated key.
    public enum ConflictPolicy: String, Sendable, Hashable, CaseIterable {
        /// Stop: nothing is migrated and `run()` throws `duplicateItem` naming how many keys collide
        /// (the dry run lists them). The default.
        case fail
        /// The source item replaces the destination item.
        case replaceDestination
        /// The destination item wins; the source item is left where it is.
        case keepDestination
    }

    /// Whether the source items are removed.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Remove each source item once its copy is written (the default).
        case move
        /// Keep the source items.
        case copy
    }

    /// One item as the transform sees it: the destination's proposed key, secret, label and comment.
    public struct Item: Sendable {
        /// The key the item will have in the destination (initially its source key).
        public var key: String
        /// The secret to store (initially the source item's).
        public var value: SecretData
        /// The label to store (initially the destination keychain's label, else the item's).
        public var label: String?
        /// The comment to store (initially the destination keychain's comment, else the item's).
        public var comment: String?
        /// The key in the source.
        public let sourceKey: String
        /// The source item's metadata.
        public let sourceMetadata: KeychainItemMetadata
    }

    /// Rewrites one item: return it (changed or not), or `nil` to leave it out of the migration (it
    /// stays in the source untouched). Throwing aborts the whole migration, which then changes nothing.
    ///
    /// It runs inside the write transaction, so keep it quick (no network calls).
    public typealias Transform = @Sendable (Item) throws -> Item?

    /// Where items come from: the source keychain's service, access group (or all of the process's
    /// groups) and sync policy.
    public let source: Keychain
    /// Where they go: its service; its access group (or each item's own group when `nil`); its
    /// accessibility; its sync policy (`.any` keeps each item's flag); its label and comment when set.
    public let destination: Keychain
    /// What to do when a destination key is taken.
    public let conflictPolicy: ConflictPolicy
    /// Move or copy.
    public let mode: Mode
    /// The optional rewrite of each item.
    public let transform: Transform?

    /// Describes a migration.
    ///
    /// - Parameters:
    ///   - source: The keychain to read. It must use the same keychain file as `destination`.
    ///   - destination: The keychain to write.
    ///   - conflictPolicy: What to do with taken destination keys (default `.fail`).
    ///   - mode: `.move` (default) or `.copy`.
    ///   - transform: An optional rewrite of each item's key, value, label or comment.
    public init(
        from source: Keychain,
        to destination: Keychain,
        conflictPolicy: ConflictPolicy = .fail,
        mode: Mode = .move,
        transform: Transform? = nil
    ) {
        self.source = source
        self.destination = destination
        self.conflictPolicy = conflictPolicy
        self.mode = mode
        self.transform = transform
    }

    /// Runs the migration: every item, or nothing.
    ///
    /// - Returns: What was done, item by item.
    /// - Throws: `KeychainError` (`duplicateItem` for conflicts under `.fail`, `interactionNotAllowed`
    ///   when a source item or the destination class is locked, `param` when the two keychains use
    ///   different files); or the error the transform threw. In every case nothing changed.
    @discardableResult
    public func run() throws -> MigrationReport {
        try execute(dryRun: false)
    }

    /// Computes what `run()` would do, changing nothing.
    ///
    /// The dry run performs the same reads, transforms and checks inside a write transaction and then
    /// rolls it back, so its report (including conflicts) is exactly what `run()` would do now.
    ///
    /// - Throws: As `run()`, except that conflicts are reported as `.conflict` entries, not thrown.
    public func dryRun() throws -> MigrationReport {
        try execute(dryRun: true)
    }

    /// Runs the migration off the caller's executor (see `run()`).
    @discardableResult
    public func run() async throws -> MigrationReport {
        let migration = self
        return try await BlockingWork.run { () throws -> MigrationReport in try migration.execute(dryRun: false) }
    }

    /// Computes the report off the caller's executor (see `dryRun()`).
    public func dryRun() async throws -> MigrationReport {
        let migration = self
        return try await BlockingWork.run { () throws -> MigrationReport in try migration.execute(dryRun: true) }
    }
}
