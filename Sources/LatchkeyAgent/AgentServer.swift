import CLatchkeyAgent
import Foundation
import Latchkey
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The per-user agent: one open keychain, one lock state, served to every client process of the user
/// over a Unix socket.
///
/// Each accepted connection is served by its own thread with blocking I/O: the kernel names the peer
/// (`SO_PEERCRED`); a peer of another user is disconnected before anything is read; the executable of a
/// peer of this user decides its access groups (`AccessPolicy`); then each frame is a `KeychainOperation`
/// executed by the one `KeychainStore`, seen with that client's groups (`KeychainStore.scoped`), and
/// answered with its outcome or error. Reads run in parallel; writes are serialised and durable by the
/// store (`synchronous = FULL`) before their answer is sent. `.unlock` and `.lock` from any client change
/// the state every client sees. One program (uid and executable, read when the connection is accepted) is
/// served at most `AgentConfiguration.connectionsPerClient` connections at once, all programs together a
/// limit below the descriptor limit (`ConnectionLimits`), and a hello must arrive within
/// `AgentConfiguration.helloTimeout`.
///
/// ```swift
/// let server = try AgentServer.start(try AgentConfiguration.standard())
/// // ... until SIGTERM:
/// server.stop()
/// ```
public final class AgentServer: Sendable {
    /// The configuration the agent runs with.
    public let configuration: AgentConfiguration
    /// The keychain file served, absolute and symlink-free.
    public let keychainPath: String
    let store: KeychainStore
    let listener: AgentListener
    /// The descriptor of `<keychain>.agent.lock`, `flock`ed for the agent's lifetime.
    let keychainLock: Int32
    let idleLock: IdleLock?
    /// Locks the keychain when the machine goes to sleep (`AgentConfiguration.lockOnSleep`).
    let sleepLock: SleepLock
    /// The keychain's last authenticated state, remembered outside the file.
    let ledgerMemory: LedgerMemory
    /// The prompter, when a pinentry program is configured.
    let prompter: AgentPrompter?
    /// Content digests of clients' executables and scripts, for pinned grants.
    let contentHashes = ContentHashes()
    /// Legacy (file-name) groups found to hold no item, with the keychain's change counter then, so that
    /// connections do not search for them again until the keychain changes.
    let emptyLegacyGroups = Mutex<[String: Int64]>([:])
    /// When each identity last confirmed the user's presence, on the configuration's clock.
    let presence: PresenceMemory
    /// Rewrites the state file beside the socket on every lock change and committed write (for observers).
    let statePublisher: AgentStatePublisher
    /// The access log (docs/agent.md, "The access log"); `nil` when the configuration turns it off.
    let accessLog: AccessLog?
    /// How many connections each client program, and all of them, may hold at once.
    private let limits: ConnectionLimits
    /// `AgentFrame.largeBuffersReleased` when free memory was last returned to the system.
    private let trimmedLargeBuffers = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    /// Called with the passphrase after each unlock by passphrase (`onPassphraseUnlock(_:)`).
    private let passphraseUnlockHandlers = Mutex<[@Sendable (SecretData) -> Void]>([])

    private init(
        configuration: AgentConfiguration,
        keychainPath: String,
        store: KeychainStore,
        listener: AgentListener,
        keychainLock: Int32
    ) {
        self.configuration = configuration
        self.keychainPath = keychainPath
        self.store = store
        self.listener = listener
        self.keychainLock = keychainLock
        self.idleLock = configuration.idleLock.map { IdleLock(interval: $0, clock: configuration.clock) }
        self.sleepLock = SleepLock(lockOnSleep: configuration.lockOnSleep, logger: configuration.logger)
        self.ledgerMemory = LedgerMemory(
            directory: configuration.stateDirectory,
            keychainPath: keychainPath,
            logger: configuration.logger
        )
        self.statePublisher = AgentStatePublisher(store: store, socketPath: listener.path, logger: configuration.logger)
        self.prompter = configuration.pinentry.map {
            AgentPrompter(program: $0, timeout: configuration.promptTimeout, logger: configuration.logger)
        }
        self.presence = PresenceMemory(clock: configuration.clock)
        let memory = self.ledgerMemory
        self.accessLog =
            configuration.accessLog
            ? AccessLog(
                store: store,
                limit: configuration.accessLogLimit,
                hashes: contentHashes,
                written: { memory.record(store) },
                logger: configuration.logger
            ) : nil
        self.limits = ConnectionLimits(
            perClient: configuration.connectionsPerClient,
            total: ConnectionLimits.total(forDescriptorLimit: ConnectionLimits.raiseDescriptorLimit())
        )
    }

    /// The socket the agent listens on.
    public var socketPath: String { listener.path }

    /// The lock state every client sees.
    public var lockState: LockState { store.lockState }

