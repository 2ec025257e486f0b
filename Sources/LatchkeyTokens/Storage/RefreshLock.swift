import Foundation
import Latchkey
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cross-process lock around refreshes, sign-ins and logouts: `flock(2)` on a sidecar file next to
/// the keychain (`<keychain>.tokens.lock`, mode 0600, empty).
///
/// Every process using the same keychain file uses the same lock file, so exactly one of them refreshes
/// at a time and the others, once they get the lock, re-read the stored result. `flock` locks belong to
/// an open file description, so two `TokenManager`s in one process exclude each other too. The kernel
/// releases the lock when its holder exits or crashes.
///
/// Acquiring blocks in `flock` on the core's blocking-work queue (`BlockingWork`): never on the caller's
/// executor.
final class RefreshLock: Sendable {
    /// The lock file's descriptor while held (-1 once released); closing it releases the lock.
    private let descriptor: Mutex<Int32>

    private init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// Releases the lock (idempotent). Call it explicitly: relying on `deinit` would let ARC release the
    /// lock as soon as the value is no longer used, which may be before the protected work ends.
    func release() {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    /// The lock file of the keychain at `keychainPath`.
    static func path(forKeychain keychainPath: String) -> String {
        keychainPath + ".tokens.lock"
    }

    /// Waits for the lock on `path` (creating the file, mode 0600, if needed) off the caller's executor.
    ///
    /// - Throws: `TokenError.Code.keychain` when the lock file cannot be opened or locked.
    static func acquire(path: String) async throws(TokenError) -> RefreshLock {
        try await BlockingWork.run { () throws(TokenError) in try acquireBlocking(path: path) }
    }

    /// Takes the lock on the calling thread, blocking until it is free.
    static func acquireBlocking(path: String) throws(TokenError) -> RefreshLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw TokenError(
                .keychain,
                "The token lock file next to the keychain cannot be opened (errno \(errno)); check the directory's permissions."
            )
        }
        while flock(descriptor, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            throw TokenError(.keychain, "The token lock file next to the keychain cannot be locked (errno \(code)).")
        }
        return RefreshLock(descriptor: descriptor)
    }

    deinit {
        release()
    }
}
