import Synchronization

/// Broadcasts one keychain's lock state in this process to observers, as it changes.
///
/// `KeyRing` publishes every transition while holding its own lock, so observers see transitions in
/// the order they happened. Observers are callbacks (cheap, synchronous, never blocking) or an
/// `AsyncStream` built on them. This is the one readiness signal: whatever unlocks the key ring (a
/// passphrase, a key file, later a per-user agent handing the keys over) reaches every waiter.
package final class LockStateSignal: Sendable {
    /// Identifies a registered observer.
    package struct Token: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct State {
        var current: LockState
        var nextID: UInt64 = 0
        var observers: [UInt64: @Sendable (LockState) -> Void] = [:]
        /// Callers of `waitForObservers(atLeast:)` still waiting, with the count each waits for.
        var observerWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    package init(_ initial: LockState) {
        state = Mutex(State(current: initial))
    }

    /// The last published state.
    package var current: LockState { state.withLock { $0.current } }

    /// Records `newState` and tells every observer when it differs from the current one.
    ///
    /// Observers run synchronously, under this signal's lock: they must only hand the state on
    /// (yield to a stream, schedule work), never call back into the signal.
    package func publish(_ newState: LockState) {
        state.withLock { state in
            guard state.current != newState else { return }
            state.current = newState
            for observer in state.observers.values { observer(newState) }
        }
    }

    /// Registers `observer`, calls it at once with the current state, and then on every change.
    package func observe(_ observer: @escaping @Sendable (LockState) -> Void) -> Token {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.observers[id] = observer
            observer(state.current)
            let registered = state.observers.count
            state.observerWaiters.removeAll { waiter in
                guard waiter.count <= registered else { return false }
                waiter.continuation.resume()
                return true
            }
            return Token(id: id)
        }
    }

    /// How many observers are registered now.
    var observerCount: Int { state.withLock { $0.observers.count } }

    /// Returns once at least `count` observers are registered (at once if they already are).
    ///
    /// An event hook for tests: whoever waits for the keychain to become readable
    /// (`Keychain.waitUntilAvailable()`, a `lockStateUpdates()` consumer, a change subscription) is
    /// waiting from the moment its observer is registered, since every later transition reaches it.
    /// A test that must unlock only while its waiters really wait awaits this instead of sleeping:
    ///
    /// ```swift
    /// let waiter = Task { try await keychain.waitUntilAvailable() }
    /// await store.keys.lockStates.waitForObservers(atLeast: 1)
    /// try store.unlock(with: credential)   // the waiter is resumed by this unlock, not before it
    /// ```
    ///
    /// Not cancellable: it waits as long as the count is not reached (tests bound it with a time limit).
    func waitForObservers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                if state.observers.count >= count {
                    continuation.resume()
                } else {
                    state.observerWaiters.append((count, continuation))
                }
            }
        }
    }

    /// Stops calling an observer.
    package func removeObserver(_ token: Token) {
        _ = state.withLock { $0.observers.removeValue(forKey: token.id) }
    }

    /// The current state, then every change, until the consumer stops iterating.
    package func updates() -> AsyncStream<LockState> {
        let (stream, continuation) = AsyncStream.makeStream(of: LockState.self, bufferingPolicy: .bufferingNewest(8))
        let token = observe { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(token) }
        return stream
    }
}

extension LockState {
    /// Whether items of `accessibility` can be opened in this state (ignoring device-secret binding).
    package func permits(_ accessibility: Accessibility) -> Bool {
        switch accessibility.requirement {
        case .unlocked: self == .unlocked
        case .firstUnlock: self != .neverUnlocked
        case .none: true
        }
    }
}
