import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wakes a callback when a keychain file (or its write-ahead log) is written, by any process.
///
/// On Linux it uses inotify on the file's directory: SQLite appends every committed transaction to the
/// `-wal` file with `write(2)`, which raises `IN_MODIFY` within microseconds, so other processes'
/// writes are noticed without polling. A slow safety tick (`fallbackInterval`) also fires the
/// callback, for file systems without inotify support (NFS, some container mounts); where inotify
/// is not available at all, the tick is the only source and runs at `pollInterval`.
///
/// One thread per watched file, blocked in `poll(2)`; `stop()` wakes it through a pipe.
final class FileChangeWatcher: Sendable {
    /// The safety tick when inotify works.
    static let fallbackInterval: Duration = .seconds(2)
    /// The tick when inotify is unavailable.
    static let pollInterval: Duration = .milliseconds(250)

    private let wakeWrite: Int32
    private let stopped = Atomic<Bool>(false)

    /// Starts watching `path`; `onChange` runs on the watcher's thread and must return quickly.
    ///
    /// - Parameter tick: The safety tick; `nil` for `fallbackInterval` (or `pollInterval` without inotify).
    init(path: String, tick: Duration? = nil, onChange: @escaping @Sendable () -> Void) {
        var pipeFDs: [Int32] = [-1, -1]
        _ = pipeFDs.withUnsafeMutableBufferPointer { pipe($0.baseAddress) }
        for descriptor in pipeFDs where descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let names: Set<String> = [url.lastPathComponent, url.lastPathComponent + "-wal"]
        let inotify = Self.startInotify(directory: directory)
        let timeout = Self.milliseconds(tick ?? (inotify >= 0 ? Self.fallbackInterval : Self.pollInterval))
        let thread = Thread {
            Self.loop(inotify: inotify, wake: wakeRead, timeout: timeout, names: names, onChange: onChange)
        }
        thread.name = "latchkey.file-watcher"
        thread.start()
    }

    /// Stops the thread (idempotent).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        close(wakeWrite)
    }

    deinit { stop() }

    /// An inotify descriptor watching `directory`, or -1.
    private static func startInotify(directory: String) -> Int32 {
        #if canImport(Glibc)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return -1 }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
        #else
        return -1
        #endif
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    private static func loop(
        inotify: Int32,
        wake: Int32,
        timeout: Int32,
        names: Set<String>,
        onChange: @Sendable () -> Void
    ) {
        defer {
            if inotify >= 0 { close(inotify) }
            close(wake)
        }
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        if inotify >= 0 { descriptors.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[0].revents != 0 { return }
            if ready == 0 {
                onChange()
                continue
            }
            if descriptors.count > 1, descriptors[1].revents != 0, drain(inotify, &buffer, names: names) {
                onChange()
            }
        }
    }

    /// Reads every pending inotify event; whether one concerns the keychain file or its WAL.
    private static func drain(_ descriptor: Int32, _ buffer: inout [UInt8], names: Set<String>) -> Bool {
        #if canImport(Glibc)
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return relevant }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = buffer.withUnsafeBytes { raw in
                    Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                }
                let start = offset + header
                let end = min(start + length, count)
                let name = String(decoding: buffer[start..<end].prefix { $0 != 0 }, as: UTF8.self)
                if names.contains(name) { relevant = true }
                offset = start + length
            }
        }
        #else
        return false
        #endif
    }
}
