import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// A child process (a test server or a `latchkey-token-peer`) whose standard output and standard error
/// are collected line by line on background threads, with standard input kept open as a pipe.
///
/// Nothing here polls or sleeps: a waiter is a continuation that the reader threads resume when a
/// matching line arrives or the output ends, and that `Process.terminationHandler` resumes when the
/// child exits. A timeout is a timer that resumes the waiter with `nil`; it never delays a wait that
/// its event ends first. No thread of the cooperative pool is ever blocked: on a two-core machine that
/// pool has two threads, and tests run in parallel.
final class ChildProcess: @unchecked Sendable {
    // SAFETY: `process` and `input` are set in `init` and afterwards only used through thread-safe calls
    // (`FileHandle.write`/`close`); everything mutable is in `shared`, behind its `Mutex`.

    /// Which of the child's output streams to watch.
    enum Stream: Sendable {
        case output
        case error
    }

    private let process: Process
    private let input: FileHandle
    private let shared = Shared()

    /// The state the reader threads, the termination handler and the waiters share.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    /// What the reader threads and the termination handler share with waiters.
    private struct State {
        var output: [UInt8] = []
        var errorOutput: [UInt8] = []
        var outputEnded = false
        var errorEnded = false
        var exitStatus: Int32?
        var lineWaiters: [UUID: LineWaiter] = [:]
        var exitWaiters: [UUID: CheckedContinuation<Int32?, Never>] = [:]

        func lines(of stream: Stream) -> [String] {
            var lines = String(decoding: stream == .output ? output : errorOutput, as: UTF8.self)
                .split(separator: "\n", omittingEmptySubsequences: false)
            lines.removeLast()
            return lines.map(String.init)
        }

        func ended(_ stream: Stream) -> Bool {
            stream == .output ? outputEnded : errorEnded
        }
    }

    private struct LineWaiter {
        var stream: Stream
        var matches: @Sendable (String) -> Bool
        var continuation: CheckedContinuation<String?, Never>
    }

    /// The child's process id.
    let pid: Int32

    /// Starts `executable` with `arguments` and `environment` (default: this process's).
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        process.terminationHandler = { [shared] finished in
            let status = finished.terminationStatus
            let waiters = shared.state.withLock { state in
                state.exitStatus = status
                defer { state.exitWaiters.removeAll() }
                return Array(state.exitWaiters.values)
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
        try ProcessLaunch.run(process)
        self.process = process
        self.pid = process.processIdentifier
        self.input = stdin.fileHandleForWriting
        read(stdout.fileHandleForReading, .output)
        read(stderr.fileHandleForReading, .error)
    }

    /// Reads `handle` until end of file on a dedicated thread, waking the waiters each chunk satisfies.
    private func read(_ handle: FileHandle, _ stream: Stream) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count)
                }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                deliver(stream) { state in
                    if stream == .output {
                        state.output += buffer[0..<count]
                    } else {
                        state.errorOutput += buffer[0..<count]
                    }
                }
            }
            deliver(stream) { state in
                if stream == .output { state.outputEnded = true } else { state.errorEnded = true }
            }
        }
        thread.start()
    }

    /// Applies `change` and resumes every waiter on `stream` that now has its line, or whose stream ended.
    private func deliver(_ stream: Stream, _ change: (inout State) -> Void) {
        let ready: [(CheckedContinuation<String?, Never>, String?)] = shared.state.withLock { state in
            change(&state)
            let lines = state.lines(of: stream)
            let ended = state.ended(stream)
            var ready: [(CheckedContinuation<String?, Never>, String?)] = []
            for (id, waiter) in state.lineWaiters where waiter.stream == stream {
                if let line = lines.first(where: waiter.matches) {
                    ready.append((waiter.continuation, line))
                    state.lineWaiters[id] = nil
                } else if ended {
                    ready.append((waiter.continuation, nil))
                    state.lineWaiters[id] = nil
                }
            }
            return ready
        }
        for (continuation, line) in ready { continuation.resume(returning: line) }
    }

    /// The complete lines written on standard output so far.
    var lines: [String] {
        shared.state.withLock { $0.lines(of: .output) }
    }

    /// Everything written on standard error so far.
    var errorText: String {
        shared.state.withLock { String(decoding: $0.errorOutput, as: UTF8.self) }
    }

    /// Waits until a line on `stream` satisfies `matches`; returns it, or `nil` when the stream ends
    /// without one or `timeout` seconds pass first.
    func line(
        on stream: Stream = .output,
        timeout: TimeInterval,
        where matches: @escaping @Sendable (String) -> Bool
    ) async -> String? {
        let id = UUID()
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let immediate: String?? = shared.state.withLock { state in
                if let line = state.lines(of: stream).first(where: matches) { return .some(line) }
                if state.ended(stream) { return .some(nil) }
                state.lineWaiters[id] = LineWaiter(stream: stream, matches: matches, continuation: continuation)
                return .none
            }
            if let immediate {
                continuation.resume(returning: immediate)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [shared] in
                let waiter = shared.state.withLock { $0.lineWaiters.removeValue(forKey: id) }
                waiter?.continuation.resume(returning: nil)
            }
        }
    }

    /// Waits until a line starting with `prefix` arrives on standard output; returns it, or `nil` after
    /// `timeout` seconds or when the output ends first.
    func line(startingWith prefix: String, timeout: TimeInterval) async -> String? {
        await line(on: .output, timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// Writes `line` and a newline on the child's standard input.
    func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Whether the child is still running.
    var isRunning: Bool {
        shared.state.withLock { $0.exitStatus == nil }
    }

    /// Stops the child and waits for its exit: SIGTERM to its pid, then SIGKILL if it has not exited after
    /// `grace` seconds.
    ///
    /// - Parameters:
    ///   - grace: How long each step may take.
    ///   - endingInputFirst: Close standard input first and give the child `grace` seconds to exit on
    ///     its own, for children that stop at end of input (the Python test servers: a SIGTERM while
    ///     their input thread still reads makes the interpreter abort at exit, which takes seconds).
    func stop(grace: TimeInterval = 5, endingInputFirst: Bool = false) async {
        if endingInputFirst {
            try? input.close()
            if await exitStatus(timeout: grace) != nil { return }
        }
        if isRunning {
            kill(pid, SIGTERM)
            if await exitStatus(timeout: grace) == nil {
                kill(pid, SIGKILL)
                _ = await exitStatus(timeout: 30)
            }
        }
        if !endingInputFirst { try? input.close() }
    }

    /// Waits for the child to exit (at most `timeout` seconds); returns its status, or `nil` if it is
    /// still running then.
    func exitStatus(timeout: TimeInterval) async -> Int32? {
        let id = UUID()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            let status: Int32? = shared.state.withLock { state in
                if let status = state.exitStatus { return status }
                state.exitWaiters[id] = continuation
                return nil
            }
            if let status {
                continuation.resume(returning: status)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [shared] in
                let waiter = shared.state.withLock { $0.exitWaiters.removeValue(forKey: id) }
                waiter?.resume(returning: nil)
            }
        }
    }
}
