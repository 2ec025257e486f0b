import CLatchkeyAgent
import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// Who is on the other end of an accepted connection, as the kernel says: the process id, user id and
/// group id recorded at `connect` (`SO_PEERCRED`), and the executable of that process (`/proc/<pid>/exe`).
///
/// The executable is read after the connection is accepted; a process that replaced its image with
/// `execve` in between is seen as its new executable, and a same-user process can always make another
/// executable connect on its behalf (docs/agent.md, "What the agent cannot stop").
public struct PeerIdentity: Sendable, Hashable {
    /// The peer's process id.
    public var process: Int32
    /// The peer's user id.
    public var user: UInt32
    /// The peer's group id.
    public var group: UInt32
    /// The peer's executable, absolute and symlink-free, or `nil` when it could not be read.
    public var executable: String?

    /// Makes an identity.
    public init(process: Int32, user: UInt32, group: UInt32, executable: String?) {
        self.process = process
        self.user = user
        self.group = group
        self.executable = executable
    }

    /// The identity of the peer of the connected Unix socket `descriptor`.
    ///
    /// - Throws: `KeychainError.Code.io` when the kernel does not give the peer's credentials.
    public static func of(connection descriptor: Int32) throws(KeychainError) -> PeerIdentity {
        var process: pid_t = 0
        var user: uid_t = 0
        var group: gid_t = 0
        guard latchkey_peer_credentials(descriptor, &process, &user, &group) == 0 else {
            throw KeychainError(.io, "The kernel gave no peer credentials: \(String(cString: strerror(errno))).")
        }
        return PeerIdentity(process: process, user: user, group: group, executable: executable(of: process))
    }

    /// The executable of process `pid` (`/proc/<pid>/exe`, without the ` (deleted)` mark of a replaced
    /// file), or `nil` when it cannot be read. This names the program for limits and logs; the identity that
    /// decides access is `ApplicationIdentity`, which refuses a deleted or replaced executable.
    public static func executable(of process: Int32) -> String? {
        guard let path = executableLink(of: process) else { return nil }
        let deleted = " (deleted)"
        return path.hasSuffix(deleted) ? String(path.dropLast(deleted.count)) : path
    }

    /// The target of `/proc/<pid>/exe` as the kernel gives it (with ` (deleted)` when the file was removed),
    /// or `nil` when it cannot be read.
    static func executableLink(of process: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(process)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
