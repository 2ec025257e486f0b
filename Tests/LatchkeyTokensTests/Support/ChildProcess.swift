import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process (a test server or a `latchkey-token-peer`) whose standard output is collected line by
/// line on a background thread, with standard input kept open as a pipe.
///
/// Waiting is asynchronous (short sleeps), never a blocked thread of the cooperative pool: on a
/// two-core machine that pool has two threads, and tests run in parallel.
final class ChildProcess: @unchecked Sendable {
    // SAFETY: `process` and `input` are set in `init` and only used through thread-safe calls; the mutable
    // output buffers are read and written with `lock` held.

    private let process: Process
    private let input: FileHandle
    private let lock = NSLock()
    private var output: [UInt8] = []
    private var errorOutput: [UInt8] = []
    private var ended = false

    /// The child's process id.
    var pid: Int32 { process.processIdentifier }

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
        try process.run()
        self.process = process
        self.input = stdin.fileHandleForWriting
        read(stdout.fileHandleForReading, isError: false)
        read(stderr.fileHandleForReading, isError: true)
    }

    private func read(_ handle: FileHandle, isError: Bool) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count)
                }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                lock.lock()
                if isError { errorOutput += buffer[0..<count] } else { output += buffer[0..<count] }
                lock.unlock()
            }
            if !isError {
                lock.lock()
                ended = true
                lock.unlock()
            }
        }
        thread.start()
    }

    /// The complete lines written on standard output so far.
    var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        var lines = String(decoding: output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        return lines.map(String.init)
    }

    /// Everything written on standard error so far.
    var errorText: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errorOutput, as: UTF8.self)
    }

    /// Waits until a line starting with `prefix` arrives; returns it, or `nil` after `timeout` seconds or
    /// when the output ends first.
    func line(startingWith prefix: String, timeout: TimeInterval) async -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            let finished = lock.withLock { ended }
            if finished { return lines.first { $0.hasPrefix(prefix) } }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Writes `line` and a newline on the child's standard input.
    func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Stops the child by its pid: SIGTERM, then SIGKILL if it is still running after `grace` seconds.
    func stop(grace: TimeInterval = 5) async {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Date(timeIntervalSinceNow: grace)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(pid, SIGKILL) }
        try? input.close()
    }

    /// Waits for the child to exit (at most `timeout` seconds); returns its status or `nil`.
    func exitStatus(timeout: TimeInterval) async -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.isRunning ? nil : process.terminationStatus
    }
}
