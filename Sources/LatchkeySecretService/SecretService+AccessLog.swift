import Foundation

/// Telling the agent's access log what a caller read, wrote or deleted (`SecretServiceApplications.record`).
extension SecretService {
    /// Records `access` by the connection `name` to the items labelled `labels` (nothing without a recorder,
    /// or without items).
    func recordAccess(_ access: SecretServiceApplications.Access, caller name: String, labels: [String]) {
        guard let record = backend.applications?.record, !labels.isEmpty else { return }
        let caller = caller(name)
        record(access, caller.identity, caller.process, labels)
    }
}
