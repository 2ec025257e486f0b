import Foundation
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// When a crash test kills its child: always at an event of the child, never after a delay.
enum KillPoint {
    /// Right after the spawn (the kill lands in process start-up).
    case spawn
    /// After the child's k-th touch of the watched directory (opening, unlocking, first writes).
    case fileEvents(Int)
    /// After the child's n-th acknowledged line (between or inside its operations).
    case acknowledgedLines(Int)

    /// Kills `child` with SIGKILL at this point and waits for it.
    ///
    /// - Parameters:
    ///   - what: What the child's lines acknowledge, for messages ("adds", "updates").
    /// - Returns: The trigger as text, the lines read before the kill, and every line the child wrote.
    func kill(
        _ child: ChildProcess,
        events: DirectoryEvents,
        round: Int,
        acknowledging what: String
    ) throws -> (trigger: String, seenBeforeKill: [String], lines: [String]) {
        let trigger: String
        switch self {
        case .spawn:
            trigger = "at spawn"
        case .fileEvents(let touches):
            trigger = "after \(touches) file events"
            let outcome = events.wait(for: touches, whileRunning: child.pid, timeout: 60)
            #expect(outcome == .reached, "round \(round): the child made fewer than \(touches) file events")
        case .acknowledgedLines(let lines):
            trigger = "after \(lines) acknowledged \(what)"
            #expect(
                child.waitForLines(lines, timeout: 60),
                "round \(round): the child never acknowledged \(lines) \(what)"
            )
        }
        let seenBeforeKill = child.stdoutLines
        child.kill(SIGKILL)
        let finished = child.waitForExit(timeout: 60)
        try #require(
            finished.signal == SIGKILL,
            "round \(round) (\(trigger)): the child ended by itself with \(finished.status): \(finished.stderr)"
        )
        let lines = finished.stdoutLines
        #expect(Array(lines.prefix(seenBeforeKill.count)) == seenBeforeKill)
        return (trigger, seenBeforeKill, lines)
    }
}
