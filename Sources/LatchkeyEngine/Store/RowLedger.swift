import Foundation
import LatchkeyStorage
import Synchronization

/// Rollback detection: binds every item row to the keychain's current, authenticated state.
///
/// Each row's stored bytes have a keyed digest (`LedgerContext.digest`); the file keeps, under a MAC, the
/// XOR of the digests of the rows of each of 64 buckets and a generation that every item write bumps
/// (`LedgerSeal`, updated in the same transaction as the rows). Before this process trusts a row, it
/// verifies the row's bucket: it reads every row of that bucket (their token columns and wrapped keys, no
/// decryption), checks their aggregate against the seal and keeps each row's digest; from then on every
/// row it reads is compared with its digest. A row restored from an older copy, or edited, removed or
/// added outside Latchkey, is not what the ledger holds: reads treat it as damaged and writes refuse it.
///
/// Verification is lazy, bucket by bucket, so a process that reads one item of a large keychain reads
/// about 1/64 of its rows' cells once. When another process has written (the stored seal is not the one
/// this process knows), buckets are verified again as they are used. A bucket whose aggregate does not
/// match its rows is *suspect*: every row in it is refused until `KeychainStore.acceptCurrentRows()` seals
/// the file's current state. Rolling back the whole file (seal and rows together) is not detected
/// (docs/threat-model.md).
final class RowLedger: Sendable {
    /// What the ledger expects of one row.
    enum Expectation: Equatable {
        /// Its bucket is not verified yet.
        case unknown
        /// This digest (`nil`: no such row may exist; or its bucket is suspect).
        case digest(LedgerDigest?)
    }

    /// A verified view of one stored seal: the buckets verified so far, and their rows' digests.
    struct State: Sendable {
        var raw: Data
        var seal: LedgerSeal
        var verified: Set<Int> = []
        /// Verified buckets whose stored aggregate differs from their rows'.
        var suspect: Set<Int> = []
        var digests: [LedgerKey: LedgerDigest] = [:]

        func expectation(_ key: LedgerKey) -> Expectation {
            guard verified.contains(key.bucket) else { return .unknown }
            return .digest(suspect.contains(key.bucket) ? nil : digests[key])
        }

        /// Adds freshly verified buckets.
        mutating func merge(_ scanned: ScannedBuckets) {
            var added = Set<Int>()
            for (bucket, aggregate) in scanned.aggregates where !verified.contains(bucket) {
                added.insert(bucket)
                verified.insert(bucket)
                if aggregate != seal.buckets[bucket] { suspect.insert(bucket) }
            }
            guard !added.isEmpty else { return }
            for (key, digest) in scanned.digests where added.contains(key.bucket) { digests[key] = digest }
        }

        /// Adds the buckets another view of the same seal verified.
        mutating func merge(_ other: State) {
            var added = Set<Int>()
            for bucket in other.verified where !verified.contains(bucket) {
                added.insert(bucket)
                verified.insert(bucket)
                if other.suspect.contains(bucket) { suspect.insert(bucket) }
            }
            guard !added.isEmpty else { return }
            for (key, digest) in other.digests where added.contains(key.bucket) { digests[key] = digest }
        }

        /// A state with every bucket verified (after computing or accepting the whole file).
        static func complete(raw: Data, seal: LedgerSeal, digests: [LedgerKey: LedgerDigest]) -> State {
            State(raw: raw, seal: seal, verified: Set(0..<LedgerSeal.bucketCount), suspect: [], digests: digests)
        }
    }

    /// The rows and aggregates of some buckets, as one snapshot holds them.
    struct ScannedBuckets: Sendable {
        var digests: [LedgerKey: LedgerDigest] = [:]
        var aggregates: [Int: LedgerDigest] = [:]
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

