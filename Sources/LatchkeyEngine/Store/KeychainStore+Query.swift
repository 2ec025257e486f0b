import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// A validated query: class, table, schema and coerced attribute filters.
package struct QueryPlan {
    package var itemClass: ItemClass
    var table: ItemTable
    package var schema: ItemSchema
    package var attributes: [AttributeName: AttributeValue]
    var synchronizable: ItemQuery.Synchronizable
    var persistref: Data?
    var includeTombstones: Bool
    /// Search tags every match carries (`ItemQuery.searchTags`).
    var searchTags: [String]
    /// Whether every filter is answered by a token column (so SQL LIMIT is exact). Never with search tags:
    /// the tags each match's record holds are checked after decryption, so a tag index row added to the
    /// file cannot take a place under the LIMIT.
    var fullyIndexed: Bool
}

extension KeychainStore {
    /// Validates `query` and coerces its attributes.
    func plan(_ query: ItemQuery) throws(KeychainError) -> QueryPlan {
        var itemClass = query.itemClass
        var persistref: Data?
        if let reference = query.persistentReference {
            guard reference.count == 20, let code = String(data: reference.prefix(4), encoding: .ascii),
                let referenced = ItemClass(rawValue: code)
            else {
                throw KeychainError(.param, "The persistent reference is malformed.")
            }
            if let itemClass, itemClass != referenced {
                throw KeychainError(.param, "The persistent reference names another item class.")
            }
            itemClass = referenced
            persistref = reference.suffix(16)
        }
        guard let itemClass else { throw KeychainError(.param, "The query names no item class.") }
        let (table, schema) = try tableAndSchema(itemClass)
        if query.hostOrSubdomain != nil, itemClass != .internetPassword {
            throw KeychainError(.unimplemented, "kSecMatchHostOrSubdomainOfHost applies to internet passwords only.")
        }
        let attributes = try schema.coerce(query.attributes)
        if let group = attributes[.accessGroup]?.stringValue { try checkAccessGroup(group) }
        try Self.checkSearchTags(query.searchTags)
        let fullyIndexed =
            query.searchTags.isEmpty && attributes.keys.allSatisfy { TokenCache.column(for: $0, in: table) != nil }
        return QueryPlan(
            itemClass: itemClass,
            table: table,
            schema: schema,
            attributes: attributes,
            synchronizable: query.synchronizable,
            persistref: persistref,
            includeTombstones: query.includeTombstones,
            searchTags: query.searchTags,
            fullyIndexed: fullyIndexed
        )
    }

    /// Refuses more search tags than an item may have (`RecordCodec.maximumTags`), and a tag longer than its
    /// record can hold (`RecordCodec.maximumTagLength` bytes of UTF-8).
    static func checkSearchTags(_ tags: [String]) throws(KeychainError) {
        guard tags.count <= RecordCodec.maximumTags else {
            throw KeychainError(
                .param,
                "\(tags.count) search tags were given; an item or query may have at most \(RecordCodec.maximumTags)."
            )
        }
        guard tags.allSatisfy({ $0.utf8.count <= RecordCodec.maximumTagLength }) else {
            throw KeychainError(
                .param,
                "A search tag is longer than \(RecordCodec.maximumTagLength) bytes of UTF-8."
            )
        }
    }

    func tableAndSchema(_ itemClass: ItemClass) throws(KeychainError) -> (ItemTable, ItemSchema) {
        guard let table = itemClass.table else {
            throw KeychainError(.unimplemented, "Identity items are not supported by this operation yet.")
        }
        return (table, ItemSchema.of(itemClass))
    }

