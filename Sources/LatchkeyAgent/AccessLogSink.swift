import Crypto
import Foundation
import Latchkey
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The writer thread's side of the access log: the open current file, its segment's session key and entry
/// counter, and rotation. Used by one thread only (`AccessLogWriter`).
final class AccessLogSink {
    private let files: AccessLogFiles
    private let limit: Int
    private let logger: Logger
    private var descriptor: Int32 = -1
    private var size = 0
    private var session: SymmetricKey?
    private var counter: UInt64 = 0
    private var entriesInFile = 0
    private var failing = false

    /// A sink writing `files`, rotating past `limit` bytes.
    init(files: AccessLogFiles, limit: Int, logger: Logger) {
        self.files = files
        self.limit = limit
        self.logger = logger
    }

    /// Seals and appends `entries` (one `write` per batch, plus one per rotation).
    func write(_ entries: [AccessLogEntry], to publicKey: Curve25519.KeyAgreement.PublicKey) {
        do throws(KeychainError) {
            if descriptor < 0 { try open(publicKey) }
            var pending = Data()
            for entry in entries {
                let plaintext = entry.encoded()
                guard let key = session else { return }
                var record = try AccessLogFormat.sealEntry(plaintext, key: key, counter: counter)
                if entriesInFile > 0 && size + pending.count + record.count > limit {
                    try append(pending)
                    pending.removeAll()
                    try rotate(publicKey)
                    guard let fresh = session else { return }
                    record = try AccessLogFormat.sealEntry(plaintext, key: fresh, counter: counter)
                }
                pending.append(record)
                counter += 1
                entriesInFile += 1
            }
            try append(pending)
            failing = false
        } catch {
            if !failing {
                logger.error("access log not written", metadata: ["error": "\(error.message)"])
                failing = true
            }
            close()
        }
    }

    /// Flushes and closes the current file.
    func close() {
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = Glibc.close(descriptor)
        descriptor = -1
        session = nil
    }

    /// Opens the current file for appending and starts a segment in it.
    private func open(_ publicKey: Curve25519.KeyAgreement.PublicKey) throws(KeychainError) {
        let opened = Glibc.open(files.currentPath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard opened >= 0 else { throw Self.failure("open", files.currentPath) }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG, fchmod(opened, 0o600) == 0 else {
            _ = Glibc.close(opened)
            throw Self.failure("check", files.currentPath)
        }
        descriptor = opened
        size = Int(info.st_size)
        entriesInFile = size > 0 ? 1 : 0  // an existing file rotates as soon as it is full
        let (header, key) = try AccessLogFormat.newSegment(for: publicKey)
        try append(header)
        session = key
        counter = 0
    }

    /// Renames the current file over the rotated one and starts a new file with a new segment.
    private func rotate(_ publicKey: Curve25519.KeyAgreement.PublicKey) throws(KeychainError) {
        close()
        guard rename(files.currentPath, files.rotatedPath) == 0 else { throw Self.failure("rotate", files.currentPath) }
        entriesInFile = 0
        try open(publicKey)
        entriesInFile = 0
    }

    private func append(_ bytes: Data) throws(KeychainError) {
        guard !bytes.isEmpty else { return }
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            guard var pointer = buffer.baseAddress else { return true }
            var left = buffer.count
            while left > 0 {
                let count = Glibc.write(descriptor, pointer, left)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                pointer += count
                left -= count
            }
            return true
        }
        guard written else { throw Self.failure("write", files.currentPath) }
        size += bytes.count
    }

    private static func failure(_ step: String, _ path: String) -> KeychainError {
        KeychainError(.io, "Cannot \(step) the access log \(path): \(String(cString: strerror(errno))).")
    }
}
