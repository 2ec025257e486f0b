import Foundation
import LatchkeyStorage
import Synchronization

/// Rollback detection: binds every item row to the keychain's current, authenticated state.
///
/// Each row's stored bytes have a keyed digest (`LedgerContext.digest`); the file keeps, under a MAC, the
/// XOR of the digests of the rows of each of 64 buckets and a generation that every item write bumps
/// (`LedgerSeal`, updated in the same transaction as the rows). This process verifies the whole file
/// against the seal once (a scan of every row's token columns and wrapped key, no decryption), keeps each
/// row's digest, and then checks every row it reads against that digest: a row restored from an older
/// copy, or edited, removed or added outside Latchkey, is refused with `errSecDecode` (-26275).
///
/// When another process has written (the stored seal is not the one this process knows), the next
/// access scans again; a bucket whose aggregate does not match its rows is *suspect*, and every row in it
/// is refused until `KeychainStore.acceptCurrentRows()` seals the file's current state. Rolling back the
/// whole file (seal and rows together) is not detected (docs/threat-model.md).
final class RowLedger: Sendable {
    /// The verified state: the seal it matches and the digest of every row.
    struct State: Sendable {
        var raw: Data
        var seal: LedgerSeal
        var digests: [LedgerKey: LedgerDigest]
        /// Buckets whose stored aggregate differs from their rows'.
        var suspect: Set<Int>

        func expected(_ key: LedgerKey) -> LedgerDigest? {
            suspect.contains(key.bucket) ? nil : digests[key]
        }
    }

    /// The changes of one write transaction: each row's digest before and after (`nil`: no row).
    struct Delta: Sendable {
        var rawBefore: Data
        var rawAfter: Data
        var seal: LedgerSeal
        var changes: [LedgerKey: (old: LedgerDigest?, new: LedgerDigest?)]
    }

    fileprivate struct Inner: Sendable {
        var current: State?
        /// A write transaction's changes from its last statement until this process applies them after
        /// the commit: a reader whose snapshot already shows the commit uses them.
        var pending: Delta?
        /// The last applied changes, for a reader whose snapshot is one write older than `current`.
        var previous: Delta?
    }

    private let inner = Mutex(Inner())

    static var damagedSeal: KeychainError {
        KeychainError(
            .decode,
            "The keychain's row ledger is missing or fails authentication: the file was edited outside Latchkey. "
                + "Run `latchkey verify-keychain`; `latchkey verify-keychain --accept-current-state` accepts "
                + "the items as they are now."
        )
    }

    static var mismatch: KeychainError {
        KeychainError(
            .decode,
            "An item is not the one this keychain last stored: it was restored from an older copy, or edited, "
                + "added or removed outside Latchkey (row ledger mismatch). Run `latchkey verify-keychain`."
        )
    }

    static var wentBack: KeychainError {
        KeychainError(
            .decode,
            "The keychain file went back to an older state while it was open (its ledger generation decreased)."
        )
    }

    // MARK: Reading

    /// Checks rows read in one transaction against the ledger.
    ///
    /// - Returns: The indices (in `rows`) of the rows that are not the ones the ledger holds.
    /// - Throws: `decode` when the ledger itself is missing or damaged.
    func check(
        _ rows: [ItemRow],
        in table: ItemTable,
        reader: StorageReader,
        _ context: LedgerContext
    ) throws(KeychainError) -> Set<Int> {
        guard !rows.isEmpty else { return [] }
        let raw = try storedSeal(reader)
        let keys = rows.map { LedgerKey(table, $0.id ?? -1) }
        let digests = rows.map { context.digest(of: $0, in: table, columnsInTableOrder: true) }
        func failing(_ expected: (LedgerKey) -> LedgerDigest?) -> Set<Int> {
            var failing = Set<Int>()
            for index in rows.indices where expected(keys[index]) != digests[index] { failing.insert(index) }
            return failing
        }
        let known: Set<Int>? = inner.withLock { inner in inner.lookup(raw).map(failing) }
        if let known { return known }
        let state = try Self.scan(reader, raw: raw, context)
        inner.withLock { inner in
            if inner.current.map({ state.seal.generation > $0.seal.generation }) ?? true {
                inner.current = state
                inner.previous = nil
            }
        }
        return failing { state.expected($0) }
    }

