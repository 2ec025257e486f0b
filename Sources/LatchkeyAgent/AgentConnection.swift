import Foundation
import Latchkey
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// One client connection of the agent, served on its own thread until the client hangs up.
struct AgentConnection: Sendable {
    let server: AgentServer
    let descriptor: Int32
    /// The client's identity and prompt target, set by the handshake.
    let session = ClientSession()

    var logger: Logger { server.configuration.logger }

    /// Identifies the peer, runs the handshake, then answers operations until the peer closes the connection.
    func serve() {
        defer { close(descriptor) }
        let peer: PeerIdentity
        do throws(KeychainError) {
            peer = try PeerIdentity.of(connection: descriptor)
        } catch {
            logger.warning("connection dropped: no peer credentials", metadata: ["error": "\(error.message)"])
            return
        }
        guard peer.user == geteuid() else {
            logger.warning(
                "connection refused: another user",
                metadata: ["uid": "\(peer.user)", "pid": "\(peer.process)"]
            )
            return
        }
        guard let (scoped, acceptRollback) = handshake(peer) else { return }
        if let log = server.accessLog, let client = session.client {
            // Once per connection, after the welcome went out: the access log's content hash and parent chain.
            let application = client.application
            session.setLoggedApplication(
                log.application(identity: application.path, contentPath: application.contentPath, process: peer.process)
            )
        }
        while true {
            let frame: Data
            do throws(AgentFrame.Failure) {
                frame = try AgentFrame.read(from: descriptor)
            } catch {
                if case .tooLarge = error {
                    logger.warning("connection closed: frame too large", metadata: ["pid": "\(peer.process)"])
                    let limit = ItemSizeLimit.grouped(AgentFrame.maximumLength)
                    reply(
                        .failure(
                            KeychainError(
                                .param,
                                "The request is larger than the agent accepts (\(limit) bytes); send fewer or "
                                    + "smaller values in one call."
                            )
                        )
                    )
                } else if error != .closed {
                    logger.info("connection ended", metadata: ["pid": "\(peer.process)", "reason": "\(error)"])
                }
                return
            }
            guard reply(execute(frame, peer: peer, store: scoped, acceptRollback: acceptRollback)) else { return }
        }
    }

    /// Reads the hello, decides the client's groups and answers; returns the store scoped to those groups
    /// and whether the client's unlock accepts a rolled-back file, or `nil` when the client was refused.
    private func handshake(_ peer: PeerIdentity) -> (KeychainStore, Bool)? {
        let payload: Data
        do throws(AgentFrame.Failure) {
            // The whole hello must arrive within the limit (`AgentConfiguration.helloTimeout`), however slowly
            // its bytes trickle in.
            payload = try AgentFrame.read(from: descriptor, within: server.configuration.helloTimeout)
        } catch {
            logger.info(
                "connection dropped before its hello",
                metadata: ["pid": "\(peer.process)", "reason": "\(error)"]
            )
            return nil
        }
        let json = AgentHandshake.isJSON(payload)  // the reply takes the hello's form
        do throws(KeychainError) {
            let hello = try AgentHandshake.decode(AgentHandshake.Hello.self, from: payload)
            let application = try ApplicationIdentity.of(process: peer.process)
            let identity = application.path
            session.set(
                ClientSession.Client(
                    application: application,
                    process: peer.process,
                    target: AgentPrompter.Target(
                        ttyName: hello.ttyName,
                        ttyType: hello.ttyType,
                        display: hello.display,
                        waylandDisplay: hello.waylandDisplay
                    )
                )
            )
            let groups = try accessGroups(for: application, narrowedTo: hello.accessGroups)
            let welcome = AgentWelcome(
                keychain: server.keychainPath,
                accessGroups: groups,
                lockState: server.store.lockState,
                executable: identity,
                interpreter: application.interpreter,
                agentProcess: getpid()
            )
            try send(AgentHandshake.encode(AgentHandshake.Reply.accepted(welcome), json: json))
            var metadata: Logger.Metadata = [
                "pid": "\(peer.process)", "executable": "\(identity)", "groups": "\(groups.count)",
            ]
            if let interpreter = application.interpreter { metadata["interpreter"] = "\(interpreter)" }
            logger.info("client connected", metadata: metadata)
            return (server.store.scoped(accessGroups: groups), hello.acceptRollback == true)
        } catch {
            logger.warning(
                "client refused",
                metadata: [
                    "pid": "\(peer.process)", "executable": "\(session.client?.identity ?? peer.executable ?? "?")",
                    "code": "\(error.code.rawValue)",
                ]
            )
            _ = try? send(AgentHandshake.encode(AgentHandshake.Reply.refused(error), json: json))
            return nil
        }
    }

