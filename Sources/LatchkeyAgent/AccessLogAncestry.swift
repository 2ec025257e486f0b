import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process's parent chain as the access log shows it (`code → node → secret-tool`): each process's
/// executable file name (`/proc/<pid>/exe`, else the kernel's `comm` for a process whose executable cannot be
/// read), following the parent ids in `/proc/<pid>/stat`, up to 8 names and never `init` (pid 1).
///
/// It is read once per connection or Secret Service caller, never per request. The names are what the kernel
/// says now: a parent that exited is not shown (the chain then stops at the process that adopted it).
enum AccessLogAncestry {
    /// How many names at most, the process itself included.
    static let maximumDepth = 8

    /// The chain of `process`, oldest first, ending with `process` itself.
    static func names(of process: Int32) -> [String] {
        var names: [String] = []
        var current = process
        var seen: Set<Int32> = []
        while current > 1, names.count < maximumDepth, seen.insert(current).inserted {
            guard let (comm, parent) = stat(of: current) else { break }
            names.append(executableName(of: current) ?? comm)
            current = parent
        }
        return names.reversed()
    }

    /// The file name of the executable of `process`, when it can be read.
    private static func executableName(of process: Int32) -> String? {
        guard let path = PeerIdentity.executable(of: process) else { return nil }
        let name = (path as NSString).lastPathComponent
        return name.isEmpty ? nil : name
    }

    /// The `comm` and parent id in `/proc/<pid>/stat` (`pid (comm) state ppid …`; `comm` may hold spaces and
    /// parentheses, so the last `)` ends it).
    private static func stat(of process: Int32) -> (String, Int32)? {
        let descriptor = open("/proc/\(process)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let bytes = buffer[0..<count]
        guard let first = bytes.firstIndex(of: UInt8(ascii: "(")), let last = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        let comm = String(decoding: bytes[(first + 1)..<last], as: UTF8.self)
        let fields = bytes[(last + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2, let parent = Int32(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return (comm, parent)
    }
}