    func storedSeal(_ reader: StorageReader) throws(KeychainError) -> Data {
        let raw = try mappingErrors { try reader.meta(LedgerSeal.metaName) }
        guard let raw else { throw Self.damagedSeal }
        return raw
    }

    /// The digest of every row and the suspect buckets, for the stored seal `raw`.
    static func scan(_ reader: StorageReader, raw: Data, _ context: LedgerContext) throws(KeychainError) -> State {
        let seal = try LedgerSeal.decode(raw, context)
        let (digests, buckets) = try computed(reader, context)
        var suspect = Set<Int>()
        for index in 0..<LedgerSeal.bucketCount where buckets[index] != seal.buckets[index] { suspect.insert(index) }
        return State(raw: raw, seal: seal, digests: digests, suspect: suspect)
    }

    /// Every row's digest and each bucket's aggregate, as the file holds them now.
    static func computed(
        _ reader: StorageReader,
        _ context: LedgerContext
    ) throws(KeychainError) -> (digests: [LedgerKey: LedgerDigest], buckets: [LedgerDigest]) {
        var digests: [LedgerKey: LedgerDigest] = [:]
        var buckets = Array(repeating: LedgerDigest(), count: LedgerSeal.bucketCount)
        try mappingErrors {
            for table in ItemTable.allCases {
                try reader.scanRows(of: table) { row in
                    let key = LedgerKey(table, row.id ?? -1)
                    let digest = context.digest(of: row, in: table, columnsInTableOrder: true)
                    digests[key] = digest
                    buckets[key.bucket] ^= digest
                }
            }
        }
        return (digests, buckets)
    }

    // MARK: Writing

    /// Starts the ledger's part of a write transaction: makes sure this process's state is the file's
    /// (scanning when another process wrote), refusing a file whose generation went back.
    func beginWrite(reader: StorageReader, _ context: LedgerContext) throws(KeychainError) -> LedgerWrite {
        let raw = try storedSeal(reader)
        let known = inner.withLock { inner in inner.current.flatMap { $0.raw == raw ? $0 : nil } }
        if let known { return LedgerWrite(ledger: self, context: context, before: known) }
        let state = try Self.scan(reader, raw: raw, context)
        try inner.withLock { (inner: inout Inner) throws(KeychainError) in
            if let current = inner.current, state.seal.generation < current.seal.generation { throw Self.wentBack }
            inner.current = state
            inner.previous = nil
        }
        return LedgerWrite(ledger: self, context: context, before: state)
    }

    /// The digest this process holds for `key` (the row as the last verified state has it).
    func digest(_ key: LedgerKey) -> LedgerDigest? {
        inner.withLock { $0.current?.digests[key] }
    }

    /// Whether `key`'s bucket is suspect in the current state.
    func isSuspect(_ key: LedgerKey) -> Bool {
        inner.withLock { $0.current?.suspect.contains(key.bucket) ?? false }
    }

    /// Publishes a transaction's changes just before it commits.
    func setPending(_ delta: Delta) {
        inner.withLock { $0.pending = delta }
    }

    /// Applies a committed transaction's changes.
    func commit(_ delta: Delta) {
        inner.withLock { inner in
            inner.pending = nil
            guard var state = inner.current, state.raw == delta.rawBefore else {
                inner.current = nil
                return
            }
            for (key, change) in delta.changes { state.digests[key] = change.new }
            state.raw = delta.rawAfter
            state.seal = delta.seal
            inner.current = state
            inner.previous = delta
        }
    }

    /// Forgets a transaction that did not commit.
    func abandon() {
        inner.withLock { $0.pending = nil }
    }

