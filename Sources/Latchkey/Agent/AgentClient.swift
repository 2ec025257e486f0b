import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The per-user agent's client: a `KeychainService` that sends each operation over the agent's Unix socket
/// and returns its answer, so every face works unchanged against one lock state shared by the user's
/// processes.
///
/// One connection is kept open and used by one operation at a time (a `Mutex` serialises them). When the
/// agent went away (a broken pipe, a closed connection), the client reconnects once: a request that was
/// not sent yet is sent again, and a read-only request whose answer was lost is repeated; a write whose
/// answer was lost is not repeated (the agent may have committed it), and fails with `notAvailable`.
///
/// ```swift
/// if let agent = try AgentClient.discover() {           // nil when no agent answers (LATCHKEY_AGENT=auto)
///     let item = try agent.findOne(ItemQuery(.genericPassword, attributes: [.service: .string("api")]),
///                                  withData: true)
/// }
/// ```
public final class AgentClient: KeychainService {
    /// The agent's socket.
    public let socketPath: String
    /// The groups this client narrows to (its `LATCHKEY_ACCESS_GROUPS`), or `nil` for all it is granted.
    public let requestedAccessGroups: [String]?
    /// The agent's welcome on the first connection: its keychain, this client's groups, the lock state then.
    public let welcome: AgentWelcome
    /// Whether this client's unlock accepts a keychain file rolled back to an older copy.
    public let acceptsRollback: Bool
    private let connection: Mutex<Int32>

    private init(
        socketPath: String,
        requestedAccessGroups: [String]?,
        acceptsRollback: Bool,
        descriptor: Int32,
        welcome: AgentWelcome
    ) {
        self.socketPath = socketPath
        self.requestedAccessGroups = requestedAccessGroups
        self.acceptsRollback = acceptsRollback
        self.welcome = welcome
        self.connection = Mutex(descriptor)
    }

    deinit {
        connection.withLock { descriptor in
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }
    }

    /// Connects to the agent at `socketPath` and introduces this process.
    ///
    /// - Parameters:
    ///   - socketPath: The agent's socket (see `AgentLocation.socketPath()`).
    ///   - accessGroups: A subset of the groups the agent grants this executable to narrow to, or `nil`.
    ///   - acceptingRollback: Whether an `.unlock` sent by this client also accepts a keychain file that the
    ///     agent refuses as rolled back to an older copy (`latchkey unlock --accept-rollback`).
    /// - Throws: `notAvailable` (-25291) when no agent answers there or it closes the connection (another
    ///   user's agent does); `missingEntitlement` (-34018) when `accessGroups` names a group the agent does
    ///   not grant this executable.
    public static func connect(
        socketPath: String,
        accessGroups: [String]? = nil,
        acceptingRollback: Bool = false
    ) throws(KeychainError) -> AgentClient {
        let (descriptor, welcome) = try open(
            socketPath: socketPath,
            accessGroups: accessGroups,
            acceptingRollback: acceptingRollback
        )
        return AgentClient(
            socketPath: socketPath,
            requestedAccessGroups: accessGroups,
            acceptsRollback: acceptingRollback,
            descriptor: descriptor,
            welcome: welcome
        )
    }

