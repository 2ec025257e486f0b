import Foundation
import Latchkey
import LatchkeyTesting

/// Locates and runs the `latchkey` executable built next to the test bundle.
public enum BuiltExecutable {
    /// The path of the built `latchkey` binary (same build directory as the tests).
    public static var latchkey: String {
        let bundle = Bundle.main.bundlePath
        var directory = URL(fileURLWithPath: bundle)
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("latchkey").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        if let fromArguments = CommandLine.arguments.first.map({ URL(fileURLWithPath: $0).deletingLastPathComponent() })
        {
            var dir = fromArguments
            for _ in 0..<4 {
                let candidate = dir.appendingPathComponent("latchkey").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                dir.deleteLastPathComponent()
            }
        }
        return ".build/debug/latchkey"
    }

    /// The access group the agent gives the built `latchkey`: its resolved absolute path.
    public static var latchkeyGroup: String { AgentLocation.canonical(latchkey) }

    /// The result of a finished process.
    public struct Output {
        /// The exit status.
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: String
        /// Everything written to standard error.
        public var stderr: String
    }

    /// Starts `latchkey` (or `executable`, e.g. `setpriv` wrapping it) without waiting for it.
    ///
    /// - Parameters:
    ///   - arguments: The command line after the executable's name.
    ///   - environment: The child's whole environment.
    ///   - input: Written on the child's standard input, which is then closed (a pipe, never a terminal).
    ///   - executable: The program to run; `nil` for the built `latchkey`.
    /// - Returns: The running child, whose output is collected as it arrives.
    public static func spawn(
        _ arguments: [String],
        environment: [String: String],
        input: String? = nil,
        executable: String? = nil
    ) throws -> ChildProcess {
        try ChildProcess(
            executable ?? latchkey,
            arguments,
            environment: environment,
            input: input.map { Data($0.utf8) }
        )
    }

    /// Runs `latchkey` with `arguments`, feeding `input` on standard input, and waits for it.
    public static func run(
        _ arguments: [String],
        environment: [String: String],
        input: String? = nil
    ) throws -> Output {
        let finished = try spawn(arguments, environment: environment, input: input).waitForExit(timeout: nil)
        return Output(status: finished.status, stdout: finished.stdout, stderr: finished.stderr)
    }
}
