import Foundation
import LatchkeyTesting

#if canImport(Glibc)
import Glibc
#endif

// The pseudo-terminal calls are not in Swift's Glibc module (they need _XOPEN_SOURCE); they are plain C functions.
@_silgen_name("posix_openpt") private func openPseudoTerminal(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockPseudoTerminal(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname_r") private func pseudoTerminalName(
    _ descriptor: Int32,
    _ buffer: UnsafeMutablePointer<CChar>,
    _ length: Int
) -> Int32

/// A child process whose standard input, output and error are a pseudo-terminal's slave side; the test
/// holds the master side and sees exactly what a person at that terminal would see.
public final class PseudoTerminalSession: @unchecked Sendable {
    // SAFETY: used from one test thread only.
    private let master: Int32
    private let process: Process
    private var output = Data()

    /// How the session ended.
    public struct Finished {
        /// The child's exit status.
        public var status: Int32
        /// Everything the terminal showed.
        public var transcript: String
    }

    /// Starts `executable` with `arguments` and `environment` on a new pseudo-terminal.
    ///
    /// - Throws: When the pseudo-terminal cannot be opened or the process cannot start.
    public init(executable: String, arguments: [String], environment: [String: String]) throws {
        let master = openPseudoTerminal(O_RDWR | O_NOCTTY)
        guard master >= 0, grantPseudoTerminal(master) == 0, unlockPseudoTerminal(master) == 0 else {
            throw POSIXError(.ENOTTY)
        }
        var name = [CChar](repeating: 0, count: 128)
        guard pseudoTerminalName(master, &name, name.count) == 0 else { throw POSIXError(.ENOTTY) }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        self.master = master
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try ProcessLaunch.run(process)
        close(slave)
        self.process = process
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        close(master)
    }

    /// Reads whatever arrives within `timeout` seconds; returns false at end of output.
    @discardableResult
    private func pump(timeout: TimeInterval) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return true }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { return false }
        output.append(contentsOf: buffer[0..<count])
        return true
    }

    /// Waits until the terminal shows `text` (or 30 s pass).
    public func waitFor(_ text: String, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if String(decoding: output, as: UTF8.self).contains(text) { return true }
            if !pump(timeout: 0.1) { return String(decoding: output, as: UTF8.self).contains(text) }
        }
        return false
    }

    /// Types `text` at the terminal.
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads the rest of the output and waits for the child to exit (killing it after `timeout`).
    public func finish(timeout: TimeInterval = 30) -> Finished {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if !pump(timeout: 0.1) { break }
            if !process.isRunning {
                while pump(timeout: 0.05) && Date() < deadline {
                    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                    if poll(&descriptor, 1, 50) <= 0 { break }
                }
                break
            }
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return Finished(status: process.terminationStatus, transcript: String(decoding: output, as: UTF8.self))
    }
}
