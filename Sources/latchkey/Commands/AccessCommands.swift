import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAgent

/// `access`: the access groups the agent gives each executable, beyond the one named after it.
struct AccessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "access",
        abstract: "Grant, revoke and list the access groups the agent gives executables.",
        discussion: """
            Through the agent, a process holds one access group named after its executable's file name (for a \
            script run by python, perl, ruby, node or a shell: the script's), plus the groups granted to that \
            path here, optionally pinned to the file's SHA-256 (--pin-content). The policy is $XDG_CONFIG_HOME/latchkey/access.json \
            (else ~/.config/latchkey/access.json), written atomically with mode 0600; the agent reads it for each \
            new connection. See docs/agent.md.
            """,
        subcommands: [AccessGrant.self, AccessRevoke.self, AccessDeny.self, AccessList.self, AccessLogCommand.self]
    )
}

/// `access grant`: lets an executable use one more access group.
struct AccessGrant: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Let an executable read and write the items of an access group."
    )

    @Argument(help: "The executable's (or script's) path (resolved to its absolute, symlink-free form).")
    var executable: String
    @Argument(help: "The access group.") var group: String
    @Flag(
        name: .customLong("pin-content"),
        help: "Pin the grant to the file's current SHA-256: it applies only while the file's content is unchanged."
    )
    var pinContent = false

    func run() throws {
        try runReportingErrors {
            let path = AgentLocation.canonical(executable)
            guard FileManager.default.isExecutableFile(atPath: path) || ScriptIdentity.isScriptFile(path) else {
                throw KeychainError(.param, "\(path) is not an executable file or a script.")
            }
            try AccessPolicy.validate(group: group)
            var digest: String?
            if pinContent {
                guard let hash = ContentHashes().digest(ofFile: path) else {
                    throw KeychainError(.io, "Cannot read \(path) to pin the grant to its content.")
                }
                digest = hash
            }
            let file = AccessPolicy.defaultPath()
            var policy = try AccessPolicy.load(from: file)
            let undenied = policy.removeDenial(group, from: path)  // an explicit grant lifts a "Deny always"
            if policy.grant(group, to: path, sha256: digest) || undenied { try policy.save(to: file) }
        }
    }
}

/// `access revoke`: takes a granted group (or every granted group) back from an executable.
struct AccessRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Take a granted access group (every granted group without one) back from an executable.",
        discussion: """
            The group named after the executable is its identity and cannot be revoked. A remembered denial of the \
            group ("Deny always", or `latchkey access deny`) is removed too, so the agent asks again.
            """
    )

    @Argument(help: "The executable's path.") var executable: String
    @Argument(help: "The access group; omit it to revoke every group granted to the executable.") var group: String?

    func run() throws {
        try runReportingErrors {
            let path = AgentLocation.canonical(executable)
            let file = AccessPolicy.defaultPath()
            var policy = try AccessPolicy.load(from: file)
            let revoked = policy.revoke(group, from: path)
            let undenied = policy.removeDenial(group, from: path)
            guard revoked || undenied else {
                throw KeychainError(.itemNotFound, "No such grant or denial to \(path) in \(file).")
            }
            try policy.save(to: file)
        }
    }
}

/// `access list`: prints the granted groups by executable.
struct AccessList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the access groups granted to executables.",
        discussion: """
            One line per executable: its path, then the groups granted to it (its own group, the path itself, \
            goes without saying); a grant pinned to the file's content is followed by [sha256 <digest>], a \
            remembered denial ("Deny always", `access deny`) by [denied], a name-based group adopted at the upgrade (docs/agent.md) by [adopted]. --json prints each \
            executable's grants (group, and sha256 when pinned), denials (group, "denied": true) and adopted \
            name-based group (group, "adopted": true).
            """
    )

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let policy = try AccessPolicy.load(from: AccessPolicy.defaultPath())
            var adoptions: [String: [String]] = [:]
            for (legacy, path) in policy.adopted { adoptions[path, default: []].append(legacy) }
            let executables = Set(policy.grants.keys).union(policy.denials.keys).union(adoptions.keys).sorted()
            if output.json {
                var object: [String: JSONValue] = [:]
                for path in executables {
                    var grants: [JSONValue] = []
                    for grant in policy.grants[path] ?? [] {
                        var fields: [String: JSONValue] = ["group": .string(grant.group)]
                        if let digest = grant.sha256 { fields["sha256"] = .string(digest) }
                        grants.append(.object(fields))
                    }
                    for denied in policy.denials[path] ?? [] {
                        grants.append(.object(["group": .string(denied), "denied": .bool(true)]))
                    }
                    for legacy in adoptions[path] ?? [] {
                        grants.append(.object(["group": .string(legacy), "adopted": .bool(true)]))
                    }
                    object[path] = .array(grants)
                }
                try JSONValue.object(object).print()
                return
            }
            var out = ""
            for path in executables {
                var groups: [String] = []  // the default group, the path itself, goes without saying
                for grant in policy.grants[path] ?? [] where !groups.contains(grant.group) {
                    if let digest = grant.sha256 {
                        groups.append("\(grant.group) [sha256 \(digest)]")
                    } else {
                        groups.append(grant.group)
                    }
                }
                groups += (policy.denials[path] ?? []).map { "\($0) [denied]" }
                groups += (adoptions[path] ?? []).map { "\($0) [adopted]" }
                out += "\(path): \(groups.joined(separator: ", "))\n"
            }
            ItemOutput.write(out)
        }
    }
}
