import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process (the built `latchkey`, an agent, a D-Bus daemon, a test server, a peer) started
/// without waiting for it, whose standard output and standard error are collected by background threads
/// as they arrive.
///
/// Tests wait on the child's events, never on time: a line on one of its streams, text on standard
/// error, its exit. Each wait has a deadline so that a hang fails the test instead of the run; the
/// deadline never delays a wait that its event ends first. There are blocking waits (`waitForLines`,
/// `waitForStandardError`, `waitForExit`) for synchronous tests and `async` ones (`line`, `exitStatus`,
/// `stop`), which never block a thread of the cooperative pool:
///
/// ```swift
/// let child = try ChildProcess(latchkey, ["debug", "stress-add", "--prefix", "a", "--count", "100"],
///                              environment: keychain.environment())
/// _ = child.waitForLines(10, timeout: 30)
/// child.kill()
/// let finished = child.waitForExit(timeout: 30)
///
/// let server = try ChildProcess(python, ["server.py"], keepingInputOpen: true)
/// let ready = await server.line(startingWith: "READY", timeout: 60)
/// await server.stop(endingInputFirst: true)
/// ```
///
/// Every launch goes through `ProcessLaunch`.
///
/// `Sendable`: see the `SAFETY` note.
public final class ChildProcess: @unchecked Sendable {
    // SAFETY: `process` and `input` are set in `init` and afterwards only used through thread-safe calls
    // (`FileHandle.write`/`close`, `kill(2)` on the pid); everything mutable is in `shared`, behind its
    // `Mutex`.

    /// Which of the child's output streams to watch.
    public enum Stream: Sendable {
        /// Standard output.
        case output
        /// Standard error.
        case error
    }

    /// How a child ended, with everything it wrote.
    public struct Finished: Sendable {
        /// The exit status, or the signal number when `signal` is set.
        public var status: Int32
        /// The signal that ended the process, if it did not exit normally.
        public var signal: Int32?
        /// Whether the wait's deadline passed (the process was then killed).
        public var timedOut: Bool
        /// Everything written on standard output.
        public var stdout: String
        /// Everything written on standard output, as bytes (for binary output).
        public var stdoutData: Data
        /// Everything written on standard error.
        public var stderr: String
        /// How long the process ran, from spawn to the end of its output.
        public var duration: TimeInterval

        /// The complete (newline-terminated) lines of standard output.
        public var stdoutLines: [String] { Output.completeLines(of: stdout) }
    }

