import Foundation
import LatchkeyCrypto
import LatchkeyStorage

extension KeychainStore {
    /// Removes a tombstone or undecryptable row that holds the primary key `attributes` would take, so
    /// that an add can replace it (Apple: spec §3.10).
    ///
    /// `add` means to do this itself when its insert hits the unique constraint, but its
    /// `catch StorageError.uniqueViolation` never matches: `StorageWriter.insert` throws GRDB's raw
    /// `DatabaseError` (errors are mapped to `StorageError` only when the transaction ends). Until that
    /// is fixed, the `Security` module calls this after an add fails with `duplicateItem` and retries.
    ///
    /// - Returns: Whether a row was removed (`false` when the existing item is live).
    package func removeReplaceableRow(_ itemClass: ItemClass, attributes: [AttributeName: AttributeValue])
        throws(KeychainError) -> Bool
    {
        let (table, schema) = try tableAndSchema(itemClass)
        var values = try schema.coerce(attributes)
        if values[.accessGroup] == nil, let first = options.accessGroups.first { values[.accessGroup] = .string(first) }
        for name in schema.primaryKey where values[name] == nil {
            if let value = schema.attributes[name]?.defaultValue { values[name] = value }
        }
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let primaryKey = tokens.primaryKey(table, schema, values)
        return try write { writer in
            let existing = try writer.reader.select(
                from: table,
                where: RowFilter(primaryKey: primaryKey),
                includeSecret: false
            )
            guard let old = existing.first, let id = old.id, try self.isReplaceable(old, table, tokens, snapshot) else {
                return false
            }
            try writer.delete(id: id, from: table)
            try writer.bumpChangeCounter()
            return true
        }
    }
}