    /// Checks rows read in one transaction against the ledger, verifying their buckets first when needed.
    ///
    /// - Returns: The indices (in `rows`) of the rows that are not the ones the ledger holds.
    /// - Throws: `decode` when the ledger itself is missing or damaged.
    func check(
        _ rows: [ItemRow],
        in table: ItemTable,
        reader: StorageReader,
        _ context: LedgerContext
    ) throws -> Set<Int> {
        guard !rows.isEmpty else { return [] }
        let raw = try storedSeal(reader)
        let keys = rows.map { LedgerKey(table, $0.id ?? -1) }
        let digests = rows.map { context.digest(of: $0, in: table, columnsInTableOrder: true) }
        let expectations: [Expectation]? = inner.withLock { inner in
            inner.promotePending(to: raw)
            return inner.lookup(raw).map { expectation in keys.map(expectation) }
        }
        var failing = Set<Int>()
        var unknown = Set<Int>()
        if let expectations {
            for index in rows.indices {
                switch expectations[index] {
                case .unknown: unknown.insert(keys[index].bucket)
                case .digest(let expected): if expected != digests[index] { failing.insert(index) }
                }
            }
            if unknown.isEmpty { return failing }
        } else {
            unknown = Set(keys.map(\.bucket))
        }
        // Verify the missing buckets in this snapshot; remember them when the snapshot is this process's
        // current state, or start a new state when it is newer.
        var local = State(raw: raw, seal: try LedgerSeal.decode(raw, context))
        local.merge(try Self.scan(buckets: unknown, reader, context))
        inner.withLock { inner in
            // Compared in place, not bound to a local: a second reference to the state would make the merge
            // copy its whole dictionary of digests (every verified row's) before changing it.
            if inner.current?.raw == raw {
                inner.current?.merge(local)
            } else if inner.current.map({ local.seal.generation > $0.seal.generation }) ?? true {
                inner.current = local
                inner.previous = nil
            }
        }
        for index in rows.indices where unknown.contains(keys[index].bucket) {
            if local.expectation(keys[index]) != .digest(digests[index]) { failing.insert(index) }
        }
        return failing
    }

    /// The stored seal's bytes. Storage errors are thrown as they are (this runs inside a storage
    /// transaction, which maps them with the file's path).
    func storedSeal(_ reader: StorageReader) throws -> Data {
        let raw = try reader.ledgerSeal()
        guard let raw else { throw Self.damagedSeal }
        return raw
    }

    /// The rows of `buckets` and their aggregates as `reader`'s snapshot holds them: one scan per table and
    /// bucket (SQLite skips the other rows by their id), or one scan of everything for many buckets.
    static func scan(
        buckets: Set<Int>,
        _ reader: StorageReader,
        _ context: LedgerContext
    ) throws -> ScannedBuckets {
        var scanned = ScannedBuckets()
        for bucket in buckets { scanned.aggregates[bucket] = LedgerDigest() }
        let everything = buckets.count > 8
        do {
            for (index, table) in ItemTable.allCases.enumerated() {
                func add(_ row: ItemRow) {
                    let key = LedgerKey(table, row.id ?? -1)
                    guard buckets.contains(key.bucket) else { return }
                    let digest = context.digest(of: row, in: table, columnsInTableOrder: true)
                    scanned.digests[key] = digest
                    scanned.aggregates[key.bucket]? ^= digest
                }
                if everything {
                    try reader.scanRows(of: table, add)
                } else {
                    for bucket in buckets {
                        let filter = (LedgerKey.tableOffset(index), Int64(LedgerSeal.bucketCount), Int64(bucket))
                        try reader.scanRows(of: table, bucket: filter, add)
                    }
                }
            }
        }
        return scanned
    }

    /// Seals the rows as the file holds them now under `generation` (a new keychain's upgrade, or the user
    /// accepting the current contents) and returns the fully verified state for that seal.
    static func sealRows(_ writer: StorageWriter, generation: UInt64, _ context: LedgerContext) throws -> State {
        let scanned = try scan(buckets: Set(0..<LedgerSeal.bucketCount), writer.reader, context)
        let buckets = (0..<LedgerSeal.bucketCount).map { scanned.aggregates[$0] ?? LedgerDigest() }
        let seal = LedgerSeal(generation: generation, buckets: buckets)
        let raw = seal.encoded(context)
        try writer.setLedgerSeal(raw)
        return State.complete(raw: raw, seal: seal, digests: scanned.digests)
    }

    /// The whole file verified against `raw` (every bucket), for reports.
    static func fullState(
        _ reader: StorageReader,
        raw: Data,
        _ context: LedgerContext
    ) throws -> State {
        var state = State(raw: raw, seal: try LedgerSeal.decode(raw, context))
        state.merge(try scan(buckets: Set(0..<LedgerSeal.bucketCount), reader, context))
        return state
    }

    // MARK: Writing

