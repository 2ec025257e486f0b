import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// What the row ledger says about the file as it is now (`KeychainStore.ledgerReport()`).
public struct LedgerReport: Sendable, Hashable, Codable {
    /// Whether the file keeps a row ledger (format 2; a format 1 file gains one at its first writable unlock).
    public var enabled: Bool
    /// The ledger's generation: how many item writes it has sealed.
    public var generation: UInt64
    /// Rows the ledger covers.
    public var rows: Int
    /// Persistent references of the items that do not match the ledger: restored from an older copy, or
    /// edited, added or moved outside Latchkey (every item of a bucket whose aggregate fails is listed,
    /// since the aggregate cannot tell which of them changed). Empty when the file is as Latchkey left it.
    public var mismatched: [Data]
    /// Whether rows were removed outside Latchkey or a mismatch could not be tied to a present item.
    public var rowsMissing: Bool
    /// Whether the stored ledger itself is missing or fails authentication (then nothing is verified).
    public var sealDamaged = false

    /// Whether every row is the one the ledger holds.
    public var isSound: Bool { mismatched.isEmpty && !rowsMissing && !sealDamaged }
}

extension KeychainStore {
    /// Checks rows read in a read transaction (`write == nil`) or inside a write transaction against the
    /// row ledger; nothing to check in a format 1 file.
    ///
    /// A read treats a row that is not the one the keychain last stored like a damaged row: it is left
    /// out and counted, so a search for it alone fails with `errSecDecode` (-26275) under
    /// `CorruptRowPolicy.report`, and a backup names it. A write refuses to build on it.
    ///
    /// - Returns: The indices of rows that are not the ones the keychain last stored.
    /// - Throws: `decode` for a missing or damaged ledger, or (in a write) a row that does not match.
    func checkLedger(
        _ rows: [ItemRow],
        in table: ItemTable,
        reader: StorageReader,
        _ snapshot: KeyRing.Snapshot,
        _ tokens: TokenCache,
        write: LedgerWrite?
    ) throws -> Set<Int> {
        if let write {
            try write.check(rows, in: table)
            return []
        }
        guard snapshot.ledgerRequired else { return [] }
        let failing = try ledger.check(rows, in: table, reader: reader, tokens.ledger)
        if !failing.isEmpty {
            options.logger.warning(
                "skipped items that do not match the row ledger (restored from an older copy or edited)",
                metadata: ["table": "\(table.rawValue)", "count": "\(failing.count)"]
            )
        }
        return failing
    }

    /// The ledger's part of a write transaction, or `nil` for a format 1 file.
    func beginLedgerWrite(
        _ writer: StorageWriter,
        _ snapshot: KeyRing.Snapshot,
        _ tokens: TokenCache
    )
        throws -> LedgerWrite?
    {
        if !snapshot.ledgerRequired {
            // A format 1 file this process opened may have been upgraded by another process since: from
            // then on every write must keep the ledger, or the rows it writes would look tampered.
            guard try writer.reader.ledgerSeal() != nil else { return nil }
            keys.markLedgerRequired()
        }
        return try ledger.beginWrite(reader: writer.reader, tokens.ledger)
    }

