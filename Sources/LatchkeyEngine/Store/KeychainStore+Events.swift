import Synchronization

/// A registered observer of a `KeychainStore` (see `observeCommits(_:)` and `observeLockState(_:)`); it is
/// called until `cancel()`.
package final class KeychainStoreObservation: Sendable {
    private let cancellation: Mutex<(@Sendable () -> Void)?>

    init(cancel: @escaping @Sendable () -> Void) {
        cancellation = Mutex(cancel)
    }

    /// Stops calling the observer (idempotent).
    package func cancel() {
        let cancel = cancellation.withLock { slot in
            defer { slot = nil }
            return slot
        }
        cancel?()
    }

    deinit { cancel() }
}

extension KeychainStore {
    /// Calls `observer` after every write this process commits to this file, through this store or any
    /// scoped view of it (the agent publishes its state file from it).
    ///
    /// The observer runs on the committing thread, after the commit: it must only hand the event on.
    package func observeCommits(_ observer: @escaping @Sendable () -> Void) -> KeychainStoreObservation {
        let commits = self.commits
        let id = commits.add(observer)
        return KeychainStoreObservation { commits.remove(id) }
    }

    /// Calls `observer` with the current lock state at once, then on every change in this process.
    ///
    /// The observer runs under the lock-state signal's lock: it must only hand the state on.
    package func observeLockState(_ observer: @escaping @Sendable (LockState) -> Void) -> KeychainStoreObservation {
        let signal = keys.lockStates
        let token = signal.observe(observer)
        return KeychainStoreObservation { signal.removeObserver(token) }
    }
}