    /// Starts the ledger's part of a write transaction: this process's state must be the file's (a new,
    /// unverified state when another process wrote), and a generation that went back is refused.
    func beginWrite(reader: StorageReader, _ context: LedgerContext) throws -> LedgerWrite {
        let raw = try storedSeal(reader)
        let known = inner.withLock { inner in
            // A transaction that committed just before this one began may not have applied its changes yet.
            inner.promotePending(to: raw)
            return inner.current.flatMap { $0.raw == raw ? $0.seal : nil }
        }
        if let known { return LedgerWrite(ledger: self, context: context, reader: reader, raw: raw, seal: known) }
        let seal = try LedgerSeal.decode(raw, context)
        try inner.withLock { (inner: inout Inner) throws(KeychainError) in
            if let current = inner.current, seal.generation < current.seal.generation { throw Self.wentBack }
            inner.current = State(raw: raw, seal: seal)
            inner.previous = nil
        }
        return LedgerWrite(ledger: self, context: context, reader: reader, raw: raw, seal: seal)
    }

    /// What the state for the stored seal `raw` expects of `key` (`unknown` when this process's current
    /// state is another one).
    func expectation(_ key: LedgerKey, raw: Data) -> Expectation {
        inner.withLock { inner in
            guard let current = inner.current, current.raw == raw else { return .unknown }
            return current.expectation(key)
        }
    }

    /// Remembers buckets verified against the stored seal `raw`, when that is still the current state.
    func merge(_ scanned: ScannedBuckets, raw: Data) {
        inner.withLock { inner in
            if inner.current?.raw == raw { inner.current?.merge(scanned) }
        }
    }

    /// Publishes a transaction's changes just before it commits.
    func setPending(_ delta: Delta) {
        inner.withLock { $0.pending = delta }
    }

    /// Applies a committed transaction's changes (unless another transaction already moved this process
    /// past them: states are keyed by their stored seal, so a later one is never overwritten).
    func commit(_ delta: Delta) {
        inner.withLock { inner in
            if inner.pending?.rawAfter == delta.rawAfter { inner.pending = nil }
            inner.apply(delta)
        }
    }

    /// Forgets a transaction that did not commit.
    func abandon(_ delta: Delta) {
        inner.withLock { inner in
            if inner.pending?.rawAfter == delta.rawAfter { inner.pending = nil }
        }
    }

    /// Installs a fully verified state (after sealing the file's rows as they are).
    func install(_ state: State) {
        inner.withLock { inner in
            inner.current = state
            inner.pending = nil
            inner.previous = nil
        }
    }

    /// The generation of the last state this process verified (`nil` before any).
    func knownGeneration() -> UInt64? {
        inner.withLock { $0.current?.seal.generation }
    }
}

extension LedgerKey {
    /// The offset that makes `(id + offset) % 64` this table's bucket (see `bucket`).
    static func tableOffset(_ tableIndex: Int) -> Int64 { Int64(tableIndex) * 16 }
}

extension RowLedger.Inner {
    /// Applies a committed transaction's changes to the current state, when it is the state they follow.
    fileprivate mutating func apply(_ delta: RowLedger.Delta) {
        guard var state = current, state.raw == delta.rawBefore else { return }
        current = nil  // keep the dictionary uniquely referenced while it changes
        for (key, change) in delta.changes { state.digests[key] = change.new }
        state.raw = delta.rawAfter
        state.seal = delta.seal
        current = state
        previous = delta
    }

    /// Applies the pending transaction's changes now when the stored seal `raw` shows that it committed
    /// (the next writer, or a reader, saw it before the committing thread came back to apply them).
    fileprivate mutating func promotePending(to raw: Data) {
        guard let pending, pending.rawAfter == raw, current?.raw == pending.rawBefore else { return }
        self.pending = nil
        apply(pending)
    }

    /// What each row is expected to be in a snapshot whose stored seal is `raw`, when this process knows
    /// that state or is one write away from it (`nil` otherwise).
    fileprivate func lookup(_ raw: Data) -> ((LedgerKey) -> RowLedger.Expectation)? {
        guard let current else { return nil }
        if current.raw == raw { return { current.expectation($0) } }
        if let pending, pending.rawAfter == raw, pending.rawBefore == current.raw {
            return { key in
                if let change = pending.changes[key], current.verified.contains(key.bucket),
                    !current.suspect.contains(key.bucket)
                {
                    return .digest(change.new)
                }
                return current.expectation(key)
            }
        }
        if let previous, previous.rawAfter == current.raw, previous.rawBefore == raw {
            return { key in
                if let change = previous.changes[key], current.verified.contains(key.bucket),
                    !current.suspect.contains(key.bucket)
                {
                    return .digest(change.old)
                }
                return current.expectation(key)
            }
        }
        return nil
    }
}

/// The ledger's part of one write transaction: the digests of the rows it inserts, rewrites and deletes,
/// and the new seal written before the commit.
///
/// Not `Sendable`: it lives inside one `KeychainStore.transaction`, with that transaction's reader.
final class LedgerWrite {
    let ledger: RowLedger
    let context: LedgerContext
    let reader: StorageReader
    /// The stored seal when the transaction began, and its value.
    let raw: Data
    let sealBefore: LedgerSeal
    /// Buckets this transaction verified itself (kept here too, in case this process's shared state moved on).
    private var verified: RowLedger.State
    private var changes: [LedgerKey: (old: LedgerDigest?, new: LedgerDigest?)] = [:]

