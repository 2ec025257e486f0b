import Foundation
import Latchkey
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the agent remembers, outside the keychain file, of the keychain's last authenticated state: the
/// row ledger's generation and a keyed digest of its seal (`KeychainStore.ledgerState()`), so that a whole
/// file rolled back to an older copy is refused at start and at unlock.
///
/// One small JSON file per keychain, `<directory>/<file id in hex>.ledger-state` (the directory is
/// `$XDG_STATE_HOME/latchkey`, mode 0700, the file 0600), replaced atomically (temporary file, `rename`)
/// after every write the agent commits, before its answer is sent: the agent being killed loses none of
/// them. Those replacements are not flushed (two `fsync` calls would cost more than the write itself); the
/// file is flushed at stop, at `accept` and when first remembered, so after a power loss the remembered
/// state may lag the file by the writes since, which only narrows what is detected (a copy from that window),
/// never refuses a good file. A file whose generation is lower than the remembered one, or equal with another seal, is
/// a rollback: every item operation and every unlock is refused with `errSecDecode` (-26275) naming the
/// keychain, until `latchkey unlock --accept-rollback` unlocks with the keychain's credential and accepts
/// the file as it is.
final class LedgerMemory: Sendable {
    /// The remembered state, as the file on disk holds it.
    struct Record: Codable, Equatable, Sendable {
        var version = 1
        var keychain: String
        var generation: UInt64
        var sealDigest: Data
    }

    private struct Inner: Sendable {
        var remembered: Record?
        /// Whether `remembered` is flushed to disk.
        var durable = false
        var loaded = false
        /// Set once a rollback is seen, until it is accepted.
        var refusal: KeychainError?
    }

    let directory: String
    let keychainPath: String
    private let logger: Logger
    private let inner = Mutex(Inner())

    init(directory: String, keychainPath: String, logger: Logger) {
        self.directory = directory
        self.keychainPath = keychainPath
        self.logger = logger
    }

    /// The default directory: `$XDG_STATE_HOME/latchkey`, else `~/.local/state/latchkey`.
    static func defaultDirectory(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/latchkey" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/state/latchkey"
    }

    /// The state file of the keychain with file identifier `fileID`.
    func path(fileID: Data) -> String {
        directory + "/" + fileID.lowercaseHex + ".ledger-state"
    }

    /// The error every refused request gets while a rollback is not accepted, or `nil`.
    var refusal: KeychainError? { inner.withLock { $0.refusal } }

    /// Compares the file with the remembered state (at start and before an unlock is answered).
    ///
    /// Nothing is compared when the index key is not available yet (never unlocked and no device secret
    /// that opens it: the next unlock compares), for a format 1 file, or when the stored ledger itself is
    /// damaged (every item fails on its own then). The first state seen is remembered.
    ///
    /// - Throws: The rollback error (which is also kept as `refusal`).
    func check(_ store: KeychainStore) throws(KeychainError) {
        // The file is read under the lock, as `record` reads it: read outside, a state older than one that
        // another thread wrote and recorded meanwhile (the access log's keys, right after an unlock) would look
        // like a rollback.
        try inner.withLock { (inner: inout Inner) throws(KeychainError) in
            guard let current = readState(store) else { return }
            if let refusal = inner.refusal { throw refusal }
            let remembered = load(&inner, fileID: current.fileID)
            if let remembered, isRollback(current, from: remembered) {
                let error = rollbackError(current, remembered)
                inner.refusal = error
                logger.error(
                    "keychain file rolled back: refused until accepted",
                    metadata: [
                        "keychain": "\(keychainPath)", "generation": "\(current.generation)",
                        "remembered": "\(remembered.generation)",
                    ]
                )
                throw error
            }
            save(&inner, current, durable: true)
        }
    }

    /// The file's ledger state; `nil` (nothing to compare) when it cannot be read: locked for the index key
    /// (said by nothing), a format 1 file, or a damaged stored ledger (logged). Called under `inner`'s lock.
    private func readState(_ store: KeychainStore) -> KeychainLedgerState? {
        do throws(KeychainError) {
            return try store.ledgerState()
        } catch {
            if error.code != .interactionNotAllowed {
                logger.warning("the row ledger cannot be read", metadata: ["code": "\(error.code.rawValue)"])
            }
            return nil
        }
    }

