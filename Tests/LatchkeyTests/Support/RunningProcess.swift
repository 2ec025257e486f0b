import Foundation

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// A child process started without waiting for it, whose standard output and error are collected by
/// background threads as they arrive.
///
/// Multi-process and crash tests use it to start several processes at once, to watch acknowledged
/// output lines arrive, and to kill a child at an arbitrary moment:
///
/// ```swift
/// let child = try BuiltExecutable.spawn(["debug", "stress-add", "--prefix", "a", "--count", "100"],
///                                       environment: keychain.environment())
/// _ = child.waitForLines(10, timeout: 30)
/// child.kill()
/// let finished = child.waitForExit(timeout: 30)
/// ```
final class RunningProcess: @unchecked Sendable {
    // SAFETY: `process` is only used on the creating thread and through `kill(2)` on its pid; every mutable
    // stored property is read and written with `condition` held.

    /// How a child ended, with everything it wrote.
    struct Finished {
        /// The exit status, or the signal number when `signal` is set.
        var status: Int32
        /// The signal that ended the process, if it did not exit normally.
        var signal: Int32?
        /// Whether the wait's deadline passed (the process was then killed).
        var timedOut: Bool
        /// Everything written on standard output.
        var stdout: String
        /// Everything written on standard error.
        var stderr: String
        /// How long the process ran, from spawn to the end of its output.
        var duration: TimeInterval

        /// The complete (newline-terminated) lines of standard output.
        var stdoutLines: [String] { RunningProcess.completeLines(of: stdout) }
    }

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }
    private let process: Process
    private let started = Date()
    private let condition = NSCondition()
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    private var openStreams = 2
    private var exited = false
    private var exitStatus: Int32 = 0
    private var exitSignal: Int32?

    /// Starts `executable` with `arguments` and `environment`, writing `input` (if any) on its standard
    /// input, which is then closed.
    init(executable: String, arguments: [String], environment: [String: String], input: Data?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        self.process = process
        let condition = self.condition
        process.terminationHandler = { [weak self] finished in
            condition.lock()
            self?.exited = true
            self?.exitStatus = finished.terminationStatus
            if finished.terminationReason == .uncaughtSignal { self?.exitSignal = finished.terminationStatus }
            condition.broadcast()
            condition.unlock()
        }
        try ProcessLaunch.run(process)
        startReader(stdout.fileHandleForReading, isStdout: true)
        startReader(stderr.fileHandleForReading, isStdout: false)
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
    }

    private func startReader(_ handle: FileHandle, isStdout: Bool) {
        let thread = Thread { [self] in
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                condition.lock()
                if isStdout {
                    stdoutBytes.append(contentsOf: buffer[0..<count])
                } else {
                    stderrBytes.append(contentsOf: buffer[0..<count])
                }
                condition.broadcast()
                condition.unlock()
            }
            condition.lock()
            openStreams -= 1
            condition.broadcast()
            condition.unlock()
            try? handle.close()
        }
        thread.start()
    }

    /// The complete standard-output lines received so far.
    var stdoutLines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return Self.completeLines(of: String(decoding: stdoutBytes, as: UTF8.self))
    }

    /// Waits until at least `count` complete output lines arrived, the output ended, or `timeout` passed.
    ///
    /// - Returns: Whether `count` lines arrived.
    @discardableResult
    func waitForLines(_ count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let lines = stdoutBytes.lazy.filter { $0 == 0x0A }.count
            if lines >= count { return true }
            if openStreams == 0 && exited { return false }
            if !condition.wait(until: deadline) { return false }
        }
    }

    /// Waits until standard error contains `text`, the output ended, or `timeout` passed.
    ///
    /// - Returns: Whether `text` arrived.
    @discardableResult
    func waitForStandardError(containing text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if String(decoding: stderrBytes, as: UTF8.self).contains(text) { return true }
            if openStreams == 0 && exited { return false }
            if !condition.wait(until: deadline) { return false }
        }
    }

    /// Sends `signal` (SIGKILL by default) to the child, unless it has already been reaped.
    func kill(_ signal: Int32 = SIGKILL) {
        condition.lock()
        defer { condition.unlock() }
        if !exited { _ = Glibc.kill(pid, signal) }
    }

    /// Waits for the child to exit and its output to end; after `timeout` seconds it is killed with
    /// SIGKILL and the result says `timedOut`.
    func waitForExit(timeout: TimeInterval) -> Finished {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var timedOut = false
        condition.lock()
        while !(exited && openStreams == 0) {
            if !condition.wait(until: deadline) {
                timedOut = true
                break
            }
        }
        if timedOut {
            if !exited { _ = Glibc.kill(pid, SIGKILL) }
            // The output ends when the killed child's pipes close; grandchildren may hold them, so bound this too.
            let grace = Date(timeIntervalSinceNow: 10)
            while !exited && condition.wait(until: grace) {}
        }
        let finished = Finished(
            status: exitStatus,
            signal: exitSignal,
            timedOut: timedOut,
            stdout: String(decoding: stdoutBytes, as: UTF8.self),
            stderr: String(decoding: stderrBytes, as: UTF8.self),
            duration: Date().timeIntervalSince(started)
        )
        condition.unlock()
        return finished
    }

    static func completeLines(of text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The last element is an unterminated fragment (or empty after a final newline).
        lines.removeLast()
        return lines
    }
}