    /// The SQL-side filter of a plan: token equalities plus the implicit group, sync and tombstone rules.
    func rowFilter(_ plan: QueryPlan, tokens: TokenCache, limit: Int?) throws(KeychainError) -> RowFilter {
        var conditions: [(column: String, tokens: [Data])] = []
        for (name, value) in plan.attributes {
            guard let column = TokenCache.column(for: name, in: plan.table) else { continue }
            conditions.append((column, [tokens.token(plan.table, name, value)]))
        }
        if plan.attributes[.accessGroup] == nil {
            guard !options.accessGroups.isEmpty else { throw missingGroups() }
            conditions.append(
                ("agrp", options.accessGroups.map { tokens.token(plan.table, .accessGroup, .string($0)) })
            )
        }
        // The implicit `sync = 0` filter is not added when a persistent reference names the item
        // (docs/apple-semantics.md §3.2).
        if plan.attributes[.synchronizable] == nil, plan.persistref == nil {
            switch plan.synchronizable {
            case .no: conditions.append(("sync", [tokens.token(plan.table, .synchronizable, .number(0))]))
            case .yes: conditions.append(("sync", [tokens.token(plan.table, .synchronizable, .number(1))]))
            case .any: break
            }
        }
        if plan.attributes[.tombstone] == nil, !plan.includeTombstones {
            conditions.append(("tomb", [tokens.token(plan.table, .tombstone, .number(0))]))
        }
        return RowFilter(
            conditions: conditions,
            persistref: plan.persistref,
            limit: limit,
            tags: tokens.tagTokens(plan.table, plan.searchTags)
        )
    }

    /// Selects and decrypts the rows of a plan; verifies every filter on the decrypted values, and every
    /// search tag on the tag tokens sealed in the record.
    ///
    /// `withTagText` decodes the tags' text too (`OpenedRow.tagText`): on by default, because a row that is
    /// rewritten keeping its tags must seal their text again; the find path asks only when its request does.
    ///
    /// - Returns: The matching rows and how many corrupt rows were skipped.
    /// - Throws: `interactionNotAllowed` when any selected row's class key is unavailable.
    func openRows(
        reader: StorageReader,
        plan: QueryPlan,
        filter: RowFilter,
        withSecret: Bool,
        withTagText: Bool = true,
        _ snapshot: KeyRing.Snapshot,
        ledger write: LedgerWrite? = nil,
        checkingLedger: Bool = true
    ) throws -> (rows: [OpenedRow], corrupt: Int) {
        let tokens = try tokenCache(snapshot)
        let rows = try reader.select(from: plan.table, where: filter, includeSecret: withSecret)
        let mismatched =
            checkingLedger
            ? try checkLedger(rows, in: plan.table, reader: reader, snapshot, tokens, write: write) : []
        var result: [OpenedRow] = []
        result.reserveCapacity(rows.count)
        var corrupt = mismatched.count
        for (index, row) in rows.enumerated() where !mismatched.contains(index) {
            guard let keyClass = tokens.keyClass(of: row.tokens["kc"], in: plan.table) else {
                corrupt += 1
                continue
            }
            let key = try classKey(keyClass, snapshot)
            let opened:
                (
                    attributes: [AttributeName: AttributeValue], secret: SecretData?, tags: [Data], tagText: [String]?
                )
            do {
                opened = try ItemCrypto.open(
                    table: plan.table,
                    row: row,
                    classKey: key,
                    withSecret: withSecret,
                    withTagText: withTagText
                )
            } catch {
                corrupt += 1
                options.logger.warning(
                    "skipped an item that failed authentication",
                    metadata: ["table": "\(plan.table.rawValue)"]
                )
                continue
            }
            guard matches(opened.attributes, plan), filter.tags.allSatisfy(opened.tags.contains) else { continue }
            result.append(
                OpenedRow(
                    row: row,
                    keyClass: keyClass,
                    attributes: opened.attributes,
                    secret: opened.secret,
                    tags: opened.tags,
                    tagText: opened.tagText
                )
            )
        }
        return (result, corrupt)
    }

    private func matches(_ attributes: [AttributeName: AttributeValue], _ plan: QueryPlan) -> Bool {
        for (name, value) in plan.attributes {
            guard let stored = attributes[name] ?? plan.schema.attributes[name]?.primaryKeyFallback,
                stored.matches(value)
            else { return false }
        }
        guard let group = attributes[.accessGroup]?.stringValue, options.accessGroups.contains(group) else {
            return false
        }
        return true
    }

