import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The agent's listening socket and the lock that makes it the only agent on that socket.
///
/// Claiming the socket: the directory is created with mode 0700 (and must belong to the user); an
/// exclusive `flock` on `agent.lock` beside the socket is taken for the agent's lifetime, so two agents
/// starting at once cannot both win; a socket file that still answers means another agent runs (refused),
/// one that nobody answers is stale and removed; the new socket is bound with mode 0600.
///
/// Under systemd socket activation (`LISTEN_PID` is this process and `LISTEN_FDS` ≥ 1) the agent takes the
/// listening socket systemd passes as descriptor 3 instead, after checking it is a listening Unix stream
/// socket bound to `path`; that socket belongs to systemd and is left in place at exit.
struct AgentListener: Sendable {
    /// The listening descriptor.
    let descriptor: Int32
    /// The socket file.
    let path: String
    /// The socket file's inode, so that only this agent's file is removed at exit; `nil` for a socket
    /// systemd passed, which stays.
    let inode: UInt64?
    /// The `agent.lock` descriptor, held for the agent's lifetime.
    let lockDescriptor: Int32

    /// Claims `path` and listens on it.
    ///
    /// - Throws: `KeychainError.Code.duplicateItem` when another agent runs there, `.notAvailable` for a
    ///   directory of another user, `.io` for any system failure.
    static func claim(
        _ path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeychainError) -> AgentListener {
        let directory = (path as NSString).deletingLastPathComponent
        try preparePrivateDirectory(directory)
        let lockDescriptor = open(directory + "/agent.lock", O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lockDescriptor >= 0 else {
            throw KeychainError(.io, "Cannot open \(directory)/agent.lock: \(String(cString: strerror(errno))).")
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            Glibc.close(lockDescriptor)
            if code == EWOULDBLOCK {
                throw KeychainError(.duplicateItem, "Another latchkey agent already runs on \(path).")
            }
            throw KeychainError(.io, "Cannot lock \(directory)/agent.lock: \(String(cString: strerror(code))).")
        }
        do {
            if let inherited = try activatedSocket(path, environment: environment) {
                return AgentListener(descriptor: inherited, path: path, inode: nil, lockDescriptor: lockDescriptor)
            }
            try removeStaleSocket(path)
            let (descriptor, inode) = try bindAndListen(path)
            return AgentListener(descriptor: descriptor, path: path, inode: inode, lockDescriptor: lockDescriptor)
        } catch {
            Glibc.close(lockDescriptor)
            throw error
        }
    }

    /// Stops listening, removes the socket file when it is still this agent's (not systemd's), and releases
    /// the lock.
    func close() {
        var info = stat()
        if let inode {
            if lstat(path, &info) == 0, UInt64(info.st_ino) == inode { unlink(path) }
            // Wakes the accepting thread; never done to systemd's socket, which it shares and keeps.
            shutdown(descriptor, Int32(SHUT_RDWR))
        }
        Glibc.close(descriptor)
        Glibc.close(lockDescriptor)
    }

    private static func preparePrivateDirectory(_ directory: String) throws(KeychainError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw KeychainError(.io, "Cannot create \(directory): \(String(cString: strerror(errno))).")
        }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw KeychainError(.io, "\(directory) is not a directory.")
        }
        guard info.st_uid == geteuid() else {
            throw KeychainError(
                .notAvailable,
                "\(directory) belongs to another user (uid \(info.st_uid)); refusing it."
            )
        }
        if info.st_mode & 0o077 != 0, chmod(directory, 0o700) != 0 {
            throw KeychainError(.io, "Cannot make \(directory) private (chmod 700).")
        }
    }

    /// The listening socket systemd passed (descriptor 3), or `nil` when the agent was not socket-activated.
    private static func activatedSocket(
        _ path: String,
        environment: [String: String]
    ) throws(KeychainError) -> Int32? {
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1
        else { return nil }
        let descriptor: Int32 = 3
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else {
            throw KeychainError(.io, "The socket systemd passed (descriptor 3) is not a listening socket.")
        }
        guard let bound = boundPath(descriptor), AgentLocation.canonical(bound) == AgentLocation.canonical(path) else {
            throw KeychainError(
                .io,
                "The socket systemd passed is not bound to \(path), where clients look for the agent; "
                    + "set ListenStream=%t/latchkey/agent.sock in the socket unit."
            )
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    /// The path a Unix socket is bound to.
    private static func boundPath(_ descriptor: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        return withUnsafeBytes(of: &address.sun_path) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func removeStaleSocket(_ path: String) throws(KeychainError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw KeychainError(
                .io,
                "\(path) exists and is not a socket; remove it or choose another runtime directory."
            )
        }
        do {
            let probe = try UnixSocket.connect(to: path)
            Glibc.close(probe)
            throw KeychainError(.duplicateItem, "Another latchkey agent already answers on \(path).")
        } catch let failure as UnixSocket.Failure where failure.meansNoListener {
            guard unlink(path) == 0 || errno == ENOENT else {
                throw KeychainError(.io, "Cannot remove the stale socket \(path): \(String(cString: strerror(errno))).")
            }
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.io, "Cannot probe \(path): \(error).")
        }
    }

    private static func bindAndListen(_ path: String) throws(KeychainError) -> (Int32, UInt64) {
        let descriptor: Int32
        do {
            descriptor = try UnixSocket.make()
        } catch {
            throw KeychainError(.io, "Cannot make the agent's socket: \(error).")
        }
        let previousMask = umask(0o177)
        let bound: Int32
        do {
            bound = try UnixSocket.withAddress(path) { address, length in bind(descriptor, address, length) }
        } catch {
            umask(previousMask)
            Glibc.close(descriptor)
            throw KeychainError(.io, "Cannot bind the agent's socket: \(error).")
        }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            Glibc.close(descriptor)
            throw KeychainError(.io, "Cannot bind \(path): \(String(cString: strerror(bindError))).")
        }
        var info = stat()
        guard chmod(path, 0o600) == 0, lstat(path, &info) == 0, listen(descriptor, 128) == 0 else {
            let code = errno
            unlink(path)
            Glibc.close(descriptor)
            throw KeychainError(.io, "Cannot listen on \(path): \(String(cString: strerror(code))).")
        }
        return (descriptor, UInt64(info.st_ino))
    }
}