    /// Claims the socket, opens the keychain (locked, unless the agent's own environment names a
    /// credential) and starts accepting connections on a background thread.
    ///
    /// - Throws: `KeychainError` — `.duplicateItem` when another agent runs on the socket (or answers on
    ///   it, or serves the same keychain from another socket), `.notAvailable`/`.io` when the socket cannot be made, or the keychain's own open errors
    ///   (for example `.interactionNotAllowed` when it does not exist and there is no credential to create it).
    public static func start(_ configuration: AgentConfiguration) throws(KeychainError) -> AgentServer {
        let listener = try AgentListener.claim(configuration.socketPath)
        let store: KeychainStore
        let keychainLock: Int32
        do {
            store = try openKeychain(configuration)
            keychainLock = try lockKeychain(store.path)
        } catch {
            listener.close()
            throw error
        }
        let server = AgentServer(
            configuration: configuration,
            keychainPath: AgentLocation.canonical(store.path),
            store: store,
            listener: listener,
            keychainLock: keychainLock
        )
        do {
            try server.ledgerMemory.check(store)
        } catch {
            configuration.logger.error(
                "agent starts refusing the keychain's items until the rollback is accepted",
                metadata: ["code": "\(error.code.rawValue)"]
            )
        }
        // Large blocks (a big request's frame buffer) get their own mappings, unmapped when freed, so that the
        // memory of clients that sent (or started) big frames goes back to the system when they leave; glibc
        // would otherwise raise the threshold after the first such block and keep later ones in its arenas.
        _ = latchkey_set_mmap_threshold(Int32(Self.mmapThreshold))
        // One thread per connection would spread small allocations over up to 8 arenas per CPU; the free
        // space at the top of an arena other than the main one is returned only by chance (`malloc_trim` does
        // not), so a crowd of connections left megabytes behind in each. Two arenas keep it to one.
        _ = latchkey_set_arena_max(Int32(Self.mallocArenas))
        server.idleLock?.start { [weak server] in server?.lockForIdleness() }
        server.sleepLock.start { [weak server] in
            server?.lockForEveryone()
            server?.presence.forget()
        }
        server.statePublisher.start()
        let thread = Thread { [server] in server.acceptConnections() }
        thread.name = "latchkey-agent-accept"
        thread.start()
        configuration.logger.info(
            "agent started",
            metadata: [
                "socket": "\(listener.path)", "keychain": "\(server.keychainPath)",
                "lockState": "\(store.lockState.rawValue)", "pinentry": "\(configuration.pinentry ?? "none")",
                "connectionsPerClient": "\(server.limits.perClient)", "connections": "\(server.limits.total)",
                "helloTimeout": "\(configuration.helloTimeout)",
            ]
        )
        return server
    }

    /// Opens the configured keychain. When there is none yet and the agent's environment names no credential
    /// (a first login: the agent was started by socket or D-Bus activation), it creates one that waits locked
    /// for its first unlock, which creates its keys with that passphrase (`KeychainStore.openWaitingForFirstUnlock`).
    private static func openKeychain(_ configuration: AgentConfiguration) throws(KeychainError) -> KeychainStore {
        let path = configuration.keychainPath
        if !FileManager.default.fileExists(atPath: path), try UnlockCredential.fromEnvironment().isEmpty {
            return try KeychainStore.openWaitingForFirstUnlock(path: path, options: configuration.storeOptions)
        }
        return try KeychainStore.open(path: path, options: configuration.storeOptions)
    }

    /// Registers `handler`, called on a thread of its own after every successful unlock by passphrase (from a
    /// client's `unlock` or the prompter's), with that passphrase: the CLI offers the import of gnome-keyring's
    /// keyrings there, as gnome-keyring's successor should at the first login (docs/install.md).
    public func onPassphraseUnlock(_ handler: @escaping @Sendable (SecretData) -> Void) {
        passphraseUnlockHandlers.withLock { $0.append(handler) }
    }

    /// Runs the `onPassphraseUnlock(_:)` handlers for an unlock with `passphrase`, off the unlocking thread so
    /// that the client's answer does not wait for them.
    func notePassphraseUnlock(_ passphrase: SecretData) {
        let handlers = passphraseUnlockHandlers.withLock { $0 }
        guard !handlers.isEmpty else { return }
        let thread = Thread {
            for handler in handlers { handler(passphrase) }
        }
        thread.name = "latchkey-agent-after-unlock"
        thread.start()
    }