    /// The groups of `application` from the policy (a grant pinned to a content hash counts while the running
    /// image's, or script's, SHA-256 matches), narrowed to `requested` when the client
    /// asks. A requested group it does not hold is asked to the user when the agent has a prompter (always
    /// allow: granted and remembered by path and content hash; allow once: this connection only).
    private func accessGroups(
        for application: ApplicationIdentity,
        narrowedTo requested: [String]?
    ) throws(KeychainError) -> [String] {
        let identity = application.path
        let granted = server.policyGroups(for: application)
        guard let requested, !requested.isEmpty else { return granted }
        let missing = requested.filter { !granted.contains($0) }
        for group in missing {
            guard try askForGroup(group, identity: identity) else {
                let commands = missing.map { "latchkey access grant \(identity) \($0)" }.joined(separator: "; ")
                throw KeychainError(
                    .missingEntitlement,
                    "LATCHKEY_ACCESS_GROUPS names \(missing.count == 1 ? "a group" : "groups") that the agent does "
                        + "not grant \(identity) (\(missing.joined(separator: ", "))); to grant, run: \(commands)"
                )
            }
        }
        return requested
    }

    private func execute(
        _ frame: Data,
        peer: PeerIdentity,
        store: KeychainStore,
        acceptRollback: Bool
    ) -> Result<KeychainOutcome, KeychainError> {
        let operation: KeychainOperation
        do {
            operation = try KeychainWireCodec.decodeOperation(frame)
        } catch {
            logger.warning("malformed request", metadata: ["pid": "\(peer.process)", "code": "\(error.code.rawValue)"])
            return .failure(error)
        }
        server.noteRequest()
        do {
            let outcome = try perform(operation, store: store, acceptRollback: acceptRollback)
            switch operation.storage {
            case .unlock, .lock:
                logger.info(
                    "lock state changed",
                    metadata: [
                        "operation": "\(operation.name)", "pid": "\(peer.process)",
                        "lockState": "\(store.lockState.rawValue)",
                    ]
                )
            default:
                logger.debug("request served", metadata: ["operation": "\(operation.name)", "pid": "\(peer.process)"])
            }
            if let log = server.accessLog, let application = session.loggedApplication {
                log.record(operation, outcome: outcome, application: application)
            }
            return .success(outcome)
        } catch {
            logger.debug(
                "request failed",
                metadata: [
                    "operation": "\(operation.name)", "pid": "\(peer.process)", "code": "\(error.code.rawValue)",
                ]
            )
            return .failure(error)
        }
    }

    /// Executes one operation, keeping the keychain's remembered state (`LedgerMemory`): while a rollback is
    /// not accepted, only `lockState`, `lock` and `accessGroups` are served and an unlock is refused unless
    /// the client asked to accept it; a committed write and a lock are remembered before the answer is sent.
    /// Items that need user presence are confirmed by the agent's prompter (`performConfirmingPresence`).
    private func perform(
        _ operation: KeychainOperation,
        store: KeychainStore,
        acceptRollback: Bool
    ) throws(KeychainError) -> KeychainOutcome {
        let memory = server.ledgerMemory
        switch operation.storage {
        case .unlock:
            if acceptRollback {
                let outcome = try store.perform(operation)
                try memory.accept(server.store)
                return outcome
            }
            try memory.check(server.store)  // before the unlock when the device secret opens the ledger
            let outcome = try store.perform(operation)
            do {
                try memory.check(server.store)
            } catch {
                server.store.lock()
                throw error
            }
            if case .unlock(.passphrase(let passphrase)) = operation.storage { server.notePassphraseUnlock(passphrase) }
            return outcome
        case .lockState, .accessGroups:
            return try store.perform(operation)
        case .lock:
            let outcome = try store.perform(operation)
            server.presence.forget()
            memory.record(server.store)
            return outcome
        case .find, .exists, .changeCounter, .damagedItems:
            if let refusal = memory.refusal { throw refusal }
            return try performConfirmingPresence(operation, store: store)
        case .add, .addAll, .upsert, .updateFirstOrAdd, .restore, .update, .delete, .batch, .verifyIntegrity,
            .changeCredential:
            if let refusal = memory.refusal { throw refusal }
            let outcome = try performConfirmingPresence(operation, store: store)
            memory.record(server.store)
            return outcome
        }
    }

    /// Sends a result; returns whether it was sent.
    @discardableResult
    private func reply(_ result: Result<KeychainOutcome, KeychainError>) -> Bool {
        do {
            var payload: Data
            do {
                payload = try KeychainWireCodec.encode(result)
            } catch {
                payload = try KeychainWireCodec.encode(.failure(error))
            }
            if payload.count > AgentFrame.maximumAnswerLength {
                payload = try KeychainWireCodec.encode(
                    .failure(
                        KeychainError(
                            .param,
                            "The answer is \(ItemSizeLimit.grouped(payload.count)) bytes, more than the agent sends in "
                                + "one answer (\(ItemSizeLimit.grouped(AgentFrame.maximumAnswerLength)) bytes); ask "
                                + "for fewer items at once or for their attributes without their data."
                        )
                    )
                )
            }
            try send(payload, limit: AgentFrame.maximumAnswerLength)
            return true
        } catch {
            return false
        }
    }

    private func send(_ payload: Data, limit: Int = AgentFrame.maximumLength) throws(KeychainError) {
        do {
            try AgentFrame.write(payload, to: descriptor, limit: limit)
        } catch {
            throw KeychainError(.io, "The client went away: \(error).")
        }
    }
}
