import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Unix stream sockets by path, for the agent and its clients (blocking POSIX calls, close-on-exec).
package enum UnixSocket {
    /// Why a socket could not be made, connected or bound.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The path does not fit in `sockaddr_un` (108 bytes with its terminating zero).
        case pathTooLong(String)
        /// A system call failed with this `errno`: `ENOENT` (no socket file) and `ECONNREFUSED` (a file
        /// nobody listens on) mean no agent answers.
        case system(call: String, code: Int32)

        /// Whether the failure means "nobody listens there" rather than a real error.
        package var meansNoListener: Bool {
            if case .system(_, let code) = self { return code == ENOENT || code == ECONNREFUSED }
            return false
        }

        /// What failed, naming the call and the system's text.
        package var description: String {
            switch self {
            case .pathTooLong(let path): "the socket path \(path) is longer than a Unix socket address allows"
            case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    /// A new, unconnected stream socket.
    package static func make() throws(Failure) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system(call: "socket", code: errno) }
        return descriptor
    }

    /// Connects to the socket at `path`; returns the connected descriptor.
    package static func connect(to path: String) throws(Failure) -> Int32 {
        let descriptor = try make()
        let result = try withAddress(path) { address, length in Glibc.connect(descriptor, address, length) }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw .system(call: "connect", code: code)
        }
        return descriptor
    }

    /// Calls `body` with a `sockaddr_un` for `path` and its length.
    package static func withAddress<T>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) throws(Failure) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
