import Crypto
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The access log's one background writer: requests hand it entries (`append(_:)`: a lock, an array append,
/// and a condition signal at most once per batch; no system call, no hashing, no encryption), and its thread
/// seals and appends them in batches (`AccessLogSink`).
///
/// Until the log's public key exists (a keychain never unlocked since it was made) entries wait in memory, at
/// most `pendingLimit` of them (later ones are counted and dropped), and are written once the keychain is
/// unlocked and the key pair made (`keychainUnlocked()`).
final class AccessLogWriter: @unchecked Sendable {
    // SAFETY: every mutable property is read and written only while `condition` is locked; the thread's own
    // state (`AccessLogSink`, the public key) lives on the writer thread alone.

    /// How the writer finds the log's public key.
    struct Keys: Sendable {
        /// Reads the public key (an `Always` item: readable while locked); `nil` when it does not exist.
        var load: @Sendable () -> Curve25519.KeyAgreement.PublicKey?
        /// Reads the public key, or makes the key pair when the keychain is unlocked; `nil` when it cannot.
        var ensure: @Sendable () -> Curve25519.KeyAgreement.PublicKey?
    }

    /// At most this many entries wait for the log's key; more are dropped (and counted in the agent's log).
    static let pendingLimit = 10_000
    /// How long the writer lets a batch gather after the first entry woke it, in seconds.
    static let gathering: TimeInterval = 0.005

    private let condition = NSCondition()
    private var queue: [AccessLogRecord] = []
    private var dropped = 0
    private var sleeping = false
    private var stopping = false
    private var finished = false
    private var retryKeys = false
    private let files: AccessLogFiles
    private let limit: Int
    private let keys: Keys
    private let logger: Logger

    /// Starts the writer thread.
    ///
    /// - Parameters:
    ///   - files: Where the log is written.
    ///   - limit: The size past which the current file is rotated, in bytes.
    ///   - keys: How the public key is found or made.
    ///   - logger: The agent's log (errors writing the access log; never an entry's content).
    init(files: AccessLogFiles, limit: Int, keys: Keys, logger: Logger) {
        self.files = files
        self.limit = limit
        self.keys = keys
        self.logger = logger
        queue.reserveCapacity(64)
        let thread = Thread { [self] in run() }
        thread.name = "latchkey-access-log"
        thread.start()
    }

    /// Hands an entry to the writer (the hot path: no system call unless the writer sleeps).
    func append(_ entry: AccessLogRecord) {
        condition.lock()
        if queue.count >= Self.pendingLimit {
            dropped += 1
        } else {
            queue.append(entry)
        }
        if sleeping {
            sleeping = false
            condition.signal()
        }
        condition.unlock()
    }

    /// Tells the writer that the keychain was unlocked: it makes the key pair if it has none yet.
    func keychainUnlocked() {
        condition.lock()
        retryKeys = true
        condition.signal()
        condition.unlock()
    }

    /// Writes what is queued, closes the file and ends the thread; returns once it is done.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        let sink = AccessLogSink(files: files, limit: limit, logger: logger)
        var publicKey = keys.load()
        while true {
            condition.lock()
            while !stopping && !(publicKey != nil && !queue.isEmpty) && !(publicKey == nil && retryKeys) {
                sleeping = publicKey != nil
                condition.wait()
                sleeping = false
            }
            let stop = stopping
            let retry = retryKeys
            retryKeys = false
            if publicKey != nil && !stop && queue.count < 64 {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Self.gathering))  // let the batch gather
            }
            condition.unlock()
            if publicKey == nil && (retry || stop) {
                publicKey = keys.ensure()
                if publicKey != nil { logger.info("access log ready", metadata: ["file": "\(files.currentPath)"]) }
            }
            if let publicKey {
                condition.lock()
                let batch = queue
                queue.removeAll(keepingCapacity: true)
                let lost = dropped
                dropped = 0
                condition.unlock()
                if lost > 0 {
                    logger.warning(
                        "access log entries dropped while waiting for its key",
                        metadata: ["count": "\(lost)"]
                    )
                }
                if !batch.isEmpty { sink.write(batch.map { $0.resolved() }, to: publicKey) }
            }
            if stop {
                sink.close()
                condition.lock()
                if !queue.isEmpty {
                    logger.warning(
                        "access log entries lost: the keychain was never unlocked",
                        metadata: ["count": "\(queue.count)"]
                    )
                }
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
        }
    }
}
