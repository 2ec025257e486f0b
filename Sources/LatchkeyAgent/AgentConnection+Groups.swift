import Foundation
import Latchkey

/// Asking the user for an access group the client's identity does not hold.
extension AgentConnection {
    /// Asks the user (when the agent has a prompter) whether this connection's client may use `group`;
    /// returns whether it may (`AgentServer.askForGroup`). The question is cancelled when the client hangs up.
    ///
    /// - Throws: `param` for a group name that cannot be granted (commas, control characters).
    func askForGroup(_ group: String, identity: String) throws(KeychainError) -> Bool {
        guard let client = session.client else { return false }
        return try server.askForGroup(
            group,
            identity: identity,
            contentPath: client.application.contentPath,
            process: client.process,
            target: client.target,
            watching: descriptor
        )
    }
}
