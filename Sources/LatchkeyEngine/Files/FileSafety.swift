import Foundation

/// Permission rules for keychain files: directories 0700, files 0600, owned by the current user.
enum FileSafety {
    /// Creates `directory` (and its parents) with mode 0700 when missing.
    static func ensurePrivateDirectory(_ directory: String) throws(KeychainError) {
        var info = stat()
        if stat(directory, &info) == 0 { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw KeychainError(.io, "Cannot create the directory \(directory).")
        }
    }

    /// Fails when the keychain file (or its directory) can be read or written by other users.
    static func checkPrivate(file path: String) throws(KeychainError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw KeychainError(.io, "Cannot inspect \(path): \(String(cString: strerror(errno))).")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFDIR ? "a directory" : "not a regular file"
            throw KeychainError(.param, "\(path) is \(what), not a keychain file; name the keychain file itself.")
        }
        guard info.st_uid == geteuid() else {
            throw KeychainError(
                .notAvailable,
                "\(path) belongs to another user (uid \(info.st_uid)); refusing to use it."
            )
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw KeychainError(
                .notAvailable,
                "\(path) can be accessed by other users (mode \(String(mode, radix: 8))); run: chmod 600 \(path)"
            )
        }
        let directory = (path as NSString).deletingLastPathComponent
        var directoryInfo = stat()
        if stat(directory.isEmpty ? "." : directory, &directoryInfo) == 0 {
            let sticky = directoryInfo.st_mode & UInt32(S_ISVTX) != 0
            if directoryInfo.st_mode & 0o022 != 0 && !sticky {
                throw KeychainError(
                    .notAvailable,
                    "\(directory) can be written by other users, who could replace the keychain; run: chmod 700 \(directory)"
                )
            }
        }
    }
}