    func tokenCache(_ snapshot: KeyRing.Snapshot) throws(KeychainError) -> TokenCache {
        guard let tokens = snapshot.tokens else {
            if snapshot.waitingForFirstUnlock { throw waitingForFirstUnlockError() }
            throw KeychainError(
                .interactionNotAllowed,
                "The keychain at \(path) has not been unlocked in this process and its device secret does not open it; unlock it first."
            )
        }
        return tokens
    }

    /// The class key for `keyClass`, or `interactionNotAllowed` naming what blocks it.
    func classKey(_ keyClass: Accessibility, _ snapshot: KeyRing.Snapshot) throws(KeychainError) -> SymmetricKey {
        if let key = snapshot.classKeys[keyClass] { return key }
        if snapshot.waitingForFirstUnlock { throw waitingForFirstUnlockError() }
        let state = snapshot.lockState
        switch keyClass.requirement {
        case .unlocked where state != .unlocked:
            throw KeychainError(
                .interactionNotAllowed,
                "The keychain is \(state.words), and items accessible '\(keyClass)' need it unlocked: run `latchkey unlock` "
                    + "when an agent serves it, else give its passphrase or key file (LATCHKEY_PASSPHRASE_FILE, "
                    + "LATCHKEY_KEY_FILE, or the prompt on a terminal)."
            )
        case .firstUnlock where state == .neverUnlocked:
            throw KeychainError(
                .interactionNotAllowed,
                "The keychain was never unlocked, and items accessible '\(keyClass)' need one unlock first: run "
                    + "`latchkey unlock` when an agent serves it, else give its passphrase or key file."
            )
        default:
            // The lock state allows the class, yet its key did not unwrap: the file was made on another machine.
            throw KeychainError(
                .interactionNotAllowed,
                "Items accessible '\(keyClass)' are bound to another machine's device secret and cannot be opened here."
            )
        }
    }

    func checkAccessGroup(_ group: String) throws(KeychainError) {
        guard options.accessGroups.contains(group) else {
            throw KeychainError(
                .missingEntitlement,
                "Access group '\(group)' is not one of this process's groups \(options.accessGroups); "
                    + "add it to LATCHKEY_ACCESS_GROUPS or the executable's .entitlements file."
            )
        }
    }

    func missingGroups() -> KeychainError {
        KeychainError(.missingEntitlement, "This process has no keychain access groups; set LATCHKEY_ACCESS_GROUPS.")
    }

    package static func persistentReference(_ itemClass: ItemClass, _ persistref: Data) -> Data {
        // Built in one allocation of its final size (a find builds one per result).
        var reference = Data(capacity: 4 + persistref.count)
        reference.append(contentsOf: itemClass.rawValue.utf8)
        reference.append(persistref)
        return reference
    }

    /// Whether an existing row under the same primary key may be replaced by an add: a tombstone, or a
    /// row that no available key decrypts.
    func isReplaceable(
        _ row: ItemRow,
        _ table: ItemTable,
        _ tokens: TokenCache,
        _ snapshot: KeyRing.Snapshot
    ) throws
        -> Bool
    {
        if let tombstone = tokens.tombstoneToken(table), row.tokens["tomb"] == tombstone { return true }
        guard let keyClass = tokens.keyClass(of: row.tokens["kc"], in: table) else { return true }
        guard let key = snapshot.classKeys[keyClass] else { return false }
        do {
            _ = try ItemCrypto.open(table: table, row: row, classKey: key, withSecret: false)
            return false
        } catch {
            return true
        }
    }

    /// Runs a write transaction, mapping errors once.
    func write<T>(_ body: (StorageWriter) throws -> T) throws(KeychainError) -> T {
        try mappingErrors { try storage.write(body) }
    }
}
