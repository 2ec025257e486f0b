import Crypto
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 digests of executables and scripts, for grants pinned to a file's content.
///
/// A digest is cached by the file's device, inode, size, modification and status-change times, so a large
/// executable is hashed once rather than on every connection: any write to the file moves its `mtime` and
/// `ctime`, a replacement (rename over it) changes its inode, so either misses the cache and is hashed again.
public final class ContentHashes: Sendable {
    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        static func == (lhs: FileKey, rhs: FileKey) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(device)
            hasher.combine(inode)
            hasher.combine(size)
            hasher.combine(modified.tv_sec)
            hasher.combine(modified.tv_nsec)
        }

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.st_mtim
            changed = info.st_ctim
        }
    }

    private let cache = Mutex<[FileKey: String]>([:])
    private let computed = Atomic<Int>(0)

    /// Makes an empty cache.
    public init() {}

    /// How many files were actually read and hashed (not answered from the cache).
    public var hashedFiles: Int { computed.load(ordering: .relaxed) }

    /// The lowercase hexadecimal SHA-256 of the regular file at `path`, or `nil` when it cannot be read.
    public func digest(ofFile path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var before = stat()
        guard fstat(descriptor, &before) == 0, before.st_mode & S_IFMT == S_IFREG else { return nil }
        let key = FileKey(before)
        if let known = cache.withLock({ $0[key] }) { return known }
        var hasher = SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            chunk.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        let digest = hasher.finalize().lowercaseHex
        computed.wrappingAdd(1, ordering: .relaxed)
        var after = stat()
        // A file written while it was read gets no cache entry (its next use hashes it again).
        if fstat(descriptor, &after) == 0, FileKey(after) == key {
            cache.withLock { cache in
                if cache.count > 4096 { cache.removeAll() }
                cache[key] = digest
            }
        }
        return digest
    }
}
