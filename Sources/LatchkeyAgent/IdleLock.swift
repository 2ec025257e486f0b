import Dispatch
import Foundation
import Latchkey
import Synchronization

/// The agent's idle auto-lock: when no client sent a request for `interval` seconds, the keychain is
/// locked (`WhenUnlocked` classes become unavailable to every client, as after `latchkey lock`).
///
/// Idle time is measured on the configuration's clock. It is checked when a request arrives (before it
/// is served, so a request after the idle time finds the keychain locked) and by a timer a few times per
/// interval, so the keychain also locks while nobody asks. Tests inject a `ManualClock` and move it.
final class IdleLock: Sendable {
    /// Seconds without a request before the keychain locks.
    let interval: TimeInterval
    private let clock: any KeychainClock
    private let lastRequest: Mutex<Date>
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)

    init(interval: TimeInterval, clock: any KeychainClock) {
        self.interval = interval
        self.clock = clock
        self.lastRequest = Mutex(clock.now())
    }

    /// Records a request; returns whether the idle time had run out before it.
    func requestArrived() -> Bool {
        let now = clock.now()
        return lastRequest.withLock { last in
            defer { last = now }
            return now.timeIntervalSince(last) >= interval
        }
    }

    /// Whether the idle time has run out now.
    var isExpired: Bool {
        let last = lastRequest.withLock { $0 }
        return clock.now().timeIntervalSince(last) >= interval
    }

    /// Starts the timer that calls `expired` while the idle time has run out.
    func start(expired: @escaping @Sendable () -> Void) {
        let period = min(max(interval / 4, 0.25), 30)
        timer.withLock { slot in
            let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "latchkey-agent-idle-lock"))
            source.schedule(deadline: .now() + period, repeating: period)
            source.setEventHandler { [weak self] in
                if self?.isExpired == true { expired() }
            }
            source.resume()
            slot = source
        }
    }

    /// Stops the timer.
    func stop() {
        timer.withLock { source in
            source?.cancel()
            source = nil
        }
    }
}
