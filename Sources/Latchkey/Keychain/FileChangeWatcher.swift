import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Wakes a callback when a keychain file (or its write-ahead log) is written, by any process, or when
/// another watched file (the per-user agent's state file, `AgentStateFile`) is replaced.
///
/// On Linux it uses inotify on the file's directory: SQLite appends every committed transaction to the
/// `-wal` file with `write(2)`, which raises `IN_MODIFY` within microseconds, so other processes'
/// writes are noticed without polling. A slow safety tick (`fallbackInterval`) also fires the
/// callback, for file systems without inotify support (NFS, some container mounts); where inotify
/// is not available at all, the tick is the only source and runs at `pollInterval`.
///
/// One thread per watched file, blocked in `poll(2)`; `stop()` and `tickNow()` wake it through a pipe.
final class FileChangeWatcher: Sendable {
    /// The safety tick when inotify works.
    static let fallbackInterval: Duration = .seconds(2)
    /// The tick when inotify is unavailable.
    static let pollInterval: Duration = .milliseconds(250)

    /// When the watcher fires its callback without a file event.
    enum Tick: Sendable {
        /// `fallbackInterval`, or `pollInterval` where inotify is unavailable (production).
        case automatic
        /// Never by itself: only when `tickNow()` is called. Tests use it to prove that an event came
        /// from inotify (no timer can have fired it) and to run the safety-tick path on demand instead
        /// of waiting for wall time to pass.
        case manual
    }

    /// What the thread reads from the wake pipe.
    private enum WakeByte: UInt8 {
        case tick = 0
        case stop = 1
    }

    /// The pipe's write end; -1 once stopped (the lock keeps `tickNow()` off a closed descriptor).
    private let wakeWrite: Mutex<Int32>

    /// Starts watching the keychain file at `path` (and its `-wal`); `onChange` runs on the watcher's
    /// thread and must return quickly.
    ///
    /// - Parameter tick: The safety tick (`.automatic` in production).
    convenience init(path: String, tick: Tick = .automatic, onChange: @escaping @Sendable () -> Void) {
        self.init(keychain: path, others: [], tick: tick, onChange: onChange)
    }

    /// Starts watching the keychain file at `keychain` (and its `-wal`) and the files at `others` (each
    /// rewritten by replacing it, as `AgentStateFile` is); `onChange` runs on the watcher's thread and must
    /// return quickly.
    ///
    /// - Parameter tick: The safety tick (`.automatic` in production).
    init(keychain: String, others: [String], tick: Tick = .automatic, onChange: @escaping @Sendable () -> Void) {
        var pipeFDs: [Int32] = [-1, -1]
        _ = pipeFDs.withUnsafeMutableBufferPointer { pipe($0.baseAddress) }
        for descriptor in pipeFDs where descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let wakeRead = pipeFDs[0]
        wakeWrite = Mutex(pipeFDs[1])
        var watched: [String: Set<String>] = [:]
        let url = URL(fileURLWithPath: keychain)
        watched[url.deletingLastPathComponent().path, default: []].formUnion([
            url.lastPathComponent, url.lastPathComponent + "-wal",
        ])
        for other in others {
            let otherURL = URL(fileURLWithPath: other)
            watched[otherURL.deletingLastPathComponent().path, default: []].insert(otherURL.lastPathComponent)
        }
        let (inotify, names) = Self.startInotify(watching: watched)
        let timeout: Int32 =
            switch tick {
            case .automatic: Self.milliseconds(inotify >= 0 ? Self.fallbackInterval : Self.pollInterval)
            case .manual: -1
            }
        let thread = Thread {
            Self.loop(inotify: inotify, wake: wakeRead, timeout: timeout, names: names, onChange: onChange)
        }
        thread.name = "latchkey.file-watcher"
        thread.start()
    }

    /// Fires the callback on the watcher's thread now, as the safety tick does (an event hook for
    /// tests; production relies on the timer). Does nothing once stopped.
    func tickNow() {
        send(.tick, thenClose: false)
    }

    /// Stops the thread (idempotent).
    func stop() {
        send(.stop, thenClose: true)
    }

    deinit { stop() }

    private func send(_ byte: WakeByte, thenClose: Bool) {
        wakeWrite.withLock { descriptor in
            guard descriptor >= 0 else { return }
            var value = byte.rawValue
            _ = write(descriptor, &value, 1)
            if thenClose {
                close(descriptor)
                descriptor = -1
            }
        }
    }

    /// An inotify descriptor watching each directory of `watched`, and the names that matter by watch
    /// descriptor; -1 when inotify is unavailable or a directory cannot be watched.
    private static func startInotify(watching watched: [String: Set<String>]) -> (Int32, [Int32: Set<String>]) {
        #if canImport(Glibc)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return (-1, [:]) }
        let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE)
        var names: [Int32: Set<String>] = [:]
        for (directory, files) in watched {
            let watch = inotify_add_watch(descriptor, directory, mask)
            guard watch >= 0 else {
                close(descriptor)
                return (-1, [:])
            }
            names[watch, default: []].formUnion(files)
        }
        return (descriptor, names)
        #else
        return (-1, [:])
        #endif
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    private static func loop(
        inotify: Int32,
        wake: Int32,
        timeout: Int32,
        names: [Int32: Set<String>],
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
            if ready == 0 {
                onChange()
                continue
            }
            if descriptors[0].revents != 0 {
                var byte: UInt8 = WakeByte.stop.rawValue
                var count: Int
                repeat { count = read(wake, &byte, 1) } while count < 0 && errno == EINTR
                guard count == 1, byte == WakeByte.tick.rawValue else { return }
                onChange()
            }
            if descriptors.count > 1, descriptors[1].revents != 0, drain(inotify, &buffer, names: names) {
                onChange()
            }
        }
    }

    /// Reads every pending inotify event; whether one concerns a watched file (the keychain file, its WAL,
    /// another watched file).
    private static func drain(_ descriptor: Int32, _ buffer: inout [UInt8], names: [Int32: Set<String>]) -> Bool {
        #if canImport(Glibc)
        var relevant = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return relevant }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let (watch, length) = buffer.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let start = offset + header
                let end = min(start + length, count)
                let name = String(decoding: buffer[start..<end].prefix { $0 != 0 }, as: UTF8.self)
                if names[watch]?.contains(name) == true { relevant = true }
                offset = start + length
            }
        }
        #else
        return false
        #endif
    }
}
