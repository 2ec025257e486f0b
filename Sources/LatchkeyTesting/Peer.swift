import Foundation
import Testing

/// External programs the tests drive ("peers": `git`, `setpriv`, `openssl`, the `sqlite3` shell, Python).
///
/// A test never skips or returns early when its peer is missing: it fails, naming the Debian package
/// that provides the peer. `.ci/run` installs every peer.
///
/// ```swift
/// let git = try Peer.require("git", package: "git")
/// ```
public enum Peer {
    /// Where `tool` is: itself when it is a path, else the first executable of that name on `PATH`
    /// (then `/usr/bin`, `/bin`, `/usr/sbin`, `/sbin`); `nil` when none is executable.
    ///
    /// - Parameter tool: A program name or a path.
    /// - Returns: The program's path, or `nil` when it is missing.
    public static func path(of tool: String) -> String? {
        if tool.contains("/") { return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil }
        let searched = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in searched + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] where !directory.isEmpty {
            let candidate = directory + "/" + tool
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The path of `tool`; when it is missing, the test fails here with "peer `tool` missing: install
    /// `package`".
    ///
    /// - Parameters:
    ///   - tool: A program name (searched as `path(of:)` does) or an absolute path.
    ///   - package: The Debian package that provides it.
    ///   - sourceLocation: Where the failure is reported (default: the caller).
    /// - Returns: The program's path.
    /// - Throws: The failed requirement when the peer is missing.
    public static func require(
        _ tool: String,
        package: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        try #require(
            path(of: tool),
            Comment(
                rawValue: "peer \(tool) missing: install the Debian package \(package) "
                    + "(apt-get install -y \(package); .ci/run installs every peer)"
            ),
            sourceLocation: sourceLocation
        )
    }

    /// The Debian package that provides `tool` (its name for tools not listed).
    ///
    /// - Parameter tool: A program name or a path.
    public static func debianPackage(of tool: String) -> String {
        switch URL(fileURLWithPath: tool).lastPathComponent {
        case "sh": "dash"
        case "python", "python3": "python3 python3-venv (then run .ci/run, which makes .venv-oauth)"
        default: URL(fileURLWithPath: tool).lastPathComponent
        }
    }
}
