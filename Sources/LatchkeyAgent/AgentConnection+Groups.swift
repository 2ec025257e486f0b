import Foundation
import Latchkey
import Synchronization

/// Asking the user for an access group the client's identity does not hold.
extension AgentConnection {
    /// One read-modify-write of the policy file at a time within the agent.
    private static let policyWrites = Mutex<Int>(0)

    /// Asks the user (when the agent has a prompter) whether this connection's client may use `group`;
    /// returns whether it may. "Always allow" is written to the policy as a grant to `identity` pinned to its
    /// current SHA-256 (a file that cannot be hashed gets this connection only); "Allow once" grants this
    /// connection only; "Deny", no answer in time, a failed pinentry or no prompter refuse.
    ///
    /// - Throws: `param` for a group name that cannot be granted (commas, control characters).
    func askForGroup(_ group: String, identity: String) throws(KeychainError) -> Bool {
        guard let prompter = server.prompter, let client = session.client else { return false }
        try AccessPolicy.validate(group: group)
        switch prompter.askForGroup(identity: identity, process: client.process, group: group, target: client.target) {
        case .deny:
            return false
        case .once:
            return true
        case .always:
            guard let digest = server.contentHashes.digest(ofFile: identity) else {
                logger.warning(
                    "always-allow not remembered: the file cannot be hashed",
                    metadata: ["pid": "\(client.process)"]
                )
                return true
            }
            let path = server.configuration.policyPath
            do {
                try Self.policyWrites.withLock { (_: inout Int) throws(KeychainError) in
                    var policy = try AccessPolicy.load(from: path)
                    if policy.grant(group, to: identity, sha256: digest) { try policy.save(to: path) }
                }
                logger.info("grant remembered", metadata: ["pid": "\(client.process)", "executable": "\(identity)"])
            } catch {
                logger.error("grant not remembered", metadata: ["error": "\(error.message)"])
            }
            return true
        }
    }
}
