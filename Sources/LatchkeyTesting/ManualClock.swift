import Foundation
import Latchkey
import Synchronization

/// A `KeychainClock` that stands still until the test moves it.
///
/// It starts at a fixed date (`ManualClock.defaultStart`, 2024-01-01 00:00:00 UTC, unless you give
/// another), so item dates are the same on every run, and it only moves when the test calls
/// `advance(by:)` or `set(_:)`. Use it instead of waiting for wall time to pass:
///
/// ```swift
/// import LatchkeyTesting
///
/// @Test func rewritingMovesTheModificationDate() throws {
///     let clock = ManualClock()
///     let test = try TestKeychain(clock: clock)
///     let keychain = test.keychain()
///     try keychain.set("one", forKey: "token")
///     clock.advance(by: 60)                            // a minute "passes" at once
///     try keychain.set("two", forKey: "token")
///     let item = try #require(try keychain.items().first)
///     #expect(item.creationDate == ManualClock.defaultStart)
///     #expect(item.modificationDate == ManualClock.defaultStart.addingTimeInterval(60))
/// }
/// ```
///
/// The store still keeps modification dates strictly increasing: two updates at the same manual
/// time get dates a millisecond apart.
///
/// `Sendable`: the current date is behind a `Mutex`, so one clock can be shared by several stores and
/// tasks.
public final class ManualClock: KeychainClock, Sendable {
    /// Where a clock made with `init()` starts: 2024-01-01 00:00:00 UTC.
    public static let defaultStart = Date(timeIntervalSince1970: 1_704_067_200)

    private let current: Mutex<Date>

    /// Makes a clock showing `start`.
    ///
    /// - Parameter start: The first date `now()` returns (default `ManualClock.defaultStart`).
    public init(_ start: Date = ManualClock.defaultStart) {
        current = Mutex(start)
    }

    /// The date the clock shows; the same on every call until the clock is moved.
    public func now() -> Date {
        current.withLock { $0 }
    }

    /// Moves the clock forward.
    ///
    /// ```swift
    /// clock.advance(by: 3600)    // one hour later
    /// ```
    ///
    /// - Parameter interval: Seconds to add; must not be negative (use `set(_:)` to go back).
    public func advance(by interval: TimeInterval) {
        precondition(interval >= 0, "ManualClock.advance(by:) takes a non-negative interval; use set(_:) to go back")
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// Moves the clock forward by a `Duration`.
    ///
    /// ```swift
    /// clock.advance(by: .seconds(90))
    /// ```
    ///
    /// - Parameter duration: How far to move; must not be negative.
    public func advance(by duration: Duration) {
        let components = duration.components
        advance(by: TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18)
    }

    /// Shows `date` from now on, earlier or later than the current one.
    ///
    /// ```swift
    /// clock.set(Date(timeIntervalSince1970: 0))    // test what happens with a clock set back
    /// ```
    ///
    /// - Parameter date: The date `now()` returns from now on.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
