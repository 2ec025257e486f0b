import Crypto
import Foundation
import Latchkey
import Logging

/// The freedesktop Secret Service (`org.freedesktop.secrets`) served from the agent's keychain on the
/// D-Bus session bus, so that libsecret, `secret-tool`, python's `secretstorage`/`keyring` and
/// `git-credential-libsecret` store their secrets in Latchkey.
///
/// One bus connection (systemd's sd-bus) owns the name; one fallback handler under
/// `/org/freedesktop/secrets` answers every call on the bus thread: the service, the login collection
/// (also the `default` alias), its items, sessions, introspection and properties. Items are Latchkey
/// generic passwords in the `org.freedesktop.secrets` access group (`SecretItemStore`). See
/// docs/secret-service.md for what is implemented and what is not yet.
///
/// ```swift
/// let service = try SecretService.start(backend: backend, address: environment["DBUS_SESSION_BUS_ADDRESS"]!)
/// ```
public final class SecretService: @unchecked Sendable {
    // SAFETY: after `start` returns, `sessions`, `callers`, `prompts`, their counters and the bus are used only
    // on the bus thread
    // (every call is answered there); `backend` and `logger` are immutable and Sendable.

    /// The well-known name the service owns.
    public static let busName = "org.freedesktop.secrets"
    /// The most sessions kept open at once; opening one more closes the oldest.
    static let maximumSessions = 1024

    let backend: SecretServiceBackend
    let items: SecretItemStore
    let logger: Logger
    let bus: Bus
    var sessions: [String: SecretSession] = [:]
    /// The connections seen so far, by unique name (`SecretCaller`).
    var callers: [String: SecretCaller] = [:]
    /// Prompts not yet completed, by their path's last element.
    var prompts: [String: SecretPrompt] = [:]
    var nextPrompt = 1
    /// The `session` collection's items.
    let sessionItems = SessionItemStore()
    /// The collections and aliases read from the keychain, once it was unlocked (`collections`).
    var knownCollections: SecretCollections?
    /// The keychain's change counter when the collections were last checked (`forgetCollectionsChangedElsewhere`).
    var knownChangeCounter: Int64?
    var sessionOrder: [String] = []
    /// The `Locked` value clients last heard.
    var announcedLocked = true
    /// Keeps the backend's lock-state callback registered (`SecretServiceBackend.observeLockState`).
    var lockObservation: (any Sendable)?
    private var nextSession = 1

    private init(backend: SecretServiceBackend, bus: Bus, logger: Logger) {
        self.backend = backend
        self.items = SecretItemStore(service: backend.keychain, didWrite: backend.didWrite)
        self.bus = bus
        self.logger = logger
    }

    /// Whether `start` takes `org.freedesktop.secrets` from the connection that owns it.
    public enum Takeover: Sendable, Hashable {
        /// Never: an owned name is refused (the message names the owner and the next step).
        case none
        /// Replace an owner whose collections are all locked (`latchkey agent --replace`); refuse while any
        /// is unlocked, or when its lock state cannot be read.
        case whenLocked
        /// Replace the owner whatever its lock state (`latchkey agent --replace-unlocked`).
        case evenUnlocked
    }

    /// Connects to the session bus at `address`, claims `org.freedesktop.secrets` and starts answering
    /// on the bus thread.
    ///
    /// The name is requested with `ALLOW_REPLACEMENT` (a later `latchkey agent --replace` may take it) and
    /// never queued: the service owns the name when this returns, or it throws. When another connection
    /// replaces it later, the service logs it and calls `nameLost`; the agent keeps serving its socket.
    ///
    /// - Parameters:
    ///   - backend: The agent's keychain and lock state.
    ///   - address: The bus address (`$DBUS_SESSION_BUS_ADDRESS`).
    ///   - logger: Where diagnostics go (never secrets or attribute values).
    ///   - takeover: Whether to replace the name's current owner (`Takeover`).
    ///   - nameLost: Called on the bus thread with the new owner (when known) once the name is lost.
    /// - Returns: The running service; keep it for the agent's lifetime.
    /// - Throws: `SecretServiceError.failed` when the bus cannot be reached, or another process owns the name
    ///   and keeps it (the message says who and what to do).
    public static func start(
        backend: SecretServiceBackend,
        address: String,
        logger: Logger = Logger(label: "latchkey.secret-service"),
        takeover: Takeover = .none,
        nameLost: (@Sendable (SecretServiceOwner?) -> Void)? = nil
    ) throws(SecretServiceError) -> SecretService {
        let bus = try Bus(address: address, logger: logger)
        let service = SecretService(backend: backend, bus: bus, logger: logger)
        try bus.serve(prefix: ObjectPath.servicePath, handler: service)
        try bus.onDisconnect { [weak service] name in
            service?.closeSessions(of: name)
            service?.forgetCaller(name)
        }
        service.announcedLocked = service.isLocked
        bus.onWake { [weak service] in service?.announceLockState() }
        if let observe = backend.observeLockState {
            // On the thread that locked or unlocked: the announcement then never waits for the cooperative pool.
            service.lockObservation = observe { [weak bus] in bus?.wake() }
        }
        try bus.onNameLost(busName) { [weak bus] in
            let owner = bus.flatMap { SecretServiceOwner.lookup(on: $0, collections: false) }
            logger.warning(
                "secret service: another connection replaced this agent on the bus name; it keeps serving its socket",
                metadata: ["name": "\(busName)", "owner": "\(owner?.summary ?? "unknown")"]
            )
            nameLost?(owner)
        }
        try claimName(on: bus, takeover: takeover)
        bus.run()
        logger.info("secret service started", metadata: ["name": "\(busName)"])
        return service
    }

