import Foundation
import Latchkey
import Synchronization

/// When each client identity last confirmed the user's presence through the agent's prompter, so that a
/// request carrying `LAContext`'s reuse duration is not asked again within it.
///
/// Times are read from the agent's clock (`AgentConfiguration.clock`), so tests move a `ManualClock`
/// instead of waiting. The memory is the agent's only: it is empty after a restart and forgotten at lock.
final class PresenceMemory: Sendable {
    /// The longest reuse honoured, Apple's `LATouchIDAuthenticationMaximumAllowableReuseDuration` (300 s).
    static let maximumReuse: TimeInterval = 300

    private let clock: any KeychainClock
    private let confirmed = Mutex<[String: Date]>([:])

    init(clock: any KeychainClock) {
        self.clock = clock
    }

    /// Records that `identity` confirmed the user's presence now.
    func record(_ identity: String) {
        let now = clock.now()
        confirmed.withLock { $0[identity] = now }
    }

    /// Whether `identity` confirmed less than `reuse` seconds ago (capped at 300 s; 0 never).
    func isFresh(_ identity: String, reuse: TimeInterval) -> Bool {
        let window = min(max(reuse, 0), Self.maximumReuse)
        guard window > 0, let last = confirmed.withLock({ $0[identity] }) else { return false }
        let elapsed = clock.now().timeIntervalSince(last)
        return elapsed >= 0 && elapsed < window
    }

    /// Forgets every confirmation (when the keychain is locked).
    func forget() {
        confirmed.withLock { $0.removeAll() }
    }
}
