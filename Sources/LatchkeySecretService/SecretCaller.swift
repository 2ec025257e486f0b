import Foundation

/// What the service knows of one client connection of the bus (a unique name such as `:1.42`), decided on
/// its first call and kept until it leaves the bus: its process, its application identity, and the owners
/// whose items it may use.
struct SecretCaller {
    /// The process id the bus daemon reports for the connection, 0 when it does not say.
    var process: Int32
    /// The application identity (executable, or an interpreter's script), `nil` when it cannot be read:
    /// such a caller uses only items without an owner.
    var identity: String?
    /// Owners whose items this connection may use (a grant in the policy, or the user's answer).
    var allowed: Set<String> = []
    /// Owners the policy does not grant, so that the policy file is read once per connection and owner.
    var notGranted: Set<String> = []
    /// Items this connection found while the keychain was locked, from the index alone, with the queries
    /// that found them: each is checked against it once its attributes can be read (`mayUse`).
    var unverified: [String: [[String: String]]] = [:]
}

extension SecretService {
    /// The caller behind unique name `name`, identified on first use.
    func caller(_ name: String) -> SecretCaller {
        if let known = callers[name] { return known }
        var caller = SecretCaller(process: 0, identity: nil)
        if let applications = backend.applications, let credentials = bus.credentials(of: name) {
            caller.process = credentials.process
            // The session bus is the user's own; another user's process is never identified.
            if credentials.user == getuid() { caller.identity = applications.identify(credentials.process) }
        }
        callers[name] = caller
        return caller
    }

    /// Whether confinement applies (the agent said `confined`).
    var isConfined: Bool { backend.applications?.mode == .confined }

    /// Whether the connection `name` may use `item` now: its collection is unlocked, and in confined mode the
    /// item has no owner (stored before confinement), is the caller's own, or its owner was granted to the
    /// caller (by the policy or by the user's answer to a prompt on this connection).
    func mayUse(_ item: SecretItem, caller name: String) -> Bool {
        guard !isLocked(collection: item.collection) else { return false }
        if let queries = callers[name]?.unverified[item.id] {
            // Found through the index while locked: now that the record is open, it must match what was asked.
            guard queries.allSatisfy({ item.matches($0) }) else { return false }
            callers[name]?.unverified[item.id] = nil
        }
        return mayUse(owner: item.owner, caller: name)
    }

    /// `mayUse` for an item owned by `owner`, whatever the lock state.
    func mayUse(owner: String?, caller name: String) -> Bool {
        guard isConfined, let owner, let applications = backend.applications else { return true }
        var caller = self.caller(name)
        if caller.identity == owner || caller.allowed.contains(owner) { return true }
        guard let identity = caller.identity, !caller.notGranted.contains(owner) else { return false }
        let granted = applications.holds(identity, caller.process, SecretServiceApplications.group(ofOwner: owner))
        if granted { caller.allowed.insert(owner) } else { caller.notGranted.insert(owner) }
        callers[name] = caller
        return granted
    }

    /// The owner recorded on an item that `name` creates: its identity (also in shared mode, so that
    /// switching to confined later keeps each item with its application).
    func owner(forCreator name: String) -> String? {
        backend.applications == nil ? nil : caller(name).identity
    }

    /// Forgets a connection that left the bus.
    func forgetCaller(_ name: String) {
        callers[name] = nil
        prompts = prompts.filter { $0.value.caller != name }
    }
}
