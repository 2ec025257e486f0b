import Foundation
import Synchronization

/// The change observers of one keychain file in this process, and the one watcher that wakes them.
///
/// Sources of wake-ups: writes committed through the observed store in this process (at once, through the
/// engine's `CommitObservers`),
/// the file watcher (other processes' and this process's other writes, within milliseconds on
/// Linux), and lock-state changes (each subscription catches up when its items become readable).
/// A wake-up only makes each subscription compare the file's change counter with the last one it
/// saw, so spurious wake-ups cost one small read.
final class ChangeMonitor: Sendable {
    private struct Registry {
        var monitors: [String: ChangeMonitor] = [:]
    }

    private struct State {
        var subscriptions: [ObjectIdentifier: ChangeSubscription] = [:]
        var watcher: (any WakeSource)?
    }

    /// Listeners of `refreshes(of:)`, by file path.
    private struct Probes {
        var nextID: UInt64 = 0
        var byPath: [String: [UInt64: AsyncStream<ChangeRefresh>.Continuation]] = [:]
    }

    /// Monitors by key (a file path, or an agent's socket); a monitor exists while it has subscriptions.
    private static let registry = Mutex(Registry())
    private static let probes = Mutex(Probes())

    private let path: String
    private let state = Mutex(State())

    private init(path: String) {
        self.path = path
    }

    /// Wakes the observers of `key` (an agent's subscriptions after a write through the agent by this process).
    static func wake(key: String) {
        let monitor = registry.withLock { $0.monitors[key] }
        monitor?.wakeAll()
    }

    /// Adds `subscription` to the monitor of its source, starting the wake-ups for the first one.
    static func add(_ subscription: ChangeSubscription) {
        let source = subscription.source
        registry.withLock { registry in
            let monitor = registry.monitors[source.key] ?? ChangeMonitor(path: source.key)
            registry.monitors[source.key] = monitor
            monitor.state.withLock { state in
                state.subscriptions[ObjectIdentifier(subscription)] = subscription
                if state.watcher == nil {
                    state.watcher = source.startWaking { [weak monitor] in monitor?.wakeAll() }
                }
            }
        }
    }

    /// Removes `subscription`; the last one stops the wake-ups.
    static func remove(_ subscription: ChangeSubscription) {
        let key = subscription.source.key
        let watcher: (any WakeSource)? = registry.withLock { registry in
            guard let monitor = registry.monitors[key] else { return nil }
            return monitor.state.withLock { state in
                state.subscriptions[ObjectIdentifier(subscription)] = nil
                guard state.subscriptions.isEmpty else { return nil }
                registry.monitors[key] = nil
                defer { state.watcher = nil }
                return state.watcher
            }
        }
        watcher?.stop()
    }

    /// Whether a file (or an agent's key, `AgentWatch.key`) has observers (for tests).
    static func isWatching(_ path: String) -> Bool {
        registry.withLock { $0.monitors[path] != nil }
    }

    /// The outcome of every refresh of the subscriptions on `path` (a file, or an agent's key) from now on,
    /// as each completes.
    ///
    /// An event hook for tests, which wait on it instead of sleeping: "the change made while locked
    /// was seen and deferred" is the first `.locked` element, not a guess at how long the file watcher
    /// takes. Listening ends when the consumer stops iterating. Costs production one uncontended lock
    /// per refresh.
    static func refreshes(of path: String) -> AsyncStream<ChangeRefresh> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeRefresh.self, bufferingPolicy: .unbounded)
        let id = probes.withLock { probes in
            let id = probes.nextID
            probes.nextID += 1
            probes.byPath[path, default: [:]][id] = continuation
            return id
        }
        continuation.onTermination = { _ in
            probes.withLock { probes in
                probes.byPath[path]?[id] = nil
                if probes.byPath[path]?.isEmpty == true { probes.byPath[path] = nil }
            }
        }
        return stream
    }

    /// Hands a refresh's outcome to the listeners of `refreshes(of:)`.
    fileprivate static func noteRefresh(_ outcome: ChangeRefresh, path: String) {
        let listeners = probes.withLock { $0.byPath[path].map { Array($0.values) } ?? [] }
        for listener in listeners { listener.yield(outcome) }
    }

    private func wakeAll() {
        let subscriptions = state.withLock { Array($0.subscriptions.values) }
        for subscription in subscriptions { subscription.wake() }
    }
}

/// What one refresh of a change subscription found (see `ChangeMonitor.refreshes(of:)`).
enum ChangeRefresh: Sendable, Hashable {
    /// The file's change counter had not moved since the last look: nothing was read.
    case unchanged
    /// The items were read and compared with the last look; `reported` changes were yielded (none
    /// for the first look, which only records the baseline).
    case compared(reported: Int)
    /// The items' class is locked: nothing was reported; the unlock wakes the subscription again.
    case locked
    /// Reading failed: the error was yielded and the sequence finished.
    case failed
}

