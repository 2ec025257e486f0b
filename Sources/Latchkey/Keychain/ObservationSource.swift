/// Something that wakes observers until it is stopped: a `FileChangeWatcher`, or a listener of an
/// `AgentWatch`.
protocol WakeSource: Sendable {
    /// Stops waking (idempotent).
    func stop()
}

extension FileChangeWatcher: WakeSource {}

/// The wake-ups of a store in process: its own commits at once, and its file's watcher for the rest.
private struct StoreWakeSource: WakeSource {
    let commits: KeychainStoreObservation
    let watcher: FileChangeWatcher

    func stop() {
        commits.cancel()
        watcher.stop()
    }
}

/// What change and lock observers of one keychain look at: the service they read through, the lock-state
/// signal that tells them when their items become readable, and what wakes them when something changed.
///
/// In process this is the store itself, its lock state and a watcher of its file. Through the per-user
/// agent it is the agent's client, the agent's lock state as an `AgentWatch` keeps it, and that watch's
/// wake-ups (the agent's state file, replaced on every lock change and committed write, and the keychain
/// file, which other processes may write without the agent).
struct ObservationSource: Sendable {
    /// Where items are read.
    let service: any KeychainService
    /// What the change monitor is registered under: the file path in process, the agent's key otherwise.
    let key: String
    /// The lock state observers follow.
    let lockStates: LockStateSignal
    /// Whether the source is the per-user agent (an unreachable agent is then waited for, not an error).
    let isAgent: Bool
    /// Starts waking `onChange` when something may have changed.
    let startWaking: @Sendable (_ onChange: @escaping @Sendable () -> Void) -> any WakeSource

    /// The in-process source of `store`.
    static func store(_ store: KeychainStore) -> ObservationSource {
        ObservationSource(
            service: store,
            key: store.path,
            lockStates: store.keys.lockStates,
            isAgent: false,
            startWaking: { onChange in
                StoreWakeSource(
                    commits: store.observeCommits(onChange),
                    watcher: FileChangeWatcher(path: store.path, onChange: onChange)
                )
            }
        )
    }

    /// The source of `service`: its store in process, else the agent `service` is a client of.
    ///
    /// - Throws: `notAvailable` for a service that is neither a `KeychainStore` nor an `AgentClient`, or
    ///   when the agent does not answer.
    static func of(_ service: any KeychainService) throws(KeychainError) -> ObservationSource {
        if let store = service as? KeychainStore { return .store(store) }
        guard let agent = service as? AgentClient else {
            throw KeychainError(
                .notAvailable,
                "Observation and readiness need a keychain opened in process or the per-user agent's client."
            )
        }
        let watch = try AgentWatch.shared(for: agent)
        return ObservationSource(
            service: agent,
            key: watch.key,
            lockStates: watch.lockStates,
            isAgent: true,
            startWaking: { onChange in watch.addListener(onChange) }
        )
    }

    /// The lock state now, then every change, until the consumer stops iterating (the agent's watch keeps
    /// running meanwhile).
    func lockStateUpdates() -> AsyncStream<LockState> {
        guard isAgent else { return lockStates.updates() }
        let (stream, continuation) = AsyncStream.makeStream(of: LockState.self, bufferingPolicy: .bufferingNewest(8))
        let waking = startWaking {}
        let token = lockStates.observe { continuation.yield($0) }
        continuation.onTermination = { [lockStates] _ in
            lockStates.removeObserver(token)
            waking.stop()
        }
        return stream
    }

    /// The change counter every committed item change bumps.
    func changeCounter() throws(KeychainError) -> Int64 {
        if let store = service as? KeychainStore { return try store.changeCounter() }
        guard case .changeCounter(let counter) = try service.perform(.changeCounter).storage else {
            throw KeychainOutcome.mismatch("a change counter")
        }
        return counter
    }
}
