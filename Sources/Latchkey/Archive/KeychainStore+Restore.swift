import Foundation
import LatchkeyCrypto
import LatchkeyStorage

extension KeychainStore {
    /// What `restore(_:replacingExisting:)` did with one archived item.
    public enum RestoreOutcome: Sendable, Hashable {
        /// The item was added.
        case added
        /// An item with the same primary key existed and was replaced (only when asked).
        case replaced
        /// An item with the same primary key exists and was left alone.
        case duplicate
    }

    /// Adds an archived item, keeping its creation and modification dates.
    ///
    /// Unlike `add`, the item's `cdat` and `mdat` are kept when present, so a backup round trip loses
    /// nothing. Defaults, coercion, access-group checks and uniqueness are those of `add`.
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
        let (table, schema) = try tableAndSchema(item.itemClass)
        var values = try schema.coerce(item.attributes)
        values[.sha1] = nil
        values["UUID"] = nil
        values[.tombstone] = nil
        if let group = values[.accessGroup]?.stringValue {
            try checkAccessGroup(group)
        } else {
            guard let first = options.accessGroups.first else { throw missingGroups() }
            values[.accessGroup] = .string(first)
        }
        if values[.accessible] == nil {
            values[.accessible] = .string(
                item.itemClass == .certificate ? Accessibility.always.rawValue : Accessibility.whenUnlocked.rawValue
            )
        }
        for (name, spec) in schema.attributes where values[name] == nil {
            if let value = spec.defaultValue { values[name] = value }
        }
        let now = options.clock.now()
        if values[.creationDate]?.dateValue == nil { values[.creationDate] = .date(now) }
        if values[.modificationDate]?.dateValue == nil { values[.modificationDate] = .date(now) }
        values[.sha1] = .data(ItemCrypto.digest(values, secret: item.data))
        guard let code = values[.accessible]?.stringValue, let keyClass = Accessibility(rawValue: code) else {
            throw KeychainError(.param, "Invalid accessibility value.")
        }
        if keyClass == .whenPasscodeSetThisDeviceOnly, try !hasPassphrase() {
            throw KeychainError(
                .authFailed,
                "Items accessible 'whenPasscodeSetThisDeviceOnly' need a keychain with a passphrase."
            )
        }
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let classKey = try classKey(keyClass, snapshot)
        let row = try ItemCrypto.seal(
            table: table,
            persistref: options.random.bytes(16),
            attributes: values,
            secret: item.data,
            classKey: classKey,
            tokens: tokens,
            schema: schema
        )
        let outcome: RestoreOutcome = try write { writer in
            do {
                try writer.insert(row, into: table)
            } catch StorageError.uniqueViolation {
                let existing = try writer.reader.select(
                    from: table,
                    where: RowFilter(primaryKey: row.primaryKey),
                    includeSecret: false
                )
                guard let old = existing.first, let oldID = old.id else { return .duplicate }
                let replaceable = try self.isReplaceable(old, table, tokens, snapshot)
                guard replaceable || replacingExisting else { return .duplicate }
                try writer.delete(id: oldID, from: table)
                try writer.insert(row, into: table)
                try writer.bumpChangeCounter()
                return replaceable ? .added : .replaced
            }
            try writer.bumpChangeCounter()
            return .added
        }
        options.logger.debug(
            "item restored",
            metadata: ["class": "\(item.itemClass.rawValue)", "outcome": "\(outcome)"]
        )
        return outcome
    }
}
