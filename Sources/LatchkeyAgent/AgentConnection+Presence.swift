import Foundation
import Latchkey

/// User presence through the agent: a client's `AuthenticationPolicy.confirmed` is not trusted (any
/// process can send it); the agent confirms with its own prompter instead.
extension AgentConnection {
    /// Runs an operation that may read or rewrite an item protected by `kSecAttrAccessControl`: first as
    /// `.ask` wherever the client said `.ask` or `.confirmed`; when the store answers that a protected item
    /// needs the user (`interactionRequired`), confirms the user's presence (unless this identity confirmed
    /// within the request's reuse duration) and runs it again as `.confirmed`.
    ///
    /// - Throws: `interactionNotAllowed` (-25308) without a prompter (or when pinentry fails),
    ///   `userCanceled` (-128) when the user cancels or does not answer, `authFailed` (-25293) for a wrong
    ///   passphrase, or the operation's own errors.
    func performConfirmingPresence(
        _ operation: KeychainOperation,
        store: KeychainStore
    ) throws(KeychainError) -> KeychainOutcome {
        let (guarded, reuse) = operation.withPresence(asked: true)
        do {
            return try store.perform(guarded)
        } catch  where error.code == .interactionRequired {
            try confirmPresence(reuse: reuse)
            return try store.perform(operation.withPresence(asked: false).operation)
        }
    }

    /// Confirms the user's presence for this connection's client through the prompter: the keychain
    /// passphrase (`GETPIN`, checked by unlocking with it, which also unlocks a locked keychain as
    /// `latchkey unlock` would) when the keychain has one, else a plain confirmation (`CONFIRM`).
    private func confirmPresence(reuse: TimeInterval?) throws(KeychainError) {
        guard let client = session.client else {
            throw KeychainError(.interactionNotAllowed, "The connection has no identified client.")
        }
        if let reuse, server.presence.isFresh(client.identity, reuse: reuse) {
            logger.info("user presence reused", metadata: ["pid": "\(client.process)"])
            return
        }
        guard let prompter = server.prompter else {
            throw KeychainError(
                .interactionNotAllowed,
                "The item needs user authentication and the agent has no prompter (start it with --pinentry or "
                    + "LATCHKEY_PINENTRY)."
            )
        }
        let description =
            "\(client.identity) (pid \(client.process)) wants to use a protected item of the keychain "
            + "\(server.keychainPath)."
        if try server.store.hasPassphrase() {
            let passphrase = try prompter.askPassphrase(
                description: description + "\nEnter the keychain passphrase to allow it.",
                target: client.target
            )
            // Checked as `latchkey unlock` is: the remembered state before and after (LedgerMemory).
            do {
                try server.unlockCheckingMemory(passphrase)
            } catch  where error.code == .authFailed {
                logger.warning("user presence refused: wrong passphrase", metadata: ["pid": "\(client.process)"])
                throw KeychainError(.authFailed, "The passphrase is wrong; the protected item was not used.")
            }
        } else {
            try prompter.confirm(description: description, target: client.target)
        }
        server.presence.record(client.identity)
        logger.info("user presence confirmed", metadata: ["pid": "\(client.process)"])
    }
}

extension KeychainOperation {
    /// This operation with every authentication policy of `.ask` or `.confirmed` replaced by `.ask`
    /// (`asked`) or by `.confirmed`, and the longest reuse duration its requests carry.
    func withPresence(asked: Bool) -> (operation: KeychainOperation, reuse: TimeInterval?) {
        func policy(_ given: AuthenticationPolicy) -> AuthenticationPolicy {
            switch given {
            case .ask, .confirmed: asked ? .ask : .confirmed
            case .skip, .fail: given
            }
        }
        switch storage {
        case .find(var request):
            request.authentication = policy(request.authentication)
            return (.find(request), request.authenticationReuse)
        case .update(var request):
            request.authentication = policy(request.authentication)
            return (.update(request), request.authenticationReuse)
        case .batch(let operations):
            let rewritten = operations.map { $0.withPresence(asked: asked) }
            let reuse = rewritten.compactMap(\.reuse).max()
            return (.batch(rewritten.map(\.operation)), reuse)
        case .add, .addAll, .upsert, .updateFirstOrAdd, .restore, .exists, .delete, .lockState, .unlock, .lock,
            .accessGroups, .changeCounter, .damagedItems, .verifyIntegrity, .changeCredential:
            return (self, nil)
        }
    }
}
