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

    /// Whether SQLite is sound, every readable item authenticated and every row matches the ledger.
    public var isSound: Bool { sqlite == ["ok"] && undecryptable.isEmpty && ledger?.isSound != false }
}

extension KeychainStore {
    /// Checks the database structure, decrypts every item the current lock state allows and compares every
    /// row with the row ledger.
    public func verifyIntegrity() throws(KeychainError) -> IntegrityReport {
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        var report = try itemIntegrity(snapshot, tokens)
        do {
            report.ledger = try ledgerReport()
        } catch {
            guard error.code == .decode else { throw error }
            report.ledger = LedgerReport(enabled: true, generation: 0, rows: 0, mismatched: [], rowsMissing: false)
            report.ledger?.sealDamaged = true
        }
        return report
    }

    private func itemIntegrity(
        _ snapshot: KeyRing.Snapshot,
        _ tokens: TokenCache
    ) throws(KeychainError)
        -> IntegrityReport
    {
        try mappingErrors {
            try storage.read { reader in
                var report = IntegrityReport(
                    sqlite: try reader.integrityCheck(),
                    verified: 0,
                    undecryptable: [],
                    locked: 0,
                    ledger: nil
                )
                for itemClass in ItemClass.storable {
                    guard let table = itemClass.table else { continue }
                    for row in try reader.select(from: table, where: RowFilter(), includeSecret: true) {
                        let reference = Self.persistentReference(itemClass, row.persistref)
                        guard let keyClass = tokens.keyClass(of: row.tokens["kc"], in: table) else {
                            report.undecryptable.append(reference)
                            continue
                        }
                        guard let key = snapshot.classKeys[keyClass] else {
                            report.locked += 1
                            continue
                        }
                        do {
                            _ = try ItemCrypto.open(table: table, row: row, classKey: key, withSecret: true)
                            report.verified += 1
                        } catch {
                            report.undecryptable.append(reference)
                        }
                    }
                }
                return report
            }
        }
    }
}