    /// Requests the bus name, first checking the lock state of the owner it would replace.
    private static func claimName(on bus: Bus, takeover: Takeover) throws(SecretServiceError) {
        if takeover == .whenLocked, let owner = SecretServiceOwner.lookup(on: bus, collections: true) {
            guard owner.collections != nil else { throw .failed(owner.unknownLockRefusal) }
            guard owner.unlockedCollections.isEmpty else { throw .failed(owner.unlockedRefusal) }
        }
        guard try bus.requestName(busName, replacing: takeover != .none) == .owned else {
            let owner = SecretServiceOwner.lookup(on: bus, collections: false)
            throw .failed(
                owner?.takenMessage(replacing: takeover != .none)
                    ?? "\(busName) is owned by another connection on this session bus: stop it first."
            )
        }
    }

    /// The address of the session bus in `environment`.
    ///
    /// - Throws: `SecretServiceError.failed` when `DBUS_SESSION_BUS_ADDRESS` is unset or empty.
    public static func sessionBusAddress(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SecretServiceError) -> String {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw .failed(
                "DBUS_SESSION_BUS_ADDRESS is not set: there is no session bus to serve the Secret Service on."
            )
        }
        return address
    }

    /// Whether items are locked now (the agent's keychain is not unlocked).
    var isLocked: Bool { backend.lockState() != .unlocked }

    /// Emits a signal from the bus thread.
    func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [BusValue]) {
        bus.emitSignal(path: path, interface: interface, member: member, arguments: arguments)
    }

    /// Opens a session for `owner` and returns its path.
    func openSession(owner: String, key: SymmetricKey?) -> String {
        let name = "s\(nextSession)"
        nextSession += 1
        let path = ObjectPath.sessionPath(name)
        sessions[name] = SecretSession(path: path, owner: owner, key: key)
        sessionOrder.append(name)
        if sessionOrder.count > Self.maximumSessions {
            sessions[sessionOrder.removeFirst()] = nil
        }
        return path
    }

    /// Emits `PropertiesChanged` (`Locked`) on the collection and `CollectionChanged` when the lock state
    /// changed since clients last heard it (on the bus thread).
    func announceLockState() {
        let locked = isLocked
        guard locked != announcedLocked else { return }
        announcedLocked = locked
        for name in collections().names where name != ObjectPath.sessionCollection {
            let path = ObjectPath.collectionPath(name)
            emit(
                path,
                "org.freedesktop.DBus.Properties",
                "PropertiesChanged",
                [
                    .string(Self.collectionInterface), .properties(["Locked": .boolean(locked)]),
                    .array(element: "s", []),
                ]
            )
            emit(ObjectPath.servicePath, Self.serviceInterface, "CollectionChanged", [.objectPath(path)])
        }
    }

    /// Closes every session of a client that left the bus.
    func closeSessions(of owner: String) {
        let names = sessions.filter { $0.value.owner == owner }.map(\.key)
        guard !names.isEmpty else { return }
        for name in names { sessions[name] = nil }
        sessionOrder.removeAll { names.contains($0) }
    }

    /// The session at `path`, when `caller` opened it.
    func session(at path: String, caller: String) throws(SecretServiceError) -> SecretSession {
        guard case .session(let name) = ObjectPath(path), let session = sessions[name], session.owner == caller else {
            throw .noSession("No such session: open one with OpenSession first.")
        }
        return session
    }
}

extension SecretService: BusHandler {
    func handle(_ call: BusCall, on bus: Bus) throws(SecretServiceError) -> [BusValue] {
        backend.willHandleRequest()
        forgetCollectionsChangedElsewhere()
        let object = resolve(call.path)
        switch call.interface {
        case "org.freedesktop.DBus.Introspectable":
            guard call.member == "Introspect" else { break }
            return [.string(try introspect(object))]
        case "org.freedesktop.DBus.Peer":
            if call.member == "Ping" { return [] }
        case "org.freedesktop.DBus.Properties":
            return try handleProperties(call, object)
        default:
            break
        }
        switch object {
        case .service: return try handleService(call)
        case .collection(let name): return try handleCollection(call, name: name)
        case .item(let collection, let id): return try handleItem(call, collection: collection, id: id)
        case .prompt(let name): return try handlePrompt(call, name: name)
        case .session(let name):
            guard call.member == "Close", call.interface.isEmpty || call.interface == "org.freedesktop.Secret.Session"
            else { break }
            guard let session = sessions[name], session.owner == call.sender else { throw .noSession() }
            sessions[name] = nil
            sessionOrder.removeAll { $0 == name }
            return []
        case .unknown, .alias, .aliasItem:
            throw .noSuchObject("No such object: \(call.path).")
        }
        throw .unknownMethod("No method \(call.member) on \(call.path).")
    }

    private func introspect(_ object: ObjectPath) throws(SecretServiceError) -> String {
        switch object {
        case .service:
            return Introspection.xml(for: object, children: ["collection", "aliases"])
        case .collection(let name):
            let children = ((try? visibleItems(in: name)) ?? []).map(\.id)
            return Introspection.xml(for: object, children: children)
        case .unknown, .alias, .aliasItem:
            throw .noSuchObject()
        default:
            return Introspection.xml(for: object, children: [])
        }
    }
}