    /// Upgrades a format 1 file to keep a row ledger: seals its rows as they are, rewraps the index key
    /// under the format 2 context and marks the format, in one transaction. Run at a writable unlock; a
    /// failure (a full disk, a read-only file) leaves the file as it was and is only logged.
    func adoptLedgerIfNeeded(master: SymmetricKey) {
        let snapshot = keys.snapshot()
        guard !snapshot.ledgerRequired, !options.readOnly, let index = snapshot.indexKey,
            let tokens = snapshot.tokens
        else { return }
        let fileID = keys.fileID
        let device = keys.device
        do {
            let state = try write { writer -> RowLedger.State? in
                if let wrapped = try writer.reader.meta(KeyHierarchy.indexByMasterName),
                    try KeyRing.unwrapIndex(
                        wrapped,
                        kek: KeyHierarchy.indexKEK(master: master, fileID: fileID),
                        fileID: fileID
                    ).ledger
                {
                    return nil  // another process upgraded it first
                }
                let state = try RowLedger.sealRows(writer, generation: 1, tokens.ledger)
                // Both copies of the index key, rewrapped under the format 2 context.
                func rewrap(_ name: String, under kek: SymmetricKey) throws {
                    let context = KeyHierarchy.indexContext(fileID: fileID)
                    try writer.setMeta(name, KeyWrap.wrap(index, with: kek, context: context))
                }
                try rewrap(KeyHierarchy.indexByMasterName, under: KeyHierarchy.indexKEK(master: master, fileID: fileID))
                if let device, try writer.reader.meta(KeyHierarchy.indexByDeviceName) != nil {
                    try rewrap(
                        KeyHierarchy.indexByDeviceName,
                        under: KeyHierarchy.indexKEK(device: device, fileID: fileID)
                    )
                }
                try writer.markCurrentFormat()
                return state
            }
            if let state { ledger.install(state) }
            keys.markLedgerRequired()
            options.logger.info("keychain upgraded to format 2 (row ledger)", metadata: ["path": "\(path)"])
        } catch {
            options.logger.warning(
                "could not add the row ledger; rollback detection stays off for this file",
                metadata: ["path": "\(path)", "code": "\(error.code.rawValue)"]
            )
        }
    }

    /// Seals the items as the file holds them now, after `ledgerReport()` named rows that do not match:
    /// the user's decision that the current contents are the right ones (for example after restoring a
    /// single item from a backup on purpose). Needs the keychain unlocked. The search-tag index is rebuilt
    /// from the tags sealed in the records first (`rebuildTagRows()`).
    ///
    /// - Throws: `interactionNotAllowed` unless unlocked; storage errors.
    public func acceptCurrentRows() throws(KeychainError) {
        let snapshot = keys.snapshot()
        guard snapshot.master != nil, let tokens = snapshot.tokens else {
            throw KeychainError(.interactionNotAllowed, "Unlock the keychain before accepting its current contents.")
        }
        // The search-tag index is outside the ledger; accepting the items as they are rebuilds it from them.
        try rebuildTagRows()
        guard snapshot.ledgerRequired else { return }
        let state = try write { writer -> RowLedger.State in
            let generation: UInt64
            if let raw = try writer.reader.ledgerSeal(),
                let seal = try? LedgerSeal.decode(raw, tokens.ledger)
            {
                generation = seal.generation + 1
            } else {
                generation = (ledger.knownGeneration() ?? 0) + 1
            }
            let state = try RowLedger.sealRows(writer, generation: generation, tokens.ledger)
            try writer.bumpChangeCounter()
            return state
        }
        ledger.install(state)
        options.logger.notice("row ledger resealed over the current items", metadata: ["path": "\(path)"])
    }

    /// Compares every row with the row ledger, without failing on a mismatch.
    ///
    /// - Throws: `interactionNotAllowed` when the index key is not available (never unlocked and no device
    ///   secret); `decode` when the stored ledger itself is missing or fails authentication.
    public func ledgerReport() throws(KeychainError) -> LedgerReport {
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        guard snapshot.ledgerRequired else {
            return LedgerReport(enabled: false, generation: 0, rows: 0, mismatched: [], rowsMissing: false)
        }
        return try mappingErrors {
            try storage.read { reader in
                let raw = try ledger.storedSeal(reader)
                let state = try RowLedger.fullState(reader, raw: raw, tokens.ledger)
                var mismatched: [Data] = []
                var present = Set<Int>()
                let keys = state.digests.keys.sorted { ($0.table, $0.id) < ($1.table, $1.id) }
                for key in keys where state.suspect.contains(key.bucket) {
                    present.insert(key.bucket)
                    let table = ItemTable.allCases[Int(key.table)]
                    if let persistref = try reader.persistref(of: key.id, in: table),
                        let itemClass = ItemClass.storable.first(where: { $0.table == table })
                    {
                        mismatched.append(Self.persistentReference(itemClass, persistref))
                    }
                }
                return LedgerReport(
                    enabled: true,
                    generation: state.seal.generation,
                    rows: state.digests.count,
                    mismatched: mismatched,
                    rowsMissing: !state.suspect.isSubset(of: present)
                )
            }
        }
    }
}
