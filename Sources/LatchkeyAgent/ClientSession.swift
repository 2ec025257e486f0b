import Foundation
import Synchronization

/// What the agent learned about a connection's client in the handshake and needs again for its requests:
/// its identity (executable, or script of an interpreter), process id, and where to show it a question.
final class ClientSession: Sendable {
    /// The identity and prompt target, once the handshake set them.
    struct Client: Sendable {
        /// Who the client is (`ApplicationIdentity`).
        var application: ApplicationIdentity
        /// The executable, or for a system interpreter the script it runs (absolute, symlink-free).
        var identity: String { application.path }
        /// The client's process id.
        var process: Int32
        /// The client's terminal and display.
        var target: AgentPrompter.Target
    }

    private let state = Mutex<Client?>(nil)
    private let logged = Mutex<AccessLogEntry.Application?>(nil)

    /// Makes a session that knows nothing yet.
    init() {}

    /// The client, or `nil` before the handshake.
    var client: Client? { state.withLock { $0 } }

    /// Records the client (in the handshake).
    func set(_ client: Client) {
        state.withLock { $0 = client }
    }

    /// The client as the access log records it (content hash and parent chain), once computed after the
    /// handshake; `nil` before, or when the log is off.
    var loggedApplication: AccessLogEntry.Application? { logged.withLock { $0 } }

    /// Records the client as the access log records it (once per connection).
    func setLoggedApplication(_ application: AccessLogEntry.Application) {
        logged.withLock { $0 = application }
    }
}
