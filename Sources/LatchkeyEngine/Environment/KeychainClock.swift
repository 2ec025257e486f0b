import Foundation

/// Where the core reads the time: creation and modification dates, tombstones, restore dates.
///
/// Production code uses `SystemClock`; tests inject a clock they advance by hand
/// (`LatchkeyTesting.ManualClock`) so that nothing waits on wall time.
public protocol KeychainClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's wall clock (`Date()`).
public struct SystemClock: KeychainClock {
    /// Makes the system clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }
}