    /// The agent of this user session, as `LATCHKEY_AGENT` asks: `nil` when it is `off`, or when it is
    /// `auto` (the default) and no agent answers on `AgentLocation.socketPath()`.
    ///
    /// The client narrows to the groups of `LATCHKEY_ACCESS_GROUPS` when it is set.
    ///
    /// - Parameters:
    ///   - environment: Where `LATCHKEY_AGENT`, `XDG_RUNTIME_DIR` and `LATCHKEY_ACCESS_GROUPS` are read.
    ///   - acceptingRollback: See `connect(socketPath:accessGroups:acceptingRollback:)`.
    ///
    /// - Throws: `notAvailable` when `LATCHKEY_AGENT=required` and no agent answers; `missingEntitlement`
    ///   when the agent refuses a group of `LATCHKEY_ACCESS_GROUPS` (an answer, so never a silent fallback
    ///   to the file).
    public static func discover(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        acceptingRollback: Bool = false
    ) throws(KeychainError) -> AgentClient? {
        let mode = AgentMode.current(environment: environment)
        if mode == .off { return nil }
        guard let path = AgentLocation.socketPath(environment: environment) else {
            if mode == .required {
                throw KeychainError(
                    .notAvailable,
                    "LATCHKEY_AGENT=required but there is no runtime directory (XDG_RUNTIME_DIR) to find an agent in."
                )
            }
            return nil
        }
        var info = stat()
        if mode == .auto, stat(path, &info) != 0 || info.st_mode & S_IFMT != S_IFSOCK { return nil }
        do {
            return try connect(
                socketPath: path,
                accessGroups: requestedGroups(environment),
                acceptingRollback: acceptingRollback
            )
        } catch {
            if mode == .auto && error.code == .notAvailable && error.message.hasPrefix(noAgentPrefix) { return nil }
            throw error
        }
    }

    /// Whether the agent serves the keychain file at `keychainPath`.
    public func serves(_ keychainPath: String) -> Bool {
        AgentLocation.canonical(keychainPath) == welcome.keychain
    }

    /// Sends `operation` to the agent and returns its answer.
    ///
    /// Items over the item limit are refused here with the engine's error (`ItemSizeLimit`), so that they are
    /// answered as in process, never by the frame limit. A batch of adds and restores (an archive's
    /// `import`) larger than one frame is sent as several batches, each all or nothing.
    ///
    /// - Throws: The operation's `KeychainError` as the agent's core threw it; `param` (-50) for an item over
    ///   the item limit or another request over the frame limit; `notAvailable` when the agent cannot be
    ///   reached.
    public func perform(_ operation: KeychainOperation) throws(KeychainError) -> KeychainOutcome {
        try ItemSizeLimit.check(operation)
        let request = try KeychainWireCodec.encode(operation)
        guard request.count <= AgentFrame.maximumLength else {
            if case .batch(let operations) = operation.storage, operations.count > 1,
                operations.allSatisfy(\.isInsertion)
            {
                return try performSplit(operations)
            }
            throw KeychainError(
                .param,
                "The request is \(ItemSizeLimit.grouped(request.count)) bytes; the agent accepts at most "
                    + "\(ItemSizeLimit.grouped(AgentFrame.maximumLength)) bytes in one request. Send fewer or "
                    + "smaller values in one call."
            )
        }
        return try send(request, repeatable: operation.isRepeatable)
    }

    /// Sends the adds and restores of a batch too large for one frame as consecutive batches that each fit
    /// (each all or nothing), and answers with every outcome in order.
    private func performSplit(_ operations: [KeychainOperation]) throws(KeychainError) -> KeychainOutcome {
        var outcomes: [KeychainOutcome] = []
        var part: [KeychainOperation] = []
        var partBytes = 0
        // Each operation's own encoding, plus the batch's few bytes of framing, is what it adds to a batch.
        let budget = AgentFrame.maximumLength - 64
        func flush() throws(KeychainError) {
            guard !part.isEmpty else { return }
            let request = try KeychainWireCodec.encode(.batch(part))
            outcomes += try send(request, repeatable: false).batch()
            part = []
            partBytes = 0
        }
        for operation in operations {
            let bytes = try KeychainWireCodec.encode(operation).count + 16
            if partBytes + bytes > budget { try flush() }
            part.append(operation)
            partBytes += bytes
        }
        try flush()
        return .batch(outcomes)
    }

