import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAgent

/// `access deny`: refuses an access group to an executable for good, as the prompter's "Deny always" does.
struct AccessDeny: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deny",
        abstract: "Refuse an access group to an executable for good: the agent refuses it without asking.",
        discussion: """
            Writes a denial into the access policy (as answering "Deny always" to the agent's question does) and \
            takes back a grant of the same group. `latchkey access revoke <path> <group>` removes the denial.
            """
    )

    @Argument(help: "The executable's (or script's) path (resolved to its absolute, symlink-free form).")
    var executable: String
    @Argument(help: "The access group.") var group: String

    func run() throws {
        try runReportingErrors {
            let path = AgentLocation.canonical(executable)
            try AccessPolicy.validate(group: group)
            let file = AccessPolicy.defaultPath()
            var policy = try AccessPolicy.load(from: file)
            let revoked = policy.revoke(group, from: path)
            if policy.deny(group, to: path) || revoked { try policy.save(to: file) }
        }
    }
}
