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
    ///
    /// With a `takeover`, the name is taken from its owner when that one allows it (and, for `.whenLocked`,
    /// has no unlocked collection); a refusal stops the agent like any other failure. When another agent
    /// replaces this one later, it prints "secret-service lost org.freedesktop.secrets", warns on standard
    /// error and goes on serving its socket.
    ///
    /// - Parameters:
    ///   - access: Confined or shared (`--secret-service-access`); `nil` takes
    ///     `$LATCHKEY_SECRET_SERVICE_ACCESS`, else confined.
    ///   - takeover: `--replace` (`.whenLocked`), `--replace-unlocked` (`.evenUnlocked`), else `.none`.
    static func start(
        _ server: AgentServer,
        access: SecretServiceApplications.Mode?,
        takeover: SecretService.Takeover = .none
    ) {
        do {
            let address = try SecretService.sessionBusAddress()
            let backend = SecretServiceBackend(
                keychain: server.inProcessService(accessGroups: [SecretServiceBackend.accessGroup]),
                lockState: { server.lockState },
                lock: { server.lockForEveryone() },
                willHandleRequest: { server.noteInProcessRequest() },
                observeLockState: { server.observeLockState($0) },
                applications: try applications(of: server, mode: access)
            )
            let service = try SecretService.start(
                backend: backend,
                address: address,
                logger: server.configuration.logger,
                takeover: takeover,
                nameLost: { owner in
                    FileHandle.standardOutput.write(Data("secret-service lost \(SecretService.busName)\n".utf8))
                    warn(
                        "agent: \(owner?.summary ?? "another program") replaced this agent on "
                            + "\(SecretService.busName); the agent keeps serving latchkey clients on its socket. "
                            + "`latchkey doctor` shows who owns it now."
                    )
                }
            )
            running.withLock { $0 = service }
            FileHandle.standardOutput.write(Data("secret-service ready \(SecretService.busName)\n".utf8))
        } catch {
            warn("agent: cannot serve the Secret Service: \(error.message)")
            server.stop()
            exit(1)
        }
    }

    /// The agent's identification, policy and prompter, as the Secret Service uses them.
    private static func applications(
        of server: AgentServer,
        mode: SecretServiceApplications.Mode?
    ) throws(SecretServiceError) -> SecretServiceApplications {
        let environment = ProcessInfo.processInfo.environment
        var chosen = mode ?? .confined
        if mode == nil, let text = environment["LATCHKEY_SECRET_SERVICE_ACCESS"], !text.isEmpty {
            guard let named = SecretServiceApplications.Mode(rawValue: text) else {
                throw .failed("LATCHKEY_SECRET_SERVICE_ACCESS must be confined or shared, not \(text).")
            }
            chosen = named
        }
        // Pinentry shows on the agent's own display: a D-Bus client has no terminal to lend.
        let target = AgentPrompter.Target(
            display: environment["DISPLAY"],
            waylandDisplay: environment["WAYLAND_DISPLAY"]
        )
        var ask: (@Sendable (SecretServiceApplications.Question) -> Bool)?
        var unlock: (@Sendable () throws(KeychainError) -> Void)?
        if server.configuration.pinentry != nil {
            ask = { question in
                let description = question.text
                // The question is for the process's current identity only (a pin records its running image).
                guard let current = try? ApplicationIdentity.of(process: question.process),
                    current.path == question.identity
                else { return false }
                let allowed = try? server.askForGroup(
                    question.group,
                    identity: question.identity,
                    contentPath: current.contentPath,
                    process: question.process,
                    target: target,
                    description: description
                )
                return allowed ?? false
            }
            unlock = { () throws(KeychainError) in
                try server.unlockAskingUser(
                    description:
                        "An application asks the Secret Service to unlock the keychain \(server.keychainPath).",
                    target: target
                )
            }
        }
        return SecretServiceApplications(
            mode: chosen,
            identify: { server.applicationIdentity(ofProcess: $0) },
            holds: { identity, process, group in server.policyGroups(for: identity, process: process).contains(group) },
            ask: ask,
            unlock: unlock,
            record: { access, identity, process, labels in
                let event: AccessLogEntry.Event =
                    switch access {
                    case .read: .read
                    case .write: .write
                    case .delete: .delete
                    }
                server.recordSecretService(event, identity: identity, process: process, labels: labels)
            }
        )
    }
}
