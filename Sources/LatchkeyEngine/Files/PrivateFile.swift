import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Small private files written atomically (the agent's access policy and its remembered keychain states).
package enum PrivateFile {
    /// Replaces `path` with `data` atomically: its directory created 0700 when missing, a temporary file
    /// (mode 0600) beside it, `fsync`, `rename`, then `fsync` of the directory.
    ///
    /// - Parameters:
    ///   - what: What the file holds, for error messages ("the access policy").
    ///   - durable: `false` leaves out both `fsync` calls: the replacement is still atomic and survives the
    ///     writer being killed (it is in the page cache), but an operating-system crash or power loss may
    ///     bring back the previous file, or an empty one, which readers must tolerate.
    /// - Throws: `KeychainError.Code.io` when any step fails (the previous file is then left as it was).
    package static func write(
        _ data: Data,
        to path: String,
        holding what: String,
        durable: Bool = true
    ) throws(KeychainError) {
        let directory = (path as NSString).deletingLastPathComponent
        try FileSafety.ensurePrivateDirectory(directory.isEmpty ? "." : directory)
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "Cannot create \(temporary): \(String(cString: strerror(errno))).")
        }
        let bytes = [UInt8](data)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Glibc.write(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        let synced =
            offset == bytes.count && fchmod(descriptor, 0o600) == 0 && (!durable || fsync(descriptor) == 0)
        close(descriptor)
        guard synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw KeychainError(.io, "Cannot write \(what) \(path).")
        }
        guard durable else { return }
        let directoryDescriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { return }
        defer { close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else {
            throw KeychainError(.io, "Cannot make the rename of \(path) durable.")
        }
    }
}
