import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The agent's state file, `agent.state` beside its socket: rewritten (replaced atomically) by the agent on
/// every lock change and after every write it commits, so that clients learn of both through inotify,
/// without polling and without a connection per observer.
///
/// It holds no secret and no attribute value, only what any client may ask the agent anyway:
///
/// ```json
/// {"agentProcess":4242,"changeCounter":17,"lockState":"unlocked","version":1}
/// ```
///
/// Clients treat a replacement of the file as a wake-up only: they then ask the agent itself (`.lockState`,
/// `.changeCounter`) over their connection, so a stale file (left by an agent killed with SIGKILL) or one
/// written by someone else never decides a lock state.
package enum AgentStateFile {
    /// The file's name in the agent's runtime directory.
    package static let name = "agent.state"

    /// The state file of the agent listening on `socketPath`.
    package static func path(forSocket socketPath: String) -> String {
        URL(fileURLWithPath: socketPath).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Replaces the state file of the agent on `socketPath` with the given state: a temporary file (mode
    /// 0600) renamed over it. No `fsync`: the file lives in the runtime directory and only wakes observers.
    ///
    /// - Throws: `KeychainError.Code.io` naming the file when it cannot be written.
    package static func write(
        lockState: LockState,
        changeCounter: Int64?,
        agentProcess: Int32,
        socketPath: String
    ) throws(KeychainError) {
        let target = path(forSocket: socketPath)
        var fields = ["\"agentProcess\":\(agentProcess)"]
        if let changeCounter { fields.append("\"changeCounter\":\(changeCounter)") }
        fields.append("\"lockState\":\"\(lockState.rawValue)\"")
        fields.append("\"version\":1")
        let bytes = Array(("{" + fields.joined(separator: ",") + "}\n").utf8)
        let temporary = target + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else {
            unlink(temporary)
            throw failure("write", temporary)
        }
        guard rename(temporary, target) == 0 else {
            let error = failure("replace", target)
            unlink(temporary)
            throw error
        }
    }

    /// Removes the state file of the agent on `socketPath` (at a clean stop); a missing file is fine.
    package static func remove(socketPath: String) {
        unlink(path(forSocket: socketPath))
    }

    private static func failure(_ action: String, _ path: String) -> KeychainError {
        KeychainError(.io, "Cannot \(action) the agent's state file \(path): \(String(cString: strerror(errno))).")
    }
}
