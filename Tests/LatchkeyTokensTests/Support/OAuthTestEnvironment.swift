import Foundation
import Testing

/// Where the test servers' scripts and interpreters are: the single place that decides whether the real
/// OAuth server can run.
enum OAuthTestEnvironment {
    /// The package root (three levels above this file: Tests/LatchkeyTokensTests/Support).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The environment variable naming the Python that has django-oauth-toolkit installed.
    static let pythonVariable = "LATCHKEY_OAUTH_PYTHON"

    /// The virtual environment's Python for the real server: `$LATCHKEY_OAUTH_PYTHON`, else
    /// `<package root>/.venv-oauth/bin/python` (what `.ci/run` creates); `nil` when neither exists.
    static let serverPython: String? = {
        if let configured = ProcessInfo.processInfo.environment[pythonVariable], !configured.isEmpty {
            return FileManager.default.isExecutableFile(atPath: configured) ? configured : nil
        }
        let venv = packageRoot.appendingPathComponent(".venv-oauth/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : nil
    }()

    /// Why the real-server tests fail when the server's Python is missing, and how to provide it.
    static let missingServerMessage = """
        The real OAuth server tests need a Python with django-oauth-toolkit, and none was found \
        ($\(pythonVariable) names no executable or, when it is unset, there is no \
        .venv-oauth/bin/python under the package root). \
        Create it with `python3 -m venv .venv-oauth && .venv-oauth/bin/pip install \
        "django-oauth-toolkit==3.4.1" "oauthlib==3.3.1"` (as .ci/run does) or set \(pythonVariable).
        """

    /// Any Python 3 for the stub server (standard library only): the server's, else `python3` on `PATH`.
    static let anyPython: String? = {
        if let serverPython { return serverPython }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    /// A script in `scripts/oauth-server/`.
    static func script(_ name: String) -> String {
        packageRoot.appendingPathComponent("scripts/oauth-server/\(name)").path
    }

    /// The built `latchkey-token-peer` executable, next to the test bundle.
    static var peerExecutable: String {
        let name = "latchkey-token-peer"
        var candidates: [URL] = [URL(fileURLWithPath: Bundle.main.bundlePath)]
        if let first = CommandLine.arguments.first { candidates.append(URL(fileURLWithPath: first)) }
        for start in candidates {
            var directory = start
            for _ in 0..<5 {
                let candidate = directory.appendingPathComponent(name).path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                directory.deleteLastPathComponent()
            }
        }
        return packageRoot.appendingPathComponent(".build/debug/\(name)").path
    }
}