    init(ledger: RowLedger, context: LedgerContext, reader: StorageReader, raw: Data, seal: LedgerSeal) {
        self.ledger = ledger
        self.context = context
        self.reader = reader
        self.raw = raw
        self.sealBefore = seal
        self.verified = RowLedger.State(raw: raw, seal: seal)
    }

    /// The digest `key`'s row had when the transaction began (its bucket verified first).
    private func before(_ key: LedgerKey) throws -> LedgerDigest? {
        var expectation = ledger.expectation(key, raw: raw)
        if case .unknown = expectation { expectation = verified.expectation(key) }
        if case .unknown = expectation {
            // Inserts are the only changes made without verifying a bucket first, so the scan, which sees
            // this transaction's own writes, is corrected for exactly those.
            let ownInserts = changes.filter { $0.key.bucket == key.bucket && $0.value.old == nil }.map(\.key)
            var scanned = try RowLedger.scan(buckets: [key.bucket], reader, context)
            for own in ownInserts {
                if let digest = scanned.digests.removeValue(forKey: own) { scanned.aggregates[own.bucket]? ^= digest }
            }
            verified.merge(scanned)
            ledger.merge(scanned, raw: raw)
            expectation = verified.expectation(key)
        }
        guard case .digest(let digest) = expectation else { throw RowLedger.mismatch }
        return digest
    }

    /// Checks rows read inside this transaction: each must be the verified one, or this transaction's.
    func check(_ rows: [ItemRow], in table: ItemTable) throws {
        for row in rows {
            let key = LedgerKey(table, row.id ?? -1)
            let expected: LedgerDigest?
            if let change = changes[key] { expected = change.new } else { expected = try before(key) }
            guard let expected, expected == context.digest(of: row, in: table, columnsInTableOrder: true) else {
                throw RowLedger.mismatch
            }
        }
    }

    /// Captures the digest of the row with `id` before it is rewritten or deleted (verifying its bucket
    /// while the transaction still sees the row as it was).
    func willChange(id: Int64, in table: ItemTable) throws {
        let key = LedgerKey(table, id)
        guard changes[key] == nil else { return }
        let old = try before(key)
        changes[key] = (old, old)
    }

    /// Notes a row just rewritten (after `willChange`).
    func wrote(_ row: ItemRow, in table: ItemTable) {
        let key = LedgerKey(table, row.id ?? -1)
        changes[key] = (changes[key]?.old, context.digest(of: row, in: table, columnsInTableOrder: false))
    }

    /// Notes a row just deleted (after `willChange`).
    func deleted(id: Int64, in table: ItemTable) {
        let key = LedgerKey(table, id)
        changes[key] = (changes[key]?.old, nil)
    }

    /// Notes a row just inserted (its id set). Its id is new (`AUTOINCREMENT` never reuses one), so no
    /// older row is XORed out and its bucket needs no verification: a bucket that was already wrong stays so.
    func inserted(_ row: ItemRow, in table: ItemTable) {
        let key = LedgerKey(table, row.id ?? -1)
        changes[key] = (nil, context.digest(of: row, in: table, columnsInTableOrder: false))
    }

    /// Writes the new seal (generation + 1, each changed row's bucket updated) and publishes the changes
    /// for readers of the coming commit; `RowLedger.commit` or `abandon` must follow.
    func seal(_ writer: StorageWriter) throws -> RowLedger.Delta {
        var seal = sealBefore
        seal.generation += 1
        for (key, change) in changes {
            if let old = change.old { seal.buckets[key.bucket] ^= old }
            if let new = change.new { seal.buckets[key.bucket] ^= new }
        }
        let rawAfter = seal.encoded(context)
        try writer.setLedgerSeal(rawAfter)
        let delta = RowLedger.Delta(rawBefore: raw, rawAfter: rawAfter, seal: seal, changes: changes)
        ledger.setPending(delta)
        return delta
    }
}
