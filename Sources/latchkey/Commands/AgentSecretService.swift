import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeySecretService
import Synchronization

/// `latchkey agent --secret-service`: the Secret Service on the session bus, served from the agent's
/// keychain (docs/secret-service.md).
enum AgentSecretService {
    /// The running service, kept for the agent's lifetime.
    private static let running = Mutex<SecretService?>(nil)

    /// Claims `org.freedesktop.secrets` on `$DBUS_SESSION_BUS_ADDRESS` for `server`'s keychain and prints
    /// "secret-service ready org.freedesktop.secrets"; on failure the agent stops and the process exits 1
    /// with the reason on standard error.
    static func start(_ server: AgentServer) {
        do {
            let address = try SecretService.sessionBusAddress()
            let backend = SecretServiceBackend(
                keychain: server.inProcessService(accessGroups: [SecretServiceBackend.accessGroup]),
                lockState: { server.lockState },
                lock: { server.lockForEveryone() },
                willHandleRequest: { server.noteInProcessRequest() },
                lockStateUpdates: { server.lockStateUpdates() }
            )
            let service = try SecretService.start(
                backend: backend,
                address: address,
                logger: server.configuration.logger
            )
            running.withLock { $0 = service }
            FileHandle.standardOutput.write(Data("secret-service ready \(SecretService.busName)\n".utf8))
        } catch {
            warn("agent: cannot serve the Secret Service: \(error.message)")
            server.stop()
            exit(1)
        }
    }
}
