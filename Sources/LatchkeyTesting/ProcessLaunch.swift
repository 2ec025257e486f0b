import Foundation
import Synchronization

/// Starts child processes one at a time across the whole test process.
///
/// On Linux, Foundation's `Process.run()` crashed the test process inside a `memcpy` three times in this
/// project's CI runs. The cause found since is swift-corelibs-foundation #5472: `Process.run` scans
/// `/proc/self/fd` and copies 256 bytes of each directory entry, over-reading past glibc's buffer when the
/// directory is large (the suite once peaked at 5 359 open descriptors, from leaked store connections and
/// pipes, both fixed). Launches stay serialised here as well (#4772, #4795 and #4810 describe concurrent-launch
/// problems); every test that starts a process goes through here, and the child then runs concurrently as before.
public enum ProcessLaunch {
    private static let launching = Mutex(())

    /// Runs `process.run()` while no other thread of this process is launching one.
    ///
    /// - Throws: What `Process.run()` throws.
    public static func run(_ process: Process) throws {
        try launching.withLock { _ in try process.run() }
    }
}
