/// One version of the sync database's schema: the statements that bring the previous version to it.
///
/// A shipped migration is never edited; a change is a new migration appended to `SyncSchema.migrations`.
struct SyncMigration: Sendable {
    /// The schema version this migration makes (1, 2, ...).
    let version: Int
    /// The statements, run in order in one transaction.
    let statements: [String]
}
