import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The user's access policy: which access groups the agent gives each executable.
///
/// An application always holds one group named after its identity, the resolved absolute path of its
/// executable (for a system interpreter running a script, of the script: `ApplicationIdentity`), the same
/// group a process gets first in process from `AccessGroups.current()` when it has no entitlements file or
/// `Info.plist`: new items go there and items of other groups are invisible to it. The policy file grants
/// more, by that path; a grant may be pinned to the content, the SHA-256 of the running image (or script),
/// and then applies only while it has that content:
///
/// ```json
/// { "version": 2, "grants": { "/usr/local/bin/deploy": [
///     { "group": "com.example.shared" },
///     { "group": "com.example.ci", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" }
/// ] } }
/// ```
///
/// Before version 3 the default group was the executable's file name. Items stored under such a name-based
/// ("legacy") group stay with the program that owns them through a one-time adoption: the first application
/// whose file name is that group's name and that connects while the group holds items adopts it, recorded
/// in `adopted` (legacy group → path), and from then on only that path holds the legacy group
/// (docs/agent.md, "Upgrading from name-based groups").
///
/// Version 1 files (`"grants": { "/path": ["group", …] }`, grants without pins) and version 2 files are
/// still read; the file is always written as version 3. It lives at `$XDG_CONFIG_HOME/latchkey/access.json` (else
/// `~/.config/latchkey/access.json`), is written by `latchkey access grant|revoke` and by the agent when the
/// user answers "Always allow" atomically (temporary file, `fsync`, `rename`, mode 0600 in a 0700
/// directory), and is read by the agent for each new connection, so a grant applies to the next connection.
public struct AccessPolicy: Sendable, Hashable, Codable {
    /// The file format version this build writes (it reads 1, 2 and 3).
    public static let formatVersion = 3

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
    /// Legacy (file-name) groups adopted by the application path that owns them now.
    public var adopted: [String: String] = [:]
    /// Groups the user refused to executable paths for good ("Deny always"): the agent refuses them at once,
    /// without asking. Absent from files written before denials existed.
    public var denials: [String: [String]] = [:]

    /// Makes a policy.
    public init(grants: [String: [Grant]] = [:]) {
        self.version = Self.formatVersion
        self.grants = grants
    }

    private enum CodingKeys: String, CodingKey { case version, grants, adopted, denials }

    /// Decodes version 2, or version 1 (lists of group names) as grants by path.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        switch version {
        case 1:
            let names = try container.decode([String: [String]].self, forKey: .grants)
            grants = names.mapValues { $0.map { Grant(group: $0) } }
        case 2, 3:
            grants = try container.decode([String: [Grant]].self, forKey: .grants)
            adopted = try container.decodeIfPresent([String: String].self, forKey: .adopted) ?? [:]
            denials = try container.decodeIfPresent([String: [String]].self, forKey: .denials) ?? [:]
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
        if !adopted.isEmpty { try container.encode(adopted, forKey: .adopted) }
        if !denials.isEmpty { try container.encode(denials, forKey: .denials) }
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

    /// The group every application holds: its identity's path.
    public static func defaultGroup(forExecutable path: String) -> String { path }

    /// The name-based group an application held before version 3: its file name.
    public static func legacyGroup(forExecutable path: String) -> String {
        let name = (path as NSString).lastPathComponent
        return name.isEmpty ? "latchkey" : name
    }

    /// Records that `executable` adopts its legacy group, unless another path adopted it first; returns
    /// whether the policy changed.
    @discardableResult
    public mutating func adoptLegacyGroup(of executable: String) -> Bool {
        let legacy = Self.legacyGroup(forExecutable: executable)
        guard adopted[legacy] == nil, !Self.isReserved(legacy) else { return false }
        adopted[legacy] = executable
        return true
    }

    /// The groups of `executable`, in order: its default group, then the granted ones, then its legacy group
    /// when it adopted it; a pinned grant counts only when `contentHash` (called at most once, and only when a
    /// pinned grant exists) gives its digest.
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
        let legacy = Self.legacyGroup(forExecutable: executable)
        if adopted[legacy] == executable, !groups.contains(legacy) { groups.append(legacy) }
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

    /// Remembers that the user refused `group` to `executable` for good; returns whether the policy changed.
    @discardableResult
    public mutating func deny(_ group: String, to executable: String) -> Bool {
        var list = denials[executable] ?? []
        guard !list.contains(group) else { return false }
        list.append(group)
        denials[executable] = list
        return true
    }

    /// Whether the user refused `group` to `executable` for good.
    public func isDenied(_ group: String, for executable: String) -> Bool {
        denials[executable]?.contains(group) ?? false
    }

    /// Forgets the denial of `group` to `executable`, or every denial of it when `group` is `nil`; returns
    /// whether the policy changed.
    @discardableResult
    public mutating func removeDenial(_ group: String?, from executable: String) -> Bool {
        guard var list = denials[executable] else { return false }
        if let group {
            guard let index = list.firstIndex(of: group) else { return false }
            list.remove(at: index)
        } else {
            list.removeAll()
        }
        denials[executable] = list.isEmpty ? nil : list
        return true
    }

    /// The prefix of access groups Latchkey keeps for itself (`latchkey.access-log`, the access log's keys):
    /// never given to a client of the agent, by a grant, a prompt or `LATCHKEY_ACCESS_GROUPS`.
    public static let reservedPrefix = "latchkey."

    /// Whether `group` is reserved for Latchkey itself (`reservedPrefix`).
    public static func isReserved(_ group: String) -> Bool {
        group.hasPrefix(reservedPrefix)
    }

    /// Checks that `group` can be a group name: not empty, no comma (the separator of
    /// `LATCHKEY_ACCESS_GROUPS`), no control character, not reserved (`latchkey.`, `isReserved(_:)`).
    ///
    /// - Throws: `KeychainError.Code.param` naming what is wrong.
    public static func validate(group: String) throws(KeychainError) {
        guard !isReserved(group) else {
            throw KeychainError(
                .param,
                "The access group \(group) is reserved for Latchkey itself (groups starting with \(reservedPrefix)): "
                    + "it cannot be granted, asked for or named in LATCHKEY_ACCESS_GROUPS."
            )
        }
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
