import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The user's access policy: which access groups the agent gives each executable.
///
/// An executable always holds one group named after its identity, its file name (the same group a process
/// gets in process from `AccessGroups.current()` when it has no entitlements file or `Info.plist`): new items
/// go there and items of other groups are invisible to it. The policy file grants more, by executable path
/// (for an interpreter running a script, by the script's path: `ScriptIdentity`); a grant may be pinned to
/// the file's content, its SHA-256, and then applies only while the file still has that content:
///
/// ```json
/// { "version": 2, "grants": { "/usr/local/bin/deploy": [
///     { "group": "com.example.shared" },
///     { "group": "com.example.ci", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" }
/// ] } }
/// ```
///
/// Version 1 files (`"grants": { "/path": ["group", …] }`, grants without pins) are still read; the file
/// is always written as version 2. It lives at `$XDG_CONFIG_HOME/latchkey/access.json` (else
/// `~/.config/latchkey/access.json`), is written by `latchkey access grant|revoke` and by the agent when the
/// user answers "Always allow" atomically (temporary file, `fsync`, `rename`, mode 0600 in a 0700
/// directory), and is read by the agent for each new connection, so a grant applies to the next connection.
public struct AccessPolicy: Sendable, Hashable, Codable {
    /// The file format version this build writes (it reads 1 and 2).
    public static let formatVersion = 2

    /// One granted group, optionally pinned to the content of the executable (or script) it is granted to.
    public struct Grant: Sendable, Hashable, Codable {
        /// The access group.
        public var group: String
        /// The lowercase hexadecimal SHA-256 of the file the grant is pinned to; `nil` for a grant by path only.
        public var sha256: String?

        /// Makes a grant.
        public init(group: String, sha256: String? = nil) {
            self.group = group
            self.sha256 = sha256
        }
    }

    /// The file format version.
    public var version: Int
    /// Extra groups by executable path (absolute, symlink-free), each list in order and without repeated groups.
    public var grants: [String: [Grant]]

    /// Makes a policy.
    public init(grants: [String: [Grant]] = [:]) {
        self.version = Self.formatVersion
        self.grants = grants
    }

    private enum CodingKeys: String, CodingKey { case version, grants }

    /// Decodes version 2, or version 1 (lists of group names) as grants by path.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        switch version {
        case 1:
            let names = try container.decode([String: [String]].self, forKey: .grants)
            grants = names.mapValues { $0.map { Grant(group: $0) } }
        case 2:
            grants = try container.decode([String: [Grant]].self, forKey: .grants)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .version,
                in: container,
                debugDescription: "unsupported version \(version)"
            )
        }
        self.version = Self.formatVersion
    }

    /// Encodes the current version.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .version)
        try container.encode(grants, forKey: .grants)
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

    /// The groups of `executable`, in order: its default group, then the granted ones; a pinned grant counts
    /// only when `contentHash` (called at most once, and only when a pinned grant exists) gives its digest.
    public func groups(forExecutable executable: String, contentHash: () -> String? = { nil }) -> [String] {
        var groups = [Self.defaultGroup(forExecutable: executable)]
        var digest: String??
        for grant in grants[executable] ?? [] where !groups.contains(grant.group) {
            if let pinned = grant.sha256 {
                if digest == nil { digest = .some(contentHash()) }
                guard digest == .some(pinned) else { continue }
            }
            groups.append(grant.group)
        }
        return groups
    }

    /// Grants `group` to `executable` (pinned to the file's content when `sha256` is given, replacing an
    /// earlier grant of the same group); returns whether the policy changed.
    @discardableResult
    public mutating func grant(_ group: String, to executable: String, sha256: String? = nil) -> Bool {
        var list = grants[executable] ?? []
        let grant = Grant(group: group, sha256: sha256)
        if let index = list.firstIndex(where: { $0.group == group }) {
            guard list[index] != grant else { return false }
            list[index] = grant
        } else {
            list.append(grant)
        }
        grants[executable] = list
        return true
    }

    /// Revokes `group` from `executable`, or every granted group when `group` is `nil`; returns whether the
    /// policy changed. The default group cannot be revoked: it is the executable's identity.
    @discardableResult
    public mutating func revoke(_ group: String?, from executable: String) -> Bool {
        guard var list = grants[executable] else { return false }
        if let group {
            guard let index = list.firstIndex(where: { $0.group == group }) else { return false }
            list.remove(at: index)
        } else {
            list.removeAll()
        }
        grants[executable] = list.isEmpty ? nil : list
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
    /// - Throws: `KeychainError.Code.decode` for a file that is not a policy of version 1 or 2, `.io` when it
    ///   cannot be read.
    public static func load(from path: String) throws(KeychainError) -> AccessPolicy {
        guard FileManager.default.fileExists(atPath: path) else { return AccessPolicy() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.io, "Cannot read the access policy \(path).")
        }
        do {
            return try JSONDecoder().decode(AccessPolicy.self, from: data)
        } catch {
            throw KeychainError(
                .decode,
                "The access policy \(path) is not a policy this build reads (JSON of version 1 or \(formatVersion))."
            )
        }
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
