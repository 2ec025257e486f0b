import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the per-user agent's socket lives: `$XDG_RUNTIME_DIR/latchkey/agent.sock`.
///
/// The runtime directory is `$XDG_RUNTIME_DIR` (set by the login session, mode 0700, removed at logout),
/// else `/run/user/<uid>` when it exists and belongs to the user. Without either there is no agent: clients
/// open the keychain in process and `latchkey agent` refuses to start.
public enum AgentLocation {
    /// The per-user runtime directory, or `nil` when the session has none.
    public static func runtimeDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let explicit = environment["XDG_RUNTIME_DIR"], explicit.hasPrefix("/") { return explicit }
        let candidate = "/run/user/\(geteuid())"
        var info = stat()
        guard stat(candidate, &info) == 0, info.st_uid == geteuid(), info.st_mode & S_IFMT == S_IFDIR else {
            return nil
        }
        return candidate
    }

    /// The agent's private directory, `<runtime directory>/latchkey` (mode 0700), or `nil` without a
    /// runtime directory.
    public static func socketDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        runtimeDirectory(environment: environment).map { $0 + "/latchkey" }
    }

    /// The agent's socket, `<runtime directory>/latchkey/agent.sock` (mode 0600), or `nil` without a
    /// runtime directory.
    public static func socketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        socketDirectory(environment: environment).map { $0 + "/agent.sock" }
    }

    /// The absolute, symlink-free form of `path` when it exists (the form the agent reports its keychain
    /// in), else `path` made absolute and standardized.
    public static func canonical(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let absolute =
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath
    }
}
