import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The user's access policy: which access groups the agent gives each executable.
///
/// An executable always holds one group named after its identity, its file name (the same group a process
/// gets in process from `AccessGroups.current()` when it has no entitlements file or `Info.plist`): new items
/// go there and items of other groups are invisible to it. The policy file grants more, by executable path:
///
/// ```json
/// { "version": 1, "grants": { "/usr/local/bin/deploy": ["latchkey", "com.example.shared"] } }
/// ```
///
/// It lives at `$XDG_CONFIG_HOME/latchkey/access.json` (else `~/.config/latchkey/access.json`), is written
/// by `latchkey access grant|revoke` atomically (temporary file, `fsync`, `rename`, mode 0600 in a 0700
/// directory), and is read by the agent for each new connection, so a grant applies to the next connection.
public struct AccessPolicy: Sendable, Hashable, Codable {
    /// The file format version this build reads and writes.
    public static let formatVersion = 1

    /// The file format version.
    public var version: Int
    /// Extra groups by executable path (absolute, symlink-free), each list in order and without repeats.
    public var grants: [String: [String]]

    /// Makes a policy.
    public init(grants: [String: [String]] = [:]) {
        self.version = Self.formatVersion
        self.grants = grants
    }

    /// The policy file: `$XDG_CONFIG_HOME/latchkey/access.json`, else `~/.config/latchkey/access.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            base = config
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = home + "/.config"
        }
        return base + "/latchkey/access.json"
    }

    /// The group every executable holds: its file name.
    public static func defaultGroup(forExecutable path: String) -> String {
        let name = (path as NSString).lastPathComponent
        return name.isEmpty ? "latchkey" : name
    }

    /// The groups of `executable`, in order: its default group, then the granted ones.
    public func groups(forExecutable executable: String) -> [String] {
        var groups = [Self.defaultGroup(forExecutable: executable)]
        for group in grants[executable] ?? [] where !groups.contains(group) { groups.append(group) }
        return groups
    }

    /// Grants `group` to `executable`; returns whether the policy changed.
    @discardableResult
    public mutating func grant(_ group: String, to executable: String) -> Bool {
        var groups = grants[executable] ?? []
        guard !groups.contains(group) else { return false }
        groups.append(group)
        grants[executable] = groups
        return true
    }

    /// Revokes `group` from `executable`, or every granted group when `group` is `nil`; returns whether the
    /// policy changed. The default group cannot be revoked: it is the executable's identity.
    @discardableResult
    public mutating func revoke(_ group: String?, from executable: String) -> Bool {
        guard var groups = grants[executable] else { return false }
        if let group {
            guard let index = groups.firstIndex(of: group) else { return false }
            groups.remove(at: index)
        } else {
            groups.removeAll()
        }
        grants[executable] = groups.isEmpty ? nil : groups
        return true
    }

    /// Checks that `group` can be a group name: not empty, no comma (the separator of
    /// `LATCHKEY_ACCESS_GROUPS`), no control character.
    ///
    /// - Throws: `KeychainError.Code.param` naming what is wrong.
    public static func validate(group: String) throws(KeychainError) {
        guard !group.isEmpty, !group.contains(","),
            !group.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw KeychainError(.param, "An access group name must be non-empty, without commas or control characters.")
        }
    }

    /// Reads the policy at `path`; a missing file is an empty policy.
    ///
    /// - Throws: `KeychainError.Code.decode` for a file that is not a policy of this version, `.io` when it
    ///   cannot be read.
    public static func load(from path: String) throws(KeychainError) -> AccessPolicy {
        guard FileManager.default.fileExists(atPath: path) else { return AccessPolicy() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.io, "Cannot read the access policy \(path).")
        }
        let policy: AccessPolicy
        do {
            policy = try JSONDecoder().decode(AccessPolicy.self, from: data)
        } catch {
            throw KeychainError(.decode, "The access policy \(path) is not valid JSON of the expected shape.")
        }
        guard policy.version == formatVersion else {
            throw KeychainError(
                .decode,
                "The access policy \(path) has version \(policy.version); this build reads version \(formatVersion)."
            )
        }
        return policy
    }

    /// Writes the policy to `path` atomically: a temporary file (mode 0600) in the same directory,
    /// `fsync`, `rename`, then `fsync` of the directory, which is created with mode 0700 when missing.
    ///
    /// - Throws: `KeychainError.Code.io` when any step fails (the previous file is then left as it was).
    public func save(to path: String) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(self) + Data("\n".utf8)
        } catch {
            throw KeychainError(.param, "The access policy cannot be encoded.")
        }
        try PrivateFile.write(data, to: path, holding: "the access policy")
    }
}
