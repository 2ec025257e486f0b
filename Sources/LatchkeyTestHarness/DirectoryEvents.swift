import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Counts the file-system events (inotify) in one directory, so that a crash test can kill a child at
/// its k-th touch of the keychain's files (open, read, write, create, delete) instead of after a guessed
/// delay.
///
/// ```swift
/// let events = try DirectoryEvents(directory: keychain.directory)
/// let child = try BuiltExecutable.spawn(["set-keychain-password", ...], environment: environment)
/// if events.wait(for: 12, whileRunning: child.pid, timeout: 60) == .reached { child.kill(SIGKILL) }
/// ```
///
/// The count is what the kernel delivers: identical consecutive events not yet read are merged, so the
/// same program may produce a slightly different count from run to run. Use it to pick kill points,
/// never as an expected value.
public final class DirectoryEvents {
    /// How `wait(for:whileRunning:timeout:)` ended.
    public enum Outcome: Equatable {
        /// The count was reached.
        case reached
        /// The process exited before the count was reached.
        case exited
        /// Neither happened in time.
        case timedOut
    }

    private let inotify: Int32
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var counted = 0

    /// The events delivered so far (reading every pending one first).
    public var count: Int {
        drain()
        return counted
    }

    /// Starts counting events in `directory` (not recursive).
    public init(directory: String) throws {
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let mask = UInt32(
            IN_ACCESS | IN_MODIFY | IN_OPEN | IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_CLOSE_NOWRITE | IN_MOVED_TO
        )
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            close(inotify)
            throw POSIXError(code)
        }
    }

    deinit { close(inotify) }

    /// Blocks until `target` events in total have been counted, the process `pid` has exited, or
    /// `timeout` seconds passed, whichever comes first. Waits in `poll(2)` on the inotify descriptor and
    /// a pidfd of the process: every wake-up is an event.
    public func wait(for target: Int, whileRunning pid: Int32, timeout: TimeInterval) -> Outcome {
        if count >= target { return .reached }
        guard let process = Self.openProcess(pid) else { return .exited }
        defer { close(process) }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: process, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .timedOut }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(remaining * 1000, 60_000)) + 1)
            if ready < 0 && errno != EINTR { return .timedOut }
            if descriptors[0].revents != 0, count >= target { return .reached }
            if descriptors[1].revents != 0 { return .exited }
        }
    }

    /// Reads and counts every pending event.
    private func drain() {
        let header = MemoryLayout<inotify_event>.size
        while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
            if read < 0 && errno == EINTR { continue }
            if read <= 0 { return }
            var offset = 0
            while offset + header <= read {
                let nameLength = buffer.withUnsafeBytes { raw in
                    Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                counted += 1
                offset += header + nameLength
            }
        }
    }

    private typealias PidfdOpen = @convention(c) (Int32, UInt32) -> Int32

    /// glibc's `pidfd_open` (2.36+), looked up at run time because Swift's Glibc module does not import
    /// `<sys/pidfd.h>`.
    private static let pidfdOpen: PidfdOpen = {
        guard let symbol = dlsym(nil, "pidfd_open") else {
            preconditionFailure("pidfd_open is missing: the crash tests need glibc 2.36+ and Linux 5.3+")
        }
        return unsafeBitCast(symbol, to: PidfdOpen.self)
    }()

    /// A descriptor that becomes readable when `pid` exits; `nil` when it has already gone.
    private static func openProcess(_ pid: Int32) -> Int32? {
        let descriptor = pidfdOpen(pid, 0)
        return descriptor >= 0 ? descriptor : nil
    }
}
