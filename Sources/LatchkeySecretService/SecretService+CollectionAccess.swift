import Foundation
import Latchkey

/// Who may change collections and aliases (docs/secret-service.md, "Confinement").
///
/// In confined mode a collection belongs to the application that made it (`SecretCollections.Info.owner`);
/// `login`, `session` and collections without an owner belong to the user (`SecretCollections.userOwner`),
/// and an alias belongs to the owner of the collection it names. Deleting, locking, relabelling a collection
/// and pointing an alias elsewhere need the owner's consent, as an item of another application does: the
/// caller is the owner, or the owner's group (`SecretServiceApplications.group(ofOwner:)`) is granted to it
/// in the policy, or the user allowed it on this connection. Relabelling `login` needs no consent. In shared
/// mode everything is allowed, as before.
extension SecretService {
    /// The owners of `collections` whose consent the connection `name` lacks, each once, in order.
    func missingConsent(for collections: [String], caller name: String) -> [String] {
        let registry = self.collections()
        var missing: [String] = []
        for collection in collections {
            let owner = registry.owner(of: collection)
            if !missing.contains(owner) && !mayUse(owner: owner, caller: name) { missing.append(owner) }
        }
        return missing
    }

    /// Whether the agent can ask the user about the connection `name`: confinement applies, the agent has a
    /// prompter, and the caller is identified (an answer is recorded for its identity).
    func canAsk(caller name: String) -> Bool {
        isConfined && backend.applications?.ask != nil && caller(name).identity != nil
    }

    /// The error that refuses `doing` (for example "Changing the alias default") because it needs `owner`'s
    /// consent, saying how to give it: `IsLocked` for another application's (`Unlock` asks the user), or
    /// `org.freedesktop.DBus.Error.AccessDenied` for the user's (only a grant in the policy gives it).
    func refusal(_ doing: String, owner: String, caller name: String) -> SecretServiceError {
        let isUsers = owner == SecretCollections.userOwner
        let whose = isUsers ? "the user's consent," : "the consent of \(owner), another application,"
        let how: String
        if let identity = caller(name).identity {
            let grant = "`latchkey access grant \(identity) \(SecretServiceApplications.group(ofOwner: owner))`"
            how =
                isUsers
                ? "allow it with \(grant)" : "call Unlock on it first, which asks the user, or allow it with \(grant)"
        } else {
            how = "this application cannot be identified, so it cannot be allowed"
        }
        let message = "\(doing) needs \(whose) which this application does not have: \(how)."
        return isUsers
            ? SecretServiceError(name: "org.freedesktop.DBus.Error.AccessDenied", message) : .isLocked(message)
    }

    /// How a question names `owner`: its path, or "the user".
    static func ownerPhrase(_ owner: String) -> String {
        owner == SecretCollections.userOwner ? "the user" : owner
    }

    // MARK: Delete

    /// `Collection.Delete` of `name` for the connection `caller`: deletes it now when the caller may (and
    /// returns "/"), else returns a prompt that asks the owners whose consent is missing (of the collection,
    /// and of its items that are other applications'), else refuses.
    func requestDeleteCollection(_ name: String, caller: String) throws(SecretServiceError) -> String {
        guard name != ObjectPath.login else {
            throw .notSupported(
                "The login collection is the keychain itself: delete its items one by one, or the keychain with "
                    + "`latchkey delete-keychain`."
            )
        }
        guard !isLocked(collection: name) else { throw .isLocked() }
        let consent = try deletionConsent(name, caller: caller)
        guard let first = consent.owners.first else {
            try deleteCollection(name)
            return ObjectPath.none
        }
        guard canAsk(caller: caller) else {
            let doing =
                first == collections().owner(of: name)
                ? "Deleting the collection \(ObjectPath.collectionPath(name))"
                : "Deleting the items of another application in \(ObjectPath.collectionPath(name))"
            throw refusal(doing, owner: first, caller: caller)
        }
        return addPrompt(
            SecretPrompt(
                caller: caller,
                objects: [ObjectPath.collectionPath(name)],
                owners: consent.owners,
                unlocksKeychain: false,
                action: .deleteCollection(name),
                actions: consent.actions
            )
        )
    }

    /// The owners whose consent `caller` lacks to delete collection `name` (its owner's, then those of its
    /// items that are other applications'), with each one's question.
    func deletionConsent(
        _ name: String,
        caller: String
    ) throws(SecretServiceError) -> (owners: [String], actions: [String: String]) {
        var owners = missingConsent(for: [name], caller: caller)
        var actions: [String: String] = [:]
        let path = ObjectPath.collectionPath(name)
        for owner in owners {
            actions[owner] =
                name == ObjectPath.sessionCollection
                ? "empty the Secret Service's session collection"
                : "delete the Secret Service collection \(path), which belongs to \(Self.ownerPhrase(owner)), "
                    + "with its items"
        }
        for item in try visibleItems(in: name) where !mayUse(item, caller: caller) {
            guard let owner = item.owner, !owners.contains(owner) else { continue }
            owners.append(owner)
            actions[owner] = "delete the secrets that \(owner) stored in the Secret Service collection \(path)"
        }
        return (owners, actions)
    }

    // MARK: Lock

    /// `Lock(objects)` for the connection `caller`: the keychain is locked for every client (its collections
    /// are returned) when the caller may change every collection named (directly or by an item); otherwise a
    /// prompt asks the owners whose consent is missing, or the call is refused. In confined mode a call that
    /// names no collection locks nothing.
    func requestLock(_ objects: [String], caller: String) throws(SecretServiceError) -> [BusValue] {
        guard isConfined, !isLocked else {
            return [.objectPaths(lockKeychain()), .objectPath(ObjectPath.none)]
        }
        let named = lockedCollections(objects)
        guard !named.isEmpty else { return [.objectPaths([]), .objectPath(ObjectPath.none)] }
        let missing = missingConsent(for: named, caller: caller)
        guard let first = missing.first else {
            return [.objectPaths(lockKeychain()), .objectPath(ObjectPath.none)]
        }
        guard canAsk(caller: caller) else {
            let collection = named.first { collections().owner(of: $0) == first } ?? ObjectPath.login
            throw refusal(
                "Locking the collection \(ObjectPath.collectionPath(collection))",
                owner: first,
                caller: caller
            )
        }
        var actions: [String: String] = [:]
        for owner in missing {
            let collection = named.first { collections().owner(of: $0) == owner } ?? ObjectPath.login
            actions[owner] =
                "lock the Secret Service collection \(ObjectPath.collectionPath(collection)), which belongs to "
                + "\(Self.ownerPhrase(owner)) (this locks the keychain)"
        }
        let prompt = addPrompt(
            SecretPrompt(
                caller: caller,
                objects: objects,
                owners: missing,
                unlocksKeychain: false,
                action: .lock,
                actions: actions
            )
        )
        return [.objectPaths([]), .objectPath(prompt)]
    }

    /// The collections `objects` name, directly or by one of their items, each once.
    func lockedCollections(_ objects: [String]) -> [String] {
        var named: [String] = []
        for path in objects {
            switch resolve(path) {
            case .collection(let collection), .item(let collection, _):
                if !named.contains(collection) { named.append(collection) }
            default:
                continue
            }
        }
        return named
    }

    /// Locks the keychain for every client, announces it, and returns the paths of its collections.
    func lockKeychain() -> [String] {
        backend.lock()
        announceLockState()
        return collections().names.filter { $0 != ObjectPath.sessionCollection }.map(ObjectPath.collectionPath)
    }
}
