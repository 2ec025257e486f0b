import CLatchkeyAgent
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// What the agent process does to keep its keys out of swap, core dumps and other processes' reach.
///
/// - `prctl(PR_SET_DUMPABLE, 0)`: no core dump, and processes of the same user (without
///   `CAP_SYS_PTRACE`) can neither attach to the agent with `ptrace` nor read its `/proc/<pid>/mem`.
/// - `RLIMIT_CORE` 0, for the same reason should dumpability come back.
/// - `mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)` (pages are locked as they are first touched, so a
///   thread's stack is not populated whole), only when the locked-memory limit allows the whole process
///   (unlimited, or a process with `CAP_IPC_LOCK` such as root): locking future mappings under a small limit
///   would make later allocations fail. Otherwise nothing is locked and the agent says so in its log.
public enum ProcessHardening {
    /// What `apply` achieved.
    public struct Report: Sendable, Hashable {
        /// Whether the process is now non-dumpable.
        public var nonDumpable: Bool
        /// Whether all of the process's memory, present and future, is locked against swapping.
        public var memoryLocked: Bool
    }

    /// Hardens the current process, logging what could not be done.
    @discardableResult
    public static func apply(logger: Logger) -> Report {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        let nonDumpable = latchkey_set_non_dumpable() == 0 && latchkey_is_dumpable() == 0
        if !nonDumpable {
            logger.warning(
                "could not mark the agent non-dumpable",
                metadata: ["error": "\(String(cString: strerror(errno)))"]
            )
        }
        var memoryLimit: UInt64 = 0
        let unlimited = latchkey_memlock_unlimited(&memoryLimit) == 1
        var memoryLocked = false
        if unlimited || geteuid() == 0 {
            memoryLocked = latchkey_lock_all_memory() == 0
        }
        if !memoryLocked {
            logger.warning(
                "key memory is not locked against swap: the locked-memory limit is too small",
                metadata: ["RLIMIT_MEMLOCK": "\(memoryLimit)"]
            )
        }
        logger.info(
            "process hardened",
            metadata: ["nonDumpable": "\(nonDumpable)", "memoryLocked": "\(memoryLocked)"]
        )
        return Report(nonDumpable: nonDumpable, memoryLocked: memoryLocked)
    }
}
