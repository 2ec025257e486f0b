import Foundation
import Testing

/// External programs the tests drive ("peers": `openssl`, the `sqlite3` shell, Python with `cryptography`).
///
/// A test never skips or returns early when its peer is missing: it fails, naming the Debian package
/// that provides the peer. `.ci/run` installs every peer.
///
/// ```swift
/// let sqlite3 = try Peer.require("sqlite3", package: "sqlite3")
/// ```
enum Peer {
    /// Where `tool` is: itself when it is a path, else the first executable of that name on `PATH`
    /// (then `/usr/bin`, `/bin`, `/usr/sbin`, `/sbin`); `nil` when none is executable.
    static func path(of tool: String) -> String? {
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
    /// - Throws: The failed requirement when the peer is missing.
    static func require(
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
    static func debianPackage(of tool: String) -> String {
        switch URL(fileURLWithPath: tool).lastPathComponent {
        case "sh": "dash"
        case "python", "python3": "python3 python3-venv (then run .ci/run, which makes .venv-oauth)"
        default: URL(fileURLWithPath: tool).lastPathComponent
        }
    }
}
