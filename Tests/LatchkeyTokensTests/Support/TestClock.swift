import Foundation
import Synchronization

/// The time a `TokenManager` reads (`configuration.now = { clock.now() }`), standing still until the test
/// moves it: tests put tokens inside their refresh window by moving the clock, never by waiting.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    /// A clock showing `start` (default: the moment it is made).
    init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    /// The date the clock shows.
    func now() -> Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward by `interval` seconds.
    func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// Shows `date` from now on.
    func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
