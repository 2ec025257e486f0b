import Foundation
import Latchkey
import Synchronization

/// A hybrid logical clock (Kulkarni et al., "Logical Physical Clocks", 2014) for one machine.
///
/// Its readings (`HLCTimestamp`) stay close to physical time, yet respect causality whatever the machines'
/// clocks say: a reading taken after `receive(_:)` of another machine's timestamp is always later than that
/// timestamp, even when this machine's clock runs minutes behind. Sync decides the winner of two concurrent
/// edits of one item by their timestamps, so every machine picks the same winner, and an edit made after
/// seeing another always wins over it.
///
/// The physical clock is injected (`KeychainClock`): tests drive a `ManualClock`, never the wall clock.
///
/// ```swift
/// let clock = HybridLogicalClock(machine: machineID, physicalClock: SystemClock())
/// let stamp = clock.now()                 // a local edit
/// let later = clock.receive(remoteStamp)  // an edit pulled from another machine
/// ```
///
/// `Sendable`: the state is behind a `Mutex`.
public final class HybridLogicalClock: Sendable {
    /// The machine this clock belongs to (every reading carries it).
    public let machine: UUID
    private let physicalClock: any KeychainClock
    private let state: Mutex<(milliseconds: UInt64, counter: UInt32)>

    /// Makes a clock for `machine` reading `physicalClock`.
    ///
    /// - Parameters:
    ///   - machine: This machine's id.
    ///   - physicalClock: The physical time source (`SystemClock()` in production).
    ///   - last: The last timestamp this machine issued or received, when the clock restarts (persisted by
    ///     the caller), so that a restarted machine never goes back in time; `nil` for a new machine.
    public init(machine: UUID, physicalClock: any KeychainClock, last: HLCTimestamp? = nil) {
        self.machine = machine
        self.physicalClock = physicalClock
        state = Mutex((last?.physicalMilliseconds ?? 0, last?.counter ?? 0))
    }

    /// A reading for a local event (an edit, a send).
    ///
    /// `l = max(l, pt)`; the counter goes up when `l` did not move, else restarts at 0.
    ///
    /// - Returns: A timestamp later than every reading this clock returned or received before.
    public func now() -> HLCTimestamp {
        let physical = physicalMilliseconds()
        return state.withLock { state in
            if physical > state.milliseconds {
                state = (physical, 0)
            } else {
                Self.increment(&state)
            }
            return HLCTimestamp(physicalMilliseconds: state.milliseconds, counter: state.counter, machine: machine)
        }
    }

    /// Takes in another machine's timestamp (an edit pulled from the server) and returns the reading of the
    /// receive event.
    ///
    /// `l = max(l, m.l, pt)`; the counter follows the paper's rules (the largest counter among those whose
    /// `l` equals the new `l`, plus one; 0 when only physical time moved `l`).
    ///
    /// - Parameter remote: The timestamp received.
    /// - Returns: A timestamp later than `remote` and than every reading this clock returned before.
    @discardableResult
    public func receive(_ remote: HLCTimestamp) -> HLCTimestamp {
        let physical = physicalMilliseconds()
        return state.withLock { state in
            let previous = state.milliseconds
            let newest = max(previous, remote.physicalMilliseconds, physical)
            if newest == previous && newest == remote.physicalMilliseconds {
                state.counter = max(state.counter, remote.counter)
                Self.increment(&state)
            } else if newest == previous {
                Self.increment(&state)
            } else if newest == remote.physicalMilliseconds {
                state = (newest, remote.counter)
                Self.increment(&state)
            } else {
                state = (newest, 0)
            }
            return HLCTimestamp(physicalMilliseconds: state.milliseconds, counter: state.counter, machine: machine)
        }
    }

    /// Counter plus one; at the counter's limit the logical milliseconds move on instead (never reached in
    /// practice: 4 billion readings within one millisecond).
    private static func increment(_ state: inout (milliseconds: UInt64, counter: UInt32)) {
        if state.counter == UInt32.max {
            state = (state.milliseconds + 1, 0)
        } else {
            state.counter += 1
        }
    }

    /// The physical clock in milliseconds since 1970 (0 for a clock before 1970).
    private func physicalMilliseconds() -> UInt64 {
        let milliseconds = (physicalClock.now().timeIntervalSince1970 * 1000).rounded(.down)
        return milliseconds > 0 ? UInt64(milliseconds) : 0
    }
}
