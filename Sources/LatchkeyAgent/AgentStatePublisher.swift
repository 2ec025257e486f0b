import Dispatch
import Foundation
import Latchkey
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Keeps the agent's state file (`AgentStateFile`, beside the socket) current: rewritten after every lock
/// change and every committed write, so that clients' change and lock observers wake through inotify.
///
/// Events are coalesced on one serial queue: a burst of writes costs one or two rewrites, each of which
/// reads the lock state and change counter as they are when it runs, so the last rewrite always shows
/// the last state.
final class AgentStatePublisher: Sendable {
    private let store: KeychainStore
    private let socketPath: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "latchkey-agent-state")
    /// Whether a rewrite is queued and has not read the state yet.
    private let pending = Atomic<Bool>(false)
    private let observations = Mutex<[KeychainStoreObservation]>([])
    private let stopped = Atomic<Bool>(false)

    init(store: KeychainStore, socketPath: String, logger: Logger) {
        self.store = store
        self.socketPath = socketPath
        self.logger = logger
    }

    /// Writes the state now and after every later lock change and committed write.
    func start() {
        let commits = store.observeCommits { [weak self] in self?.schedule() }
        let lockStates = store.observeLockState { [weak self] _ in self?.schedule() }
        observations.withLock { $0 = [commits, lockStates] }
        schedule()
    }

    /// Stops publishing and removes the file (a stopped agent has no state).
    func stop() {
        let stopped = observations.withLock { slot in
            defer { slot = [] }
            return slot
        }
        for observation in stopped { observation.cancel() }
        self.stopped.store(true, ordering: .releasing)
        queue.sync {}
        AgentStateFile.remove(socketPath: socketPath)
    }

    private func schedule() {
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            pending.store(false, ordering: .releasing)
            publish()
        }
    }

    private func publish() {
        guard !stopped.load(ordering: .acquiring) else { return }
        let counter: Int64?
        do {
            counter = try store.changeCounter()
        } catch {
            counter = nil
        }
        do {
            try AgentStateFile.write(
                lockState: store.lockState,
                changeCounter: counter,
                agentProcess: getpid(),
                socketPath: socketPath
            )
        } catch {
            logger.warning("agent state file not written", metadata: ["error": "\(error.message)"])
        }
    }
}
