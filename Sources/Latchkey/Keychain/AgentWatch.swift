import Foundation
import Synchronization

/// The per-user agent's lock state in this process, kept current from the agent's events, and the
/// wake-ups of this process's observers of the agent's keychain.
///
/// One watch per agent (socket and keychain) exists while something listens. Its `FileChangeWatcher`
/// watches the agent's state file (`AgentStateFile`, replaced by the agent on every lock change and every
/// write it commits) and the keychain file itself (written by processes that do not use the agent). On
/// each event the watch asks the agent for its lock state (one `.lockState` request; the file's content
/// is never trusted), publishes it to `lockStates`, and wakes its listeners, which re-read through the
/// agent. No polling: the watcher's slow safety tick only covers file systems without inotify.
final class AgentWatch: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var listeners: [UInt64: @Sendable () -> Void] = [:]
        var watcher: FileChangeWatcher?
    }

    /// The watches by key, while they have listeners.
    private static let registry = Mutex<[String: AgentWatch]>([:])

    /// The agent's lock state as last seen (`.neverUnlocked` while the agent does not answer: a restarted
    /// agent starts so).
    let lockStates: LockStateSignal
    /// The key of the agent's change monitor: its socket and keychain.
    let key: String
    private let client: AgentClient
    private let state = Mutex(State())

    private init(client: AgentClient, key: String, initial: LockState) {
        self.client = client
        self.key = key
        self.lockStates = LockStateSignal(initial)
    }

    /// The key of the agent `client` talks to.
    static func key(of client: AgentClient) -> String {
        "agent:" + client.socketPath + "|" + client.welcome.keychain
    }

    /// The watch of the agent `client` talks to, made (asking the agent's lock state once) when none exists.
    ///
    /// - Throws: `notAvailable` when the agent does not answer the first lock-state request.
    static func shared(for client: AgentClient) throws(KeychainError) -> AgentWatch {
        let key = key(of: client)
        if let watch = registry.withLock({ $0[key] }) { return watch }
        let initial = try lockState(of: client)
        return registry.withLock { registry in
            if let watch = registry[key] { return watch }
            let watch = AgentWatch(client: client, key: key, initial: initial)
            registry[key] = watch
            return watch
        }
    }

    /// Registers `onChange`, called after every event once the lock state is refreshed; the first listener
    /// starts the watcher, the last one to stop removes the watch.
    func addListener(_ onChange: @escaping @Sendable () -> Void) -> any WakeSource {
        let (id, start) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.listeners[id] = onChange
            return (id, state.watcher == nil)
        }
        if start {
            let watcher = FileChangeWatcher(
                keychain: client.welcome.keychain,
                others: [AgentStateFile.path(forSocket: client.socketPath)]
            ) { [weak self] in self?.refresh() }
            let surplus = state.withLock { state -> FileChangeWatcher? in
                guard state.watcher == nil else { return watcher }
                state.watcher = watcher
                return nil
            }
            surplus?.stop()
            // A lock change between the first lock-state request and the watcher's start is not lost. Listeners
            // are not called here: the caller may hold its own lock, and a new listener reads for itself.
            refreshLockState()
        }
        return Listener(watch: self, id: id)
    }

    /// Asks the agent's lock state, publishes it and wakes the listeners.
    private func refresh() {
        refreshLockState()
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener() }
    }

    /// Asks the agent's lock state and publishes it (`.neverUnlocked` while the agent does not answer).
    private func refreshLockState() {
        let current: LockState
        do {
            current = try Self.lockState(of: client)
        } catch {
            current = .neverUnlocked
        }
        lockStates.publish(current)
    }

    private func removeListener(_ id: UInt64) {
        let watcher: FileChangeWatcher? = Self.registry.withLock { registry in
            state.withLock { state in
                guard state.listeners.removeValue(forKey: id) != nil, state.listeners.isEmpty else { return nil }
                if registry[key] === self { registry[key] = nil }
                defer { state.watcher = nil }
                return state.watcher
            }
        }
        watcher?.stop()
    }

    private static func lockState(of client: AgentClient) throws(KeychainError) -> LockState {
        guard case .lockState(let state) = try client.perform(.lockState).storage else {
            throw KeychainOutcome.mismatch("a lock state")
        }
        return state
    }

    /// One registration of `addListener(_:)`.
    private final class Listener: WakeSource {
        private let watch: AgentWatch
        private let id: UInt64
        private let stopped = Atomic<Bool>(false)

        init(watch: AgentWatch, id: UInt64) {
            self.watch = watch
            self.id = id
        }

        func stop() {
            guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
            watch.removeListener(id)
        }
    }
}
