import Crypto
import Foundation
import LatchkeyCrypto

#if canImport(Glibc)
import Glibc
#endif

/// The per-machine secret that binds ThisDeviceOnly classes (and the passphrase-free `always` classes)
/// to this machine and user.
///
/// It is 32 random bytes in a 0600 file outside the keychain's directory, mixed with `/etc/machine-id`
/// when that file exists, so that a keychain file copied or restored elsewhere cannot open these classes.
///
/// The file appears complete or not at all: it is written under a temporary name, `fsync`ed, renamed into
/// place and its directory `fsync`ed. First use is serialised by an exclusive `flock` on `<file>.lock`
/// beside it, and the file is looked for again once the lock is held, so processes starting together on a
/// fresh machine all end up with the same secret. A file of any other length than 32 bytes is damage
/// (never "no device secret yet"): it is reported, not replaced.
enum DeviceSecret {
    /// The secret file's length.
    static let length = 32

    /// Loads the secret at `path`, creating it on first use.
    ///
    /// - Throws: `KeychainError.Code.decode` when the file exists with another length than 32 bytes (the
    ///   message says how to recover); `.io` when it can be neither read nor created.
    static func load(path: String) throws(KeychainError) -> SymmetricKey {
        let raw: [UInt8]
        if let existing = try read(path) {
            raw = existing
        } else {
            raw = try create(path)
        }
        let machineID = FileManager.default.contents(atPath: "/etc/machine-id") ?? Data()
        return KeyWrap.derive(from: SymmetricKey(data: raw), salt: machineID, label: "latchkey device secret v1")
    }

    /// The file's 32 bytes, or `nil` when it does not exist.
    private static func read(_ path: String) throws(KeychainError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw KeychainError(.io, "Cannot read the device secret \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: length + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes[count...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else {
                throw KeychainError(.io, "Cannot read the device secret \(path): \(String(cString: strerror(errno))).")
            }
            if got == 0 { break }
            count += got
        }
        guard count == length else {
            var info = stat()
            let size = fstat(descriptor, &info) == 0 ? Int(info.st_size) : count
            throw KeychainError(
                .decode,
                "The device secret \(path) is damaged (\(size) bytes, expected \(length)). Restore it from a "
                    + "backup; or, if no keychain has used it yet (an interrupted first use), remove it and retry. "
                    + "Without it, ThisDeviceOnly items cannot be opened."
            )
        }
        let secret = Array(bytes[0..<length])
        for index in bytes.indices { bytes[index] = 0 }
        return secret
    }

    /// Creates the file under the lock beside it, unless another process did first; returns its bytes.
    private static func create(_ path: String) throws(KeychainError) -> [UInt8] {
        let directory = (path as NSString).deletingLastPathComponent
        try FileSafety.ensurePrivateDirectory(directory.isEmpty ? "." : directory)
        let lock = open(path + ".lock", O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else { throw failure("create the lock file for", path) }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("lock", path) }
        }
        // Another process may have created it while this one waited for the lock.
        if let existing = try read(path) { return existing }
        let bytes = [UInt8](SecureRandom.bytes(length))
        let temporary = path + ".new"
        let descriptor = open(temporary, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("write", temporary)
                close(descriptor)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let error = failure("sync", temporary)
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard close(descriptor) == 0 else {
            let error = failure("write", temporary)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("rename \(temporary) to", path)
            unlink(temporary)
            throw error
        }
        try syncDirectory(directory.isEmpty ? "." : directory)
        return bytes
    }

    /// Makes a rename in `directory` durable.
    private static func syncDirectory(_ directory: String) throws(KeychainError) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open the directory", directory) }
        defer { close(descriptor) }
        // EINVAL: the file system cannot sync directories (its renames are synchronous or unsupported).
        guard fsync(descriptor) == 0 || errno == EINVAL else { throw failure("sync the directory", directory) }
    }

    private static func failure(_ action: String, _ path: String) -> KeychainError {
        KeychainError(.io, "Cannot \(action) the device secret \(path): \(String(cString: strerror(errno))).")
    }
}