    /// Installs a freshly computed state (after sealing the file's rows as they are).
    func install(_ state: State) {
        inner.withLock { inner in
            inner.current = state
            inner.pending = nil
            inner.previous = nil
        }
    }

    /// What this process knows about the file's rows: the digests, suspect buckets and generation of the
    /// last verified state (`nil` before the first verification).
    func knownState() -> State? {
        inner.withLock { $0.current }
    }
}

extension RowLedger.Inner {
    /// The expected digest of each row for a snapshot whose stored seal is `raw`, when this process knows
    /// that state (`nil` otherwise); a row of a suspect bucket has no expected digest.
    fileprivate func lookup(_ raw: Data) -> ((LedgerKey) -> LedgerDigest?)? {
        guard let current else { return nil }
        if current.raw == raw { return { current.expected($0) } }
        if let pending, pending.rawAfter == raw, pending.rawBefore == current.raw {
            return { key in
                if current.suspect.contains(key.bucket) { return nil }
                if let change = pending.changes[key] { return change.new }
                return current.digests[key]
            }
        }
        if let previous, previous.rawAfter == current.raw, previous.rawBefore == raw {
            return { key in
                if current.suspect.contains(key.bucket) { return nil }
                if let change = previous.changes[key] { return change.old }
                return current.digests[key]
            }
        }
        return nil
    }
}

/// The ledger's part of one write transaction: the digests of the rows it inserts, rewrites and deletes,
/// and the new seal written before the commit.
///
/// Not `Sendable`: it lives inside one `KeychainStore.transaction`.
final class LedgerWrite {
    let ledger: RowLedger
    let context: LedgerContext
    let before: RowLedger.State
    private var changes: [LedgerKey: (old: LedgerDigest?, new: LedgerDigest?)] = [:]

    init(ledger: RowLedger, context: LedgerContext, before: RowLedger.State) {
        self.ledger = ledger
        self.context = context
        self.before = before
    }

    /// The digest `key`'s row has now inside this transaction (`nil`: no such row).
    private func present(_ key: LedgerKey) -> LedgerDigest? {
        if let change = changes[key] { return change.new }
        return before.digests[key]
    }

    /// Checks rows read inside this transaction (they must be the verified ones or this transaction's).
    func check(_ rows: [ItemRow], in table: ItemTable) throws(KeychainError) {
        for row in rows {
            let key = LedgerKey(table, row.id ?? -1)
            guard !before.suspect.contains(key.bucket),
                let expected = present(key),
                expected == context.digest(of: row, in: table, columnsInTableOrder: true)
            else { throw RowLedger.mismatch }
        }
    }

    private func record(_ key: LedgerKey, new: LedgerDigest?) {
        let old = changes[key]?.old ?? before.digests[key]
        changes[key] = (old, new)
    }

    /// Notes a row just inserted (its id set) or rewritten.
    func wrote(_ row: ItemRow, in table: ItemTable) {
        let key = LedgerKey(table, row.id ?? -1)
        record(key, new: context.digest(of: row, in: table, columnsInTableOrder: false))
    }

    /// Notes a row just deleted.
    func deleted(id: Int64, in table: ItemTable) {
        record(LedgerKey(table, id), new: nil)
    }

    /// Writes the new seal (generation + 1, each changed row's bucket updated) and publishes the changes
    /// for readers of the coming commit; `commit()` or `abandon()` must follow.
    func seal(_ writer: StorageWriter) throws(KeychainError) -> RowLedger.Delta {
        var seal = before.seal
        seal.generation += 1
        for (key, change) in changes {
            if let old = change.old { seal.buckets[key.bucket] ^= old }
            if let new = change.new { seal.buckets[key.bucket] ^= new }
        }
        let raw = seal.encoded(context)
        try mappingErrors { try writer.setMeta(LedgerSeal.metaName, raw) }
        let delta = RowLedger.Delta(rawBefore: before.raw, rawAfter: raw, seal: seal, changes: changes)
        ledger.setPending(delta)
        return delta
    }
}
