import Foundation
import Synchronization

/// What the agent learned about a connection's client in the handshake and needs again for its requests:
/// its identity (executable, or script of an interpreter), process id, and where to show it a question.
final class ClientSession: Sendable {
    /// The identity and prompt target, once the handshake set them.
    struct Client: Sendable {
        /// The executable, or for an interpreter the script it runs (absolute, symlink-free).
        var identity: String
        /// The client's process id.
        var process: Int32
        /// The client's terminal and display.
        var target: AgentPrompter.Target
    }

    private let state = Mutex<Client?>(nil)

    /// Makes a session that knows nothing yet.
    init() {}

    /// The client, or `nil` before the handshake.
    var client: Client? { state.withLock { $0 } }

    /// Records the client (in the handshake).
    func set(_ client: Client) {
        state.withLock { $0 = client }
    }
}