    /// Sends one encoded request and reads its answer, reconnecting once as the type's summary says.
    private func send(_ request: Data, repeatable: Bool) throws(KeychainError) -> KeychainOutcome {
        let reply = try connection.withLock { (descriptor: inout Int32) throws(KeychainError) -> Data in
            var reconnected = false
            while true {
                if descriptor < 0 { descriptor = try reopen() }
                do throws(AgentFrame.Failure) {
                    try AgentFrame.write(request, to: descriptor)
                } catch {
                    close(descriptor)
                    descriptor = -1
                    if !reconnected && error.isDisconnection {
                        reconnected = true
                        continue
                    }
                    throw lost(error)
                }
                do throws(AgentFrame.Failure) {
                    return try AgentFrame.read(from: descriptor, limit: AgentFrame.maximumAnswerLength)
                } catch {
                    close(descriptor)
                    descriptor = -1
                    if !reconnected && repeatable && error.isDisconnection {
                        reconnected = true
                        continue
                    }
                    throw lost(error)
                }
            }
        }
        return try KeychainWireCodec.decodeOutcome(reply)
    }

    private func reopen() throws(KeychainError) -> Int32 {
        let (descriptor, welcome) = try Self.open(
            socketPath: socketPath,
            accessGroups: requestedAccessGroups,
            acceptingRollback: acceptsRollback
        )
        guard welcome.keychain == self.welcome.keychain else {
            close(descriptor)
            throw KeychainError(
                .notAvailable,
                "The agent at \(socketPath) now serves \(welcome.keychain), not \(self.welcome.keychain)."
            )
        }
        return descriptor
    }

    private func lost(_ failure: AgentFrame.Failure) -> KeychainError {
        KeychainError(.notAvailable, "The connection to the agent at \(socketPath) failed: \(failure).")
    }

    private static let noAgentPrefix = "No agent answers"

    private static func open(
        socketPath: String,
        accessGroups: [String]?,
        acceptingRollback: Bool
    ) throws(KeychainError) -> (Int32, AgentWelcome) {
        let descriptor: Int32
        do {
            descriptor = try UnixSocket.connect(to: socketPath)
        } catch {
            if error.meansNoListener {
                throw KeychainError(.notAvailable, "\(noAgentPrefix) on \(socketPath) (\(error)).")
            }
            throw KeychainError(.notAvailable, "Cannot reach the agent at \(socketPath): \(error).")
        }
        do throws(KeychainError) {
            let hello = AgentHandshake.encode(
                AgentHandshake.Hello(
                    accessGroups: accessGroups,
                    acceptRollback: acceptingRollback ? true : nil
                )
            )
            let payload: Data
            do throws(AgentFrame.Failure) {
                try AgentFrame.write(hello, to: descriptor)
                payload = try AgentFrame.read(from: descriptor)
            } catch {
                throw KeychainError(
                    .notAvailable,
                    "The agent at \(socketPath) closed the connection without serving it (\(error)); "
                        + "an agent only serves processes of its own user."
                )
            }
            let welcome = try AgentHandshake.decode(AgentHandshake.Reply.self, from: payload).result()
            return (descriptor, welcome)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The groups of `LATCHKEY_ACCESS_GROUPS` (comma-separated), or `nil` when it is unset or empty.
    static func requestedGroups(_ environment: [String: String]) -> [String]? {
        guard let list = environment["LATCHKEY_ACCESS_GROUPS"] else { return nil }
        let groups = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return groups.isEmpty ? nil : groups
    }
}

extension KeychainOperation {
    /// Whether the operation only adds items (what a batch split over several frames may hold).
    var isInsertion: Bool {
        switch storage {
        case .add, .addAll, .restore: true
        default: false
        }
    }

    /// Whether repeating the operation after its answer was lost cannot change anything twice.
    var isRepeatable: Bool {
        switch storage {
        case .find, .exists, .lockState, .accessGroups, .changeCounter, .lock, .unlock, .damagedItems: true
        case .verifyIntegrity(let acceptingCurrentState): !acceptingCurrentState
        case .add, .addAll, .upsert, .updateFirstOrAdd, .restore, .update, .delete, .batch, .changeCredential: false
        }
    }
}