/// One observer: a scope (a service, or one key), the last state it reported, and its stream.
final class ChangeSubscription: Sendable {
    /// What identifies an item's version: a new persistent reference or modification date is a change.
    private struct Fingerprint: Equatable {
        var persistentReference: Data
        var modificationDate: Date?
    }

    /// An item as last seen.
    private struct Observed {
        var fingerprint: Fingerprint
        var metadata: KeychainItemMetadata
    }

    private struct State {
        /// The items last reported, by key; `nil` until they could be read once.
        var baseline: [String: Fingerprint]?
        /// The file's change counter when `baseline` was read.
        var counter: Int64?
        /// Whether a refresh is queued.
        var scheduled = false
        var finished = false
        var lockToken: LockStateSignal.Token?
    }

    let source: ObservationSource
    private let query: ItemQuery
    private let continuation: AsyncStream<Result<KeychainChange, KeychainError>>.Continuation
    private let queue = DispatchQueue(label: "latchkey.changes")
    private let state = Mutex(State())

    /// Starts observing `query` (generic passwords of one service, optionally one account).
    ///
    /// Reads the current items first (on the calling thread), so that every change committed after
    /// this returns is reported.
    static func start(source: ObservationSource, query: ItemQuery) -> KeychainChanges {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Result<KeychainChange, KeychainError>.self,
            bufferingPolicy: .unbounded
        )
        let subscription = ChangeSubscription(source: source, query: query, continuation: continuation)
        ChangeMonitor.add(subscription)
        let token = source.lockStates.observe { [weak subscription] _ in subscription?.wake() }
        subscription.state.withLock { $0.lockToken = token }
        continuation.onTermination = { _ in subscription.finish() }
        // The baseline, serialised with the refreshes that wake-ups queue.
        subscription.queue.sync { subscription.refresh() }
        return KeychainChanges(stream: stream)
    }

    private init(
        source: ObservationSource,
        query: ItemQuery,
        continuation: AsyncStream<Result<KeychainChange, KeychainError>>.Continuation
    ) {
        self.source = source
        self.query = query
        self.continuation = continuation
    }

    /// Schedules a refresh unless one is already queued (wake-ups coalesce).
    func wake() {
        let schedule = state.withLock { state in
            guard !state.scheduled, !state.finished else { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.refresh() } }
    }

    /// Compares the file's change counter with the last one seen and reports the net changes.
    private func refresh() {
        let last = state.withLock { state in
            state.scheduled = false
            return (state.counter, state.baseline != nil, state.finished)
        }
        guard !last.2 else { return }
        let outcome: ChangeRefresh
        do throws(KeychainError) {
            let counter = try source.changeCounter()
            if last.1, counter == last.0 {
                outcome = .unchanged
            } else {
                let items = try currentItems()
                let changes: [KeychainChange] = state.withLock { state in
                    defer {
                        state.baseline = items.mapValues(\.fingerprint)
                        state.counter = counter
                    }
                    guard let baseline = state.baseline else { return [] }
                    return Self.diff(baseline, items)
                }
                for change in changes { continuation.yield(.success(change)) }
                outcome = .compared(reported: changes.count)
            }
        } catch  where error.code == .interactionNotAllowed || (source.isAgent && error.code == .notAvailable) {
            // Locked (or the agent is away): the lock-state observer, or the agent's next state file, wakes
            // this subscription when the items become readable.
            outcome = .locked
        } catch {
            continuation.yield(.failure(error))
            continuation.finish()
            outcome = .failed
        }
        ChangeMonitor.noteRefresh(outcome, path: source.key)
    }

    /// The observed items by key (the first of several items with one key, as reads see it).
    private func currentItems() throws(KeychainError) -> [String: Observed] {
        var items: [String: Observed] = [:]
        for item in try source.service.findAll(query) {
            guard let key = Keychain.key(of: item.attributes), items[key] == nil else { continue }
            let metadata = KeychainItemMetadata(item)
            let fingerprint = Fingerprint(
                persistentReference: item.persistentReference,
                modificationDate: metadata.modificationDate
            )
            items[key] = Observed(fingerprint: fingerprint, metadata: metadata)
        }
        return items
    }

    private static func diff(
        _ old: [String: Fingerprint],
        _ new: [String: Observed]
    ) -> [KeychainChange] {
        var changes: [KeychainChange] = []
        for (key, item) in new {
            if let previous = old[key] {
                if previous != item.fingerprint {
                    changes.append(KeychainChange(key: key, kind: .updated, metadata: item.metadata))
                }
            } else {
                changes.append(KeychainChange(key: key, kind: .added, metadata: item.metadata))
            }
        }
        for key in old.keys where new[key] == nil {
            changes.append(KeychainChange(key: key, kind: .removed, metadata: nil))
        }
        return changes.sorted { $0.key < $1.key }
    }

    /// Stops observing (the consumer went away, or the file failed).
    private func finish() {
        let token: LockStateSignal.Token? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            return state.lockToken
        }
        if let token { source.lockStates.removeObserver(token) }
        ChangeMonitor.remove(self)
    }
}
