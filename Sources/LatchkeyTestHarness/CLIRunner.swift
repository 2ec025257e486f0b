import Foundation
import Latchkey
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs programs (the built `latchkey`, `git`, shells) for the CLI suites, with a deadline so a hang fails
/// the test instead of the run.
public enum CLIRunner {
    /// How long one invocation may take before it counts as a hang.
    public static let timeout: TimeInterval = 60

    /// What a finished process wrote and how it ended.
    public struct Result: Sendable {
        /// The exit status.
        public var status: Int32
        /// Standard output as text.
        public var stdout: String
        /// Standard error as text.
        public var stderr: String
        /// Standard output's bytes.
        public var stdoutData: Data
        /// Whether the process was killed at the deadline.
        public var timedOut: Bool
        /// How long the process ran, in seconds.
        public var duration: TimeInterval
    }

    /// An environment for a child `latchkey` using `keychain`, with its own data, state and home directories
    /// so nothing touches the user's real keychain or settings.
    public static func environment(_ keychain: TemporaryKeychain, extra: [String: String] = [:]) -> [String: String] {
        var environment = keychain.environment()
        environment["XDG_DATA_HOME"] = keychain.directory + "/data"
        environment["XDG_STATE_HOME"] = keychain.directory + "/state"
        environment["XDG_CONFIG_HOME"] = keychain.directory + "/config"
        environment["HOME"] = keychain.directory + "/home"
        try? FileManager.default.createDirectory(
            atPath: keychain.directory + "/home",
            withIntermediateDirectories: true
        )
        environment["LATCHKEY_KEY_FILE"] = nil
        environment["LATCHKEY_PASSPHRASE_FILE"] = nil
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs the built `latchkey` with `arguments`; `input` is written on standard input, which is then closed.
    public static func latchkey(
        _ arguments: [String],
        environment: [String: String],
        input: String? = nil,
        timeout: TimeInterval = timeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Result {
        try run(
            BuiltExecutable.latchkey,
            arguments,
            environment: environment,
            input: input.map { Data($0.utf8) },
            timeout: timeout,
            sourceLocation: sourceLocation
        )
    }

    /// Runs `executable` and waits for it (killing it after `timeout`).
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        input: Data? = nil,
        timeout: TimeInterval = timeout,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Result {
        // The deadline bounds the exit; the output then has 10 s more to end (a grandchild may hold the pipes).
        let finished = try ChildProcess(executable, arguments, environment: environment, input: input)
            .waitForExit(timeout: timeout, outputGrace: 10)
        let timedOut = finished.timedOut
        let result = Result(
            status: finished.status,
            stdout: finished.stdout,
            stderr: finished.stderr,
            stdoutData: finished.stdoutData,
            timedOut: timedOut,
            duration: finished.duration
        )
        #expect(
            !timedOut,
            "\(executable) \(arguments.first ?? "") did not finish in \(timeout) s",
            sourceLocation: sourceLocation
        )
        return result
    }

    /// A keychain made in-process with the test passphrase and the cheap KDF.
    public static func keychain() throws -> TemporaryKeychain {
        let keychain = TemporaryKeychain()
        _ = try keychain.open()
        return keychain
    }
}
