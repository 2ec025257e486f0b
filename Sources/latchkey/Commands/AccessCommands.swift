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
            Through the agent, a process holds one access group named after its executable's file name, plus \
            the groups granted to its executable's path here. The policy is $XDG_CONFIG_HOME/latchkey/access.json \
            (else ~/.config/latchkey/access.json), written atomically with mode 0600; the agent reads it for each \
            new connection. See docs/agent.md.
            """,
        subcommands: [AccessGrant.self, AccessRevoke.self, AccessList.self]
    )
}

/// `access grant`: lets an executable use one more access group.
struct AccessGrant: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grant",
        abstract: "Let an executable read and write the items of an access group."
    )

    @Argument(help: "The executable's path (resolved to its absolute, symlink-free form).") var executable: String
    @Argument(help: "The access group.") var group: String

    func run() throws {
        try runReportingErrors {
            let path = AgentLocation.canonical(executable)
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw KeychainError(.param, "\(path) is not an executable file.")
            }
            try AccessPolicy.validate(group: group)
            let file = AccessPolicy.defaultPath()
            var policy = try AccessPolicy.load(from: file)
            if policy.grant(group, to: path) { try policy.save(to: file) }
        }
    }
}

/// `access revoke`: takes a granted group (or every granted group) back from an executable.
struct AccessRevoke: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Take a granted access group (every granted group without one) back from an executable.",
        discussion: "The group named after the executable is its identity and cannot be revoked."
    )

    @Argument(help: "The executable's path.") var executable: String
    @Argument(help: "The access group; omit it to revoke every group granted to the executable.") var group: String?

    func run() throws {
        try runReportingErrors {
            let path = AgentLocation.canonical(executable)
            let file = AccessPolicy.defaultPath()
            var policy = try AccessPolicy.load(from: file)
            guard policy.revoke(group, from: path) else {
                throw KeychainError(.itemNotFound, "No such grant to \(path) in \(file).")
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
        discussion: "One line per executable: its path, then its groups (its own first). --json prints the policy."
    )

    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let policy = try AccessPolicy.load(from: AccessPolicy.defaultPath())
            let executables = policy.grants.keys.sorted()
            if output.json {
                let object = Dictionary(
                    uniqueKeysWithValues: executables.map { path in
                        (path, JSONValue.array(policy.groups(forExecutable: path).map { .string($0) }))
                    }
                )
                try JSONValue.object(object).print()
                return
            }
            var out = ""
            for path in executables {
                out += "\(path): \(policy.groups(forExecutable: path).joined(separator: ", "))\n"
            }
            ItemOutput.write(out)
        }
    }
}