    /// Remembers the file's state after a committed write, a lock or at stop (never while a rollback is
    /// refused, and never a generation lower than the remembered one).
    ///
    /// - Parameter durable: Flush the state file (at stop); after a write the replacement is only atomic.
    func record(_ store: KeychainStore, durable: Bool = false) {
        inner.withLock { inner in
            guard inner.refusal == nil else { return }
            guard let current = readState(store) else { return }
            let remembered = load(&inner, fileID: current.fileID)
            if let remembered, isRollback(current, from: remembered) {
                inner.refusal = rollbackError(current, remembered)
                logger.error("keychain file went back while the agent ran", metadata: ["keychain": "\(keychainPath)"])
                return
            }
            save(&inner, current, durable: durable)
        }
    }

    /// Accepts the file as it is now (after an unlock with the keychain's credential): remembers its state
    /// and serves it again.
    ///
    /// - Throws: Errors of reading the ledger (`interactionNotAllowed` when still locked, `decode`) or of
    ///   writing the state file.
    func accept(_ store: KeychainStore) throws(KeychainError) {
        let current = try store.ledgerState()
        try inner.withLock { (inner: inout Inner) throws(KeychainError) in
            if let current {
                inner.loaded = true
                let record = Record(
                    keychain: keychainPath,
                    generation: current.generation,
                    sealDigest: current.sealDigest
                )
                try write(record, fileID: current.fileID, durable: true)
                inner.remembered = record
                inner.durable = true
            }
            if inner.refusal != nil {
                logger.notice(
                    "rolled-back keychain accepted",
                    metadata: ["keychain": "\(keychainPath)", "generation": "\(current?.generation ?? 0)"]
                )
            }
            inner.refusal = nil
        }
    }

    private func isRollback(_ current: KeychainLedgerState, from remembered: Record) -> Bool {
        current.generation < remembered.generation
            || (current.generation == remembered.generation && current.sealDigest != remembered.sealDigest)
    }

    private func rollbackError(_ current: KeychainLedgerState, _ remembered: Record) -> KeychainError {
        KeychainError(
            .decode,
            "The keychain \(keychainPath) is older than the last state this agent saw (ledger generation "
                + "\(current.generation), remembered \(remembered.generation)"
                + (current.generation == remembered.generation ? ", another history" : "")
                + "): the whole file was rolled back to an older copy (a restore, a snapshot, or someone "
                + "replaced it). If that was on purpose, accept it with `latchkey unlock --accept-rollback`."
        )
    }

    private func load(_ inner: inout Inner, fileID: Data) -> Record? {
        if inner.loaded { return inner.remembered }
        inner.loaded = true
        let path = path(fileID: fileID)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            inner.remembered = try JSONDecoder().decode(Record.self, from: data)
            inner.durable = true
        } catch {
            logger.error("the remembered keychain state is unreadable; it is replaced", metadata: ["path": "\(path)"])
        }
        return inner.remembered
    }

    private func save(_ inner: inout Inner, _ current: KeychainLedgerState, durable: Bool) {
        let record = Record(keychain: keychainPath, generation: current.generation, sealDigest: current.sealDigest)
        // The first state remembered is flushed at once; later ones after writes only at stop.
        let flush = durable || inner.remembered == nil
        guard record != inner.remembered || (flush && !inner.durable) else { return }
        do {
            try write(record, fileID: current.fileID, durable: flush)
            inner.remembered = record
            inner.durable = flush
        } catch {
            logger.error(
                "cannot remember the keychain's state: a rollback to before it would not be detected",
                metadata: ["error": "\(error.message)"]
            )
        }
    }

    private func write(_ record: Record, fileID: Data, durable: Bool) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(record) + Data("\n".utf8)
        } catch {
            throw KeychainError(.param, "The keychain state cannot be encoded.")
        }
        try PrivateFile.write(data, to: path(fileID: fileID), holding: "the keychain state", durable: durable)
    }
}