    /// Takes the exclusive `flock` on `<keychain>.agent.lock` (beside the file, as `<keychain>.tokens.lock`),
    /// so that two agents on two sockets never serve one keychain: each would have its own lock state.
    private static func lockKeychain(_ path: String) throws(KeychainError) -> Int32 {
        let lockPath = path + ".agent.lock"
        let descriptor = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "Cannot open \(lockPath): \(String(cString: strerror(errno))).")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK {
                throw KeychainError(
                    .duplicateItem,
                    "Another latchkey agent already serves \(path) (on another socket); stop it first."
                )
            }
            throw KeychainError(.io, "Cannot lock \(lockPath): \(String(cString: strerror(code))).")
        }
        return descriptor
    }

    /// Stops accepting connections, removes the socket file (when it is still this agent's) and releases
    /// the agent's locks. Connections being served end when the process exits.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        idleLock?.stop()
        sleepLock.stop()
        statePublisher.stop()
        accessLog?.stop()
        ledgerMemory.record(store, durable: true)
        listener.close()
        close(keychainLock)
        configuration.logger.info("agent stopped", metadata: ["socket": "\(listener.path)"])
    }

    /// Runs an agent until SIGTERM, SIGINT or SIGHUP, then stops it.
    ///
    /// The process is hardened first (`ProcessHardening`). The signals are blocked in the calling thread
    /// before any agent thread starts (so every thread inherits the mask) and taken with `sigwait`, so the
    /// socket is removed on every ordinary stop.
    ///
    /// - Parameters:
    ///   - configuration: How to run.
    ///   - ready: Called once the socket accepts connections (the CLI prints its "ready" line there).
    /// - Returns: The signal that stopped the agent.
    /// - Throws: The errors of `start(_:)`.
    public static func runUntilTerminated(
        _ configuration: AgentConfiguration,
        ready: (AgentServer) -> Void
    ) throws(KeychainError) -> Int32 {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        ProcessHardening.apply(logger: configuration.logger)
        let server = try start(configuration)
        ready(server)
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        configuration.logger.info("agent received a signal", metadata: ["signal": "\(received)"])
        server.stop()
        return received
    }

    private func acceptConnections() {
        while true {
            let client = latchkey_accept(listener.descriptor)
            if client < 0 {
                let code = errno
                if stopped.load(ordering: .acquiring) { return }
                if code == EINTR || code == ECONNABORTED { continue }
                configuration.logger.error(
                    "accept failed",
                    metadata: ["error": "\(String(cString: strerror(code)))"]
                )
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    // Out of descriptors or memory: give connections that end a moment to free some instead
                    // of spinning (and logging) while the pending connection stays in the queue.
                    _ = poll(nil, 0, 100)
                    continue
                }
                return
            }
            admit(client)
        }
    }

    /// glibc's mmap threshold in the agent: blocks of at least 128 KiB (its default, kept from rising).
    static let mmapThreshold = 128 << 10
    /// glibc's malloc arenas in the agent (`M_ARENA_MAX`).
    static let mallocArenas = 2

    /// Serves `client` on a thread of its own, unless its program (uid and executable, read here in the
    /// accept thread) already holds its share of connections or the agent holds its total: then the
    /// connection is closed at once, and the refusal logged (at most once a second).
    private func admit(_ client: Int32) {
        let peer: PeerIdentity
        do throws(KeychainError) {
            peer = try PeerIdentity.of(connection: client)
        } catch {
            configuration.logger.warning(
                "connection dropped: no peer credentials",
                metadata: ["error": "\(error.message)"]
            )
            close(client)
            return
        }
        let key = ConnectionLimits.Client(user: peer.user, executable: peer.executable)
        switch limits.admit(key) {
        case .admitted:
            break
        case .refused(let refusal, let logged, let suppressed):
            close(client)
            guard logged else { return }
            configuration.logger.warning(
                refusal == .client
                    ? "connection refused: this program holds too many connections"
                    : "connection refused: too many connections",
                metadata: [
                    "uid": "\(peer.user)", "pid": "\(peer.process)", "executable": "\(peer.executable ?? "?")",
                    "limit": "\(refusal == .client ? limits.perClient : limits.total)",
                    "refusedWithoutLog": "\(suppressed)",
                ]
            )
            return
        }
        let connection = AgentConnection(server: self, descriptor: client)
        let thread = Thread { [self] in
            connection.serve()
            returnFreedMemory(afterCrowd: limits.release(key))
        }
        thread.name = "latchkey-agent-client"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Returns free heap memory to the system (`malloc_trim`) when a large frame buffer was freed since the
    /// last time, or when the last of a crowd of connections ended (`afterCrowd`, their threads' allocations
    /// spread over glibc's arenas); large buffers themselves are unmapped when freed (`mmapThreshold`).
    private func returnFreedMemory(afterCrowd: Bool) {
        let released = AgentFrame.largeBuffersReleased.load(ordering: .relaxed)
        guard trimmedLargeBuffers.exchange(released, ordering: .relaxed) != released || afterCrowd else { return }
        _ = latchkey_trim_memory()
    }

    /// Called before each request: locks first when the idle time ran out, then restarts the idle time.
    func noteRequest() {
        guard let idleLock else { return }
        if idleLock.requestArrived() { lockForIdleness() }
    }

    private func lockForIdleness() {
        guard store.lockState == .unlocked else { return }
        store.lock()
        presence.forget()
        ledgerMemory.record(store)
        configuration.logger.info(
            "keychain locked after idle time",
            metadata: ["seconds": "\(idleLock?.interval ?? 0)"]
        )
    }
}
