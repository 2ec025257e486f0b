import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The CLI's small settings file, `<data directory>/keychains.json`: the default keychain and the search list.
///
/// `$LATCHKEY_KEYCHAIN` always wins over the file's default. The file holds paths only, never secrets.
struct KeychainConfig: Codable, Equatable {
    /// The default keychain's path, when one was set with `default-keychain -s`.
    var defaultKeychain: String?
    /// The keychains `list-keychains` shows, in order.
    var searchList: [String] = []

    /// The settings file's path.
    static var path: String { KeychainLocation.dataDirectory() + "/keychains.json" }

    /// The login keychain's path in the data directory.
    static var loginKeychain: String { KeychainLocation.dataDirectory() + "/login.keychain-db" }

    /// Reads the settings; a missing or unreadable file reads as empty settings.
    static func load() -> KeychainConfig {
        guard let data = FileManager.default.contents(atPath: path),
            let config = try? JSONDecoder().decode(KeychainConfig.self, from: data)
        else { return KeychainConfig() }
        return config
    }

    /// Writes the settings atomically (mode 0600 in a 0700 directory).
    func save() throws {
        let directory = KeychainLocation.dataDirectory()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try FileManager.default.createDirectory(
                atPath: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            let data = try encoder.encode(self) + Data("\n".utf8)
            try SecureFile.write(data, to: Self.path, replacing: true)
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.io, "Cannot write \(Self.path).")
        }
    }

    /// The default keychain: `$LATCHKEY_KEYCHAIN`, else the file's default, else the login keychain; absolute
    /// and symlink-free (`KeychainName.canonical`), so it compares equal to the same keychain named with `-k`.
    static func effectiveDefault(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["LATCHKEY_KEYCHAIN"], !explicit.isEmpty {
            return KeychainName.canonical(explicit)
        }
        if let configured = load().defaultKeychain, !configured.isEmpty { return KeychainName.canonical(configured) }
        return KeychainName.canonical(loginKeychain)
    }

    /// Adds `path` to the search list when it is not there yet.
    mutating func remember(_ path: String) {
        if !searchList.contains(path) { searchList.append(path) }
    }

    /// Removes `path` from the search list and, when it was the default, clears the default.
    mutating func forget(_ path: String) {
        searchList.removeAll { $0 == path }
        if defaultKeychain == path { defaultKeychain = nil }
    }
}

/// Writes whole files with mode 0600 through a temporary file and `rename`.
enum SecureFile {
    /// Writes `data` to `path`; fails when the file exists unless `replacing`.
    static func write(_ data: Data, to path: String, replacing: Bool) throws {
        if !replacing, FileManager.default.fileExists(atPath: path) {
            throw KeychainError(.duplicateItem, "\(path) already exists; give --force to replace it.")
        }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "Cannot create \(temporary): \(String(cString: strerror(errno))).")
        }
        let written = data.withUnsafeBytes { bytes -> Int in
            guard let base = bytes.baseAddress else { return 0 }
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, base + offset, bytes.count - offset)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                offset += count
            }
            return offset
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == data.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw KeychainError(.io, "Cannot write \(path).")
        }
    }
}
