import Foundation
import Latchkey

/// The agent's keychain for services that run inside the agent process (the Secret Service on D-Bus), with
/// the same rules as a socket client: the agent's one lock state, the rollback refusal, the remembered
/// ledger state after each committed write, and the idle timer.
extension AgentServer {
    /// The agent's keychain seen with `accessGroups`, for an in-process service.
    ///
    /// Finds, adds, updates, deletes and batches of them are served (refused while a rolled-back file is not accepted; each
    /// committed write is remembered by `LedgerMemory` before it returns); `.unlock`, `.lock` and the
    /// rest are not (use `latchkey unlock`, or `lockForEveryone()`).
    package func inProcessService(accessGroups: [String]) -> any KeychainService {
        AgentInProcessService(server: self, store: store.scoped(accessGroups: accessGroups))
    }

    /// Locks the keychain for every client, as `latchkey lock` does.
    package func lockForEveryone() {
        store.lock()
        ledgerMemory.record(store)
    }

    /// Calls `onChange` on the changing thread after every lock-state change, while the returned observation
    /// is kept (the Secret Service's `Locked` announcements).
    package func observeLockState(_ onChange: @escaping @Sendable () -> Void) -> any Sendable {
        store.observeLockState { _ in onChange() }
    }

    /// Restarts the idle time for a request that did not come through the socket.
    package func noteInProcessRequest() {
        noteRequest()
    }
}

/// `AgentServer.inProcessService(accessGroups:)`.
struct AgentInProcessService: KeychainService {
    let server: AgentServer
    let store: KeychainStore

    func perform(_ operation: KeychainOperation) throws(KeychainError) -> KeychainOutcome {
        let memory = server.ledgerMemory
        switch operation.storage {
        case .lockState, .accessGroups, .changeCounter:
            return try store.perform(operation)
        case .find, .exists:
            if let refusal = memory.refusal { throw refusal }
            return try store.perform(operation)
        case .add, .upsert, .update, .delete, .batch:
            if let refusal = memory.refusal { throw refusal }
            let outcome = try store.perform(operation)
            memory.record(server.store)
            return outcome
        default:
            // Only what the in-process services use; unlock and lock stay with `latchkey unlock`/`lock`.
            throw KeychainError(.unimplemented, "The agent does not serve this operation to in-process services.")
        }
    }
}
