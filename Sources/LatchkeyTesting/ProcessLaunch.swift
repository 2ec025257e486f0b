import Foundation
import Synchronization

/// Starts child processes one at a time across the whole test process.
///
/// On Linux, Foundation's `Process.run()` is not safe to call from several threads at once: concurrent
/// launches from test suites running in parallel crashed the test process inside `Process.run` (a
/// `memcpy` reading freed memory while it builds the child's environment and arguments), twice in this
/// project's CI runs. swift-corelibs-foundation issues #4772, #4795 and #4810 describe the same class of
/// problem. Every test that starts a process goes through here; the launch is serialised, the child then
/// runs concurrently as before.
public enum ProcessLaunch {
    private static let launching = Mutex(())

    /// Runs `process.run()` while no other thread of this process is launching one.
    ///
    /// - Throws: What `Process.run()` throws.
    public static func run(_ process: Process) throws {
        try launching.withLock { _ in try process.run() }
    }
}
