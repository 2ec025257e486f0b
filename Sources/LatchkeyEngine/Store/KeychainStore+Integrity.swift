import Foundation
import LatchkeyStorage

/// The outcome of `KeychainStore.verifyIntegrity()`.
public struct IntegrityReport: Sendable, Hashable, Codable {
    /// SQLite's `PRAGMA integrity_check` messages (`["ok"]` when sound).
    public var sqlite: [String]
    /// Items whose attributes and secret decrypted and authenticated.
    public var verified: Int
    /// Persistent references of items that failed authentication.
    public var undecryptable: [Data]
    /// Items skipped because their class is locked in this process.
    public var locked: Int
    /// The row ledger's verdict (rollback detection); `nil` when the index key is not available.
    public var ledger: LedgerReport?
    /// Persistent references of items whose rows in the search-tag index differ from the tags sealed in
    /// their records (rows removed or added outside Latchkey, or the item rewritten by a build without search
    /// tags): searches by tags may miss them until `KeychainStore.acceptCurrentRows()` rebuilds their rows.
    /// `nil` in reports from builds before search tags.
    public var mismatchedTags: [Data]? = nil

    /// Whether SQLite is sound, every readable item authenticated, every row matches the ledger and every
    /// item's search-tag rows match its record.
    public var isSound: Bool {
        sqlite == ["ok"] && undecryptable.isEmpty && ledger?.isSound != false && (mismatchedTags ?? []).isEmpty
    }
}

extension KeychainStore {
    /// Checks the database structure, decrypts every item the current lock state allows and compares every
    /// row with the row ledger.
    ///
    /// A store made by `scoped(accessGroups:)` (what the agent gives a client) reports only its groups'
    /// items: `verified`, `locked`, `undecryptable` and `mismatchedTags` count and name only rows whose
    /// access-group token is one of its groups, and the ledger's `mismatched` and `rows` only those rows, so
    /// that a client learns nothing about how many items other groups hold. SQLite's messages, the ledger's
    /// generation and whether rows are missing or the seal is damaged concern the whole file and stay.
    public func verifyIntegrity() throws(KeychainError) -> IntegrityReport {
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        var (report, visible) = try itemIntegrity(snapshot, tokens)
        do {
            report.ledger = try ledgerReport()
        } catch {
            guard error.code == .decode else { throw error }
            report.ledger = LedgerReport(enabled: true, generation: 0, rows: 0, mismatched: [], rowsMissing: false)
            report.ledger?.sealDamaged = true
        }
        if let visible, report.ledger?.enabled == true {
            report.ledger?.mismatched.removeAll { !visible.contains($0) }
            report.ledger?.rows = visible.count
        }
        return report
    }

    /// The items' part of the report, and for a scoped store the persistent references of every row of its
    /// groups (`nil` for an unscoped store, which reports every row).
    private func itemIntegrity(
        _ snapshot: KeyRing.Snapshot,
        _ tokens: TokenCache
    ) throws(KeychainError)
        -> (IntegrityReport, Set<Data>?)
    {
        let isScoped = isScoped
        let groups = options.accessGroups
        return try mappingErrors {
            try storage.read { reader in
                var report = IntegrityReport(
                    sqlite: try reader.integrityCheck(),
                    verified: 0,
                    undecryptable: [],
                    locked: 0,
                    ledger: nil
                )
                report.mismatchedTags = []
                var visible: Set<Data>? = isScoped ? [] : nil
                for itemClass in ItemClass.storable {
                    guard let table = itemClass.table else { continue }
                    let groupTokens = Set(groups.map { tokens.token(table, .accessGroup, .string($0)) })
                    let tagRows = try reader.tagTokens(in: table)
                    for row in try reader.select(from: table, where: RowFilter(), includeSecret: true) {
                        let reference = Self.persistentReference(itemClass, row.persistref)
                        if isScoped {
                            guard let group = row.tokens["agrp"], groupTokens.contains(group) else { continue }
                            visible?.insert(reference)
                        }
                        guard let keyClass = tokens.keyClass(of: row.tokens["kc"], in: table) else {
                            report.undecryptable.append(reference)
                            continue
                        }
                        guard let key = snapshot.classKeys[keyClass] else {
                            report.locked += 1
                            continue
                        }
                        do {
                            let opened = try ItemCrypto.open(table: table, row: row, classKey: key, withSecret: true)
                            report.verified += 1
                            if opened.tags != row.id.flatMap({ tagRows[$0] }) ?? [] {
                                report.mismatchedTags?.append(reference)
                            }
                        } catch {
                            report.undecryptable.append(reference)
                        }
                    }
                }
                return (report, visible)
            }
        }
    }
}

extension KeychainStore {
    /// Rewrites the search-tag index from the tags sealed in the records of every item this process can
    /// open, and removes index rows that name no item (part of `acceptCurrentRows()`); returns how many items'
    /// rows changed. Items that fail authentication or whose class is locked keep their rows.
    @discardableResult
    func rebuildTagRows() throws(KeychainError) -> Int {
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let changed = try write { writer -> Int in
            var changed = 0
            for itemClass in ItemClass.storable {
                guard let table = itemClass.table else { continue }
                let tagRows = try writer.reader.tagTokens(in: table)
                if try writer.deleteOrphanTags(in: table) > 0 { changed += 1 }
                for row in try writer.reader.select(from: table, where: RowFilter(), includeSecret: false) {
                    guard let id = row.id, let keyClass = tokens.keyClass(of: row.tokens["kc"], in: table),
                        let key = snapshot.classKeys[keyClass]
                    else { continue }
                    let sealed: [Data]
                    do {
                        sealed = try ItemCrypto.open(table: table, row: row, classKey: key, withSecret: false).tags
                    } catch {
                        // A damaged item keeps its rows; `verifyIntegrity()` names it.
                        continue
                    }
                    guard sealed != tagRows[id] ?? [] else { continue }
                    try writer.setTags(sealed, of: id, in: table)
                    changed += 1
                }
            }
            if changed > 0 { try writer.bumpChangeCounter() }
            return changed
        }
        if changed > 0 {
            options.logger.notice("search-tag index rebuilt", metadata: ["items": "\(changed)"])
            commits.notify()
        }
        return changed
    }
}
