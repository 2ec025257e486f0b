import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// A keychain's `security`-style settings (`set-keychain-settings`), in a small file beside it,
/// `<keychain>.settings.json` (mode 0600): `{"idleLock": SECONDS or null, "lockOnSleep": BOOL}`.
///
/// `latchkey agent` started without `--idle-lock` takes `idleLock` from here (read at its start: a running
/// agent keeps its setting until it is restarted), and `show-keychain-info` shows it. The file holds no secret.
struct KeychainSettings: Codable, Equatable {
    /// Seconds without a request after which the agent locks the keychain; `nil`: never.
    var idleLock: Int?
    /// Whether the agent locks the keychain when the machine sleeps (`latchkey agent` without
    /// `--lock-on-sleep` takes it from here at its start).
    var lockOnSleep = false

    /// The settings file of the keychain at `keychain`.
    static func path(for keychain: String) -> String { keychain + ".settings.json" }

    /// The settings of `keychain`; `security`'s defaults (no timeout, no lock on sleep) when it has no file.
    ///
    /// - Throws: `decode` (-26275) for a file that is not settings.
    static func load(for keychain: String) throws -> KeychainSettings {
        guard let data = FileManager.default.contents(atPath: path(for: keychain)) else { return KeychainSettings() }
        do {
            return try JSONDecoder().decode(KeychainSettings.self, from: data)
        } catch {
            throw KeychainError(.decode, "\(path(for: keychain)) is not a keychain settings file.")
        }
    }

    /// Writes the settings beside `keychain`, atomically and durably (`PrivateFile`), with mode 0600.
    func save(for keychain: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try PrivateFile.write(try encoder.encode(self), to: Self.path(for: keychain), holding: "the keychain settings")
    }

    /// `security show-keychain-info`'s words: `no-timeout` or `timeout=300s`, after `lock-on-sleep` when set.
    var words: String {
        var parts: [String] = []
        if lockOnSleep { parts.append("lock-on-sleep") }
        parts.append(idleLock.map { "timeout=\($0)s" } ?? "no-timeout")
        return parts.joined(separator: " ")
    }
}