    /// The child's process id.
    public let pid: Int32
    private let process: Process
    private let input: FileHandle?
    private let started = Date()
    let shared = Shared()

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: The command line after the program's name.
    ///   - environment: The child's whole environment; `nil` for this process's.
    ///   - input: Written on the child's standard input (a pipe, never a terminal) right after the start.
    ///   - keepingInputOpen: Keep standard input open for `send(_:)` (until `stop`); by default it is
    ///     closed after `input`, so the child reads end of file.
    /// - Throws: What `Process.run()` throws (the executable is missing or cannot be run).
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        input: Data? = nil,
        keepingInputOpen: Bool = false
    ) throws {
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
            let signal = finished.terminationReason == .uncaughtSignal ? finished.terminationStatus : nil
            shared.change { output in
                output.exitStatus = finished.terminationStatus
                output.exitSignal = signal
            }
        }
        try ProcessLaunch.run(process)
        self.process = process
        pid = process.processIdentifier
        self.input = keepingInputOpen ? stdin.fileHandleForWriting : nil
        Self.read(stdout.fileHandleForReading, .output, into: shared)
        Self.read(stderr.fileHandleForReading, .error, into: shared)
        if let input { stdin.fileHandleForWriting.write(input) }
        if !keepingInputOpen { try stdin.fileHandleForWriting.close() }
    }

    /// Reads `handle` until end of file on a dedicated thread, waking the waiters each chunk satisfies.
    private static func read(_ handle: FileHandle, _ stream: Stream, into shared: Shared) {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = readBytes(handle.fileDescriptor, &buffer)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                shared.change { $0.append(buffer[0..<count], to: stream) }
            }
            shared.change { $0.end(stream) }
            try? handle.close()
        }
        thread.start()
    }

    // MARK: What arrived so far

    /// The complete (newline-terminated) standard-output lines received so far.
    public var stdoutLines: [String] {
        shared.read { $0.lines(of: .output) }
    }

    /// Everything written on standard error so far.
    public var errorText: String {
        shared.read { String(decoding: $0.errorOutput, as: UTF8.self) }
    }

    /// Whether the child is still running (it has not been reaped).
    public var isRunning: Bool {
        shared.read { $0.exitStatus == nil }
    }

    // MARK: Acting on the child

    /// Writes `line` and a newline on the child's standard input, which must have been kept open
    /// (`keepingInputOpen`).
    public func send(_ line: String) {
        guard let input else { preconditionFailure("ChildProcess.send(_:) needs keepingInputOpen: true") }
        input.write(Data((line + "\n").utf8))
    }

    /// Sends `signal` (SIGKILL by default) to the child, unless it has already been reaped.
    ///
    /// - Parameter signal: The signal number.
    public func kill(_ signal: Int32 = SIGKILL) {
        shared.read { output in
            if output.exitStatus == nil { _ = sendSignal(pid, signal) }
        }
    }

    /// Stops the child and waits for its exit: SIGTERM to its pid, then SIGKILL if it has not exited after
    /// `grace` seconds.
    ///
    /// - Parameters:
    ///   - grace: How long each step may take.
    ///   - endingInputFirst: Close standard input first and give the child `grace` seconds to exit on
    ///     its own, for children that stop at end of input (the Python test servers: a SIGTERM while
    ///     their input thread still reads makes the interpreter abort at exit, which takes seconds).
    public func stop(grace: TimeInterval = 5, endingInputFirst: Bool = false) async {
        if endingInputFirst {
            try? input?.close()
            if await exitStatus(timeout: grace) != nil { return }
        }
        if isRunning {
            kill(SIGTERM)
            if await exitStatus(timeout: grace) == nil {
                kill(SIGKILL)
                _ = await exitStatus(timeout: 30)
            }
        }
        if !endingInputFirst { try? input?.close() }
    }

    // MARK: Blocking waits

    /// Waits until at least `count` complete output lines arrived, the output ended, or `timeout` passed.
    ///
    /// - Returns: Whether `count` lines arrived.
    @discardableResult
    public func waitForLines(_ count: Int, timeout: TimeInterval) -> Bool {
        shared.block(timeout: timeout) { $0.newlines >= count || $0.isOver }
        return shared.read { $0.newlines >= count }
    }

    /// Waits until standard error contains `text`, the output ended, or `timeout` passed.
    ///
    /// - Returns: Whether `text` arrived.
    @discardableResult
    public func waitForStandardError(containing text: String, timeout: TimeInterval) -> Bool {
        let contains: @Sendable (Output) -> Bool = { String(decoding: $0.errorOutput, as: UTF8.self).contains(text) }
        shared.block(timeout: timeout) { contains($0) || $0.isOver }
        return shared.read(contains)
    }

    /// Waits for the child to exit and its output to end; after `timeout` seconds it is killed with
    /// SIGKILL and the result says `timedOut`.
    ///
    /// - Parameters:
    ///   - timeout: The deadline in seconds; `nil` waits as long as it takes.
    ///   - outputGrace: When given, `timeout` bounds the exit only, and the output then has this many
    ///     seconds more to end (a grandchild that inherited the pipes may hold them open); what arrived by
    ///     then is returned. By default `timeout` bounds both.
    /// - Returns: How the child ended and everything it wrote.
    public func waitForExit(timeout: TimeInterval?, outputGrace: TimeInterval? = nil) -> Finished {
        let timedOut = !shared.block(timeout: timeout) { outputGrace == nil ? $0.isOver : $0.exitStatus != nil }
        if timedOut {
            kill(SIGKILL)
            // The output ends when the killed child's pipes close; grandchildren may hold them, so bound this too.
            shared.block(timeout: 10) { $0.exitStatus != nil }
        }
        if let outputGrace { shared.block(timeout: outputGrace) { $0.ended(.output) && $0.ended(.error) } }
        return shared.read { output in
            Finished(
                status: output.exitStatus ?? 0,
                signal: output.exitSignal,
                timedOut: timedOut,
                stdout: String(decoding: output.output, as: UTF8.self),
                stdoutData: Data(output.output),
                stderr: String(decoding: output.errorOutput, as: UTF8.self),
                duration: Date().timeIntervalSince(started)
            )
        }
    }

    // MARK: Waits that suspend

    /// Waits until a line on `stream` satisfies `matches`; returns it, or `nil` when the stream ends
    /// without one or `timeout` seconds pass first.
    ///
    /// - Parameters:
    ///   - stream: Standard output (default) or standard error.
    ///   - timeout: The deadline in seconds.
    ///   - matches: Which line to wait for.
    public func line(
        on stream: Stream = .output,
        timeout: TimeInterval,
        where matches: @escaping @Sendable (String) -> Bool
    ) async -> String? {
        let arrived = await shared.suspend(timeout: timeout) { output in
            output.ended(stream) || output.lines(of: stream).contains(where: matches)
        }
        guard arrived else { return nil }
        return shared.read { $0.lines(of: stream).first(where: matches) }
    }

    /// Waits until a line starting with `prefix` arrives on standard output; returns it, or `nil` after
    /// `timeout` seconds or when the output ends first.
    public func line(startingWith prefix: String, timeout: TimeInterval) async -> String? {
        await line(on: .output, timeout: timeout) { $0.hasPrefix(prefix) }
    }

    /// Waits for the child to exit (at most `timeout` seconds); returns its status, or `nil` if it is
    /// still running then.
    public func exitStatus(timeout: TimeInterval) async -> Int32? {
        guard await shared.suspend(timeout: timeout, until: { $0.exitStatus != nil }) else { return nil }
        return shared.read { $0.exitStatus }
    }
}

/// `read(2)` into `buffer`, outside `ChildProcess` (whose members would shadow the C function's name).
private func readBytes(_ descriptor: Int32, _ buffer: inout [UInt8]) -> Int {
    buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
}

/// `kill(2)`, outside `ChildProcess` (whose `kill(_:)` would shadow the C function's name).
private func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
