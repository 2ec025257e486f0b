import Synchronization

/// The observers a `KeychainStore` tells after each write it commits: how change observation above the engine
/// (the typed API's `changes(forKey:)`, the agent's state file) hears of this process's writes at once.
///
/// A store and its scoped views share one list. The engine calls `notify()` after the commit, on the committing
/// thread, so an observer must only hand the event on. Writes of other processes, and of other stores opened on
/// the same file, reach observers through the file's watcher instead (`FileChangeWatcher`, one layer up).
package final class CommitObservers: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var observers: [UInt64: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// An empty list.
    package init() {}

    /// Adds `observer`; the returned id removes it (`remove(_:)`).
    package func add(_ observer: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            return id
        }
    }

    /// Removes the observer `id` (idempotent).
    package func remove(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Calls every observer (after a commit).
    package func notify() {
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer() }
    }
}
