import Foundation
import Latchkey

/// What the agent's access-group decisions and its in-process services (the Secret Service) record in the
/// access log.
extension AgentServer {
    /// Records a decision about `group` for `identity` (process `process`).
    func recordDecision(
        _ decision: AccessLogEntry.Decision,
        group: String,
        identity: String,
        contentPath: String,
        process: Int32,
        channel: AccessLogEntry.Channel
    ) {
        guard let accessLog else { return }
        accessLog.record(
            AccessLogEntry(
                time: Date(),
                event: .access,
                items: [],
                group: group,
                application: accessLog.knownApplication(identity: identity, contentPath: contentPath, process: process),
                decision: decision,
                channel: channel
            )
        )
    }

    /// Records a Secret Service read, write or delete of the items labelled `labels` by `identity` (process
    /// `process`; an unidentified caller is recorded by its executable, or as `?`).
    ///
    /// - Parameter event: `.read`, `.write` or `.delete`.
    package func recordSecretService(_ event: AccessLogEntry.Event, identity: String?, process: Int32, labels: [String])
    {
        guard let accessLog else { return }
        let path = identity ?? PeerIdentity.executable(of: process) ?? "?"
        accessLog.record(
            AccessLogEntry(
                time: Date(),
                event: event,
                items: labels.map {
                    AccessLogEntry.Item(itemClass: "secret-service", fields: [.init(name: "label", value: $0)])
                },
                application: accessLog.knownApplication(identity: path, contentPath: path, process: process),
                decision: .policy,
                channel: .secretService
            )
        )
    }
}
