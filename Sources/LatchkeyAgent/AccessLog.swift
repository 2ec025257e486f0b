import Crypto
import Foundation
import Latchkey
import Logging
import Synchronization

/// The agent's access log: every secret read, write and delete through the socket or the Secret Service, and
/// every access-group decision, encrypted to a key pair kept in the keychain (docs/agent.md, "The access
/// log").
///
/// Requests build an `AccessLogEntry` from what they already hold (the connection's `Application`, computed
/// once at its hello) and hand it to the one background writer (`AccessLogWriter`); no request waits for the
/// log.
final class AccessLog: Sendable {
    private let writer: AccessLogWriter
    private let hashes: ContentHashes
    private let callers = Mutex<[Int32: AccessLogEntry.Application]>([:])
    private let unlockWatch = Mutex<Task<Void, Never>?>(nil)

    /// Starts the log of `store`'s keychain: the writer thread, and a watch that makes the key pair at the
    /// keychain's first unlock.
    ///
    /// - Parameters:
    ///   - store: The agent's keychain (unscoped: the log's items are read and made in the reserved group).
    ///   - limit: The size past which the current file is rotated.
    ///   - hashes: The agent's content-hash cache.
    ///   - written: Called after the agent made the key pair (a committed write, for the remembered ledger state).
    ///   - logger: The agent's log.
    init(
        store: KeychainStore,
        limit: Int,
        hashes: ContentHashes,
        written: @escaping @Sendable () -> Void,
        logger: Logger
    ) {
        self.hashes = hashes
        let scoped = store.scoped(accessGroups: [AccessLogKeys.accessGroup])
        let keys = AccessLogWriter.Keys(
            load: { AccessLogKeys.publicKey(in: scoped) },
            ensure: {
                if let known = AccessLogKeys.publicKey(in: scoped) { return known }
                guard scoped.lockState == .unlocked else { return nil }
                do throws(KeychainError) {
                    let made = try AccessLogKeys.ensure(in: scoped)
                    written()
                    return made
                } catch {
                    logger.error("access log key not made", metadata: ["code": "\(error.code.rawValue)"])
                    return nil
                }
            }
        )
        writer = AccessLogWriter(
            files: AccessLogFiles(keychainPath: AgentLocation.canonical(store.path)),
            limit: limit,
            keys: keys,
            logger: logger
        )
        let updates = store.lockStateUpdates()
        unlockWatch.withLock {
            $0 = Task.detached { [writer] in
                for await state in updates where state == .unlocked { writer.keychainUnlocked() }
            }
        }
    }

    /// Hands an entry to the writer.
    func record(_ entry: AccessLogEntry) {
        writer.append(AccessLogRecord(entry: entry))
    }

    /// Hands an entry to the writer, with items it names on the writer thread.
    func record(_ record: AccessLogRecord) {
        writer.append(record)
    }

    /// Writes what is queued and stops the writer.
    func stop() {
        unlockWatch.withLock {
            $0?.cancel()
            $0 = nil
        }
        writer.stop()
    }

    /// The application `identity` run by `process`, as the log records it: the SHA-256 of `contentPath` (the
    /// running image, or the script) and its parent chain, read now (once per connection).
    func application(identity: String, contentPath: String, process: Int32) -> AccessLogEntry.Application {
        AccessLogEntry.Application(
            path: identity,
            sha256: hashes.digest(ofFile: contentPath),
            process: process,
            ancestry: AccessLogAncestry.names(of: process)
        )
    }

    /// `application(identity:contentPath:process:)`, remembered by process id for callers without a
    /// connection of their own (Secret Service callers, prompts): read once per caller.
    func knownApplication(identity: String, contentPath: String, process: Int32) -> AccessLogEntry.Application {
        if let known = callers.withLock({ $0[process] }), known.path == identity { return known }
        let made = application(identity: identity, contentPath: contentPath, process: process)
        callers.withLock { callers in
            if callers.count >= 1024 { callers.removeAll() }
            callers[process] = made
        }
        return made
    }
}
