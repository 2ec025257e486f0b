import Foundation
import Latchkey

/// `Unlock` and `org.freedesktop.Secret.Prompt`: what a caller cannot use yet (a locked keychain, another
/// application's items or collections) is unlocked by a prompt that asks the user; the prompts of
/// `Collection.Delete` and `Lock` (`SecretService+CollectionAccess.swift`) ask for the owners' consent and
/// then do the change.
extension SecretService {
    static let promptInterface = "org.freedesktop.Secret.Prompt"

    /// `Unlock(objects)`: the objects usable by the caller now, and a prompt for the rest ("/" when none).
    ///
    /// The keychain's own lock needs its passphrase (asked by the agent's prompter); an item or a collection of
    /// another application needs the user's permission (asked once per owner; for a collection, this is how
    /// a caller gets the consent that changing it needs). Without a prompter, a locked keychain answers
    /// `IsLocked` (unlock it with `latchkey unlock`) and items that need permission stay locked.
    func unlock(_ objects: [String], caller name: String) throws(SecretServiceError) -> [BusValue] {
        let applications = backend.applications
        let keychainLocked = isLocked
        if keychainLocked && applications?.unlock == nil {
            throw .isLocked("The keychain is locked and the agent has no prompter: run `latchkey unlock`.")
        }
        var usable: [String] = []
        var owners: [String] = []
        var unread: [String] = []
        var actions: [String: String] = [:]
        var waiting = false
        let identified = caller(name).identity != nil
        for path in objects {
            switch resolve(path) {
            case .service:
                if keychainLocked { waiting = true } else { usable.append(path) }
            case .collection(let collection):
                let owner = collections().owner(of: collection)
                if isLocked(collection: collection) {
                    waiting = true
                } else if owner != SecretCollections.userOwner, !mayUse(owner: owner, caller: name), identified,
                    applications?.ask != nil
                {
                    // Another application's collection: the answer also lets the caller change it.
                    waiting = true
                    if !owners.contains(owner) { owners.append(owner) }
                    actions[owner] =
                        "use and change the Secret Service collection \(path) and the secrets that \(owner) stored"
                } else {
                    usable.append(path)
                }
            case .item(let collection, let id):
                guard case .found(let owner) = itemOwner(id: id, in: collection) else { continue }
                if isLocked(collection: collection) {
                    // Its owner is encrypted: read once the passphrase opened the keychain.
                    waiting = true
                    unread.append(id)
                } else if mayUse(owner: owner, caller: name) {
                    usable.append(path)
                } else if let owner, identified, applications?.ask != nil {
                    waiting = true
                    if !owners.contains(owner) { owners.append(owner) }
                }
            default:
                continue
            }
        }
        guard waiting else { return [.objectPaths(usable), .objectPath(ObjectPath.none)] }
        let prompt = addPrompt(
            SecretPrompt(
                caller: name,
                objects: objects,
                owners: owners,
                unreadOwners: unread,
                unlocksKeychain: keychainLocked,
                actions: actions
            )
        )
        return [.objectPaths(usable), .objectPath(prompt)]
    }

    /// Keeps `prompt` until it is completed or dismissed; returns its path.
    func addPrompt(_ prompt: SecretPrompt) -> String {
        let name = "p\(nextPrompt)"
        nextPrompt += 1
        prompts[name] = prompt
        return ObjectPath.promptPath(name)
    }

    /// What `itemOwner` found.
    private enum OwnerLookup {
        /// The item, and the owner recorded on it (`nil` for an item stored before confinement, and for
        /// every item while the keychain is locked: its owner is read once it is unlocked).
        case found(String?)
        /// No such item.
        case missing
    }

    /// The owner recorded on item `id`.
    private func itemOwner(id: String, in collection: String) -> OwnerLookup {
        if isLocked(collection: collection) {
            return SecretItemStore.reference(from: id) == nil ? .missing : .found(nil)
        }
        guard let (item, _) = try? item(id, in: collection) else { return .missing }
        return .found(item.owner)
    }

    /// `Prompt(window-id)` and `Dismiss()` on the prompt `name`.
    func handlePrompt(_ call: BusCall, name: String) throws(SecretServiceError) -> [BusValue] {
        guard var prompt = prompts[name], prompt.caller == call.sender else {
            throw .noSuchObject("No such prompt: it was completed, dismissed, or made for another client.")
        }
        switch call.member {
        case "Prompt":
            guard !prompt.started else { return [] }
            prompt.started = true
            prompts[name] = prompt
            ask(prompt, name: name)
            return []
        case "Dismiss":
            prompts[name] = nil
            emitCompleted(name, dismissed: true, unlocked: [])
            return []
        default:
            throw .unknownMethod("No method \(call.member) on a prompt.")
        }
    }

    /// Asks the user on another thread (pinentry waits for a person) and completes on the bus thread.
    private func ask(_ prompt: SecretPrompt, name: String) {
        guard let applications = backend.applications else {
            completePrompt(name, dismissed: true, granted: [])
            return
        }
        let caller = self.caller(prompt.caller)
        let bus = self.bus
        let logger = self.logger
        Thread.detachNewThread { [self] in
            var dismissed = false
            var granted: [String] = []
            if prompt.unlocksKeychain {
                do throws(KeychainError) {
                    try applications.unlock?()
                } catch {
                    logger.info("secret service: keychain not unlocked", metadata: ["code": "\(error.code.rawValue)"])
                    dismissed = true
                }
            }
            if !dismissed, let identity = caller.identity, let ask = applications.ask {
                var owners = prompt.owners
                if applications.mode == .confined {
                    for owner in self.owners(of: prompt.unreadOwners) where owner != identity && !owners.contains(owner)
                    {
                        let group = SecretServiceApplications.group(ofOwner: owner)
                        if !caller.allowed.contains(owner) && !applications.holds(identity, caller.process, group) {
                            owners.append(owner)
                        }
                    }
                }
                for owner in owners {
                    let question = SecretServiceApplications.Question(
                        identity: identity,
                        process: caller.process,
                        owner: owner,
                        group: SecretServiceApplications.group(ofOwner: owner),
                        action: prompt.actions[owner]
                    )
                    if ask(question) {
                        granted.append(owner)
                    } else if prompt.action != .unlock {
                        break  // a change needs every owner's consent: one Deny refuses it
                    }
                }
                if prompt.action != .unlock {
                    if granted.count < owners.count { dismissed = true }
                } else if granted.isEmpty && !owners.isEmpty && !prompt.unlocksKeychain {
                    dismissed = true
                }
            }
            let answer = granted
            let wasDismissed = dismissed
            bus.perform { self.completePrompt(name, dismissed: wasDismissed, granted: answer) }
        }
    }

    /// The owners recorded on the keychain items `ids` (read from any thread: the keychain is thread-safe).
    private func owners(of ids: [String]) -> [String] {
        var found: [String] = []
        for id in ids {
            guard let (item, _) = try? items.item(id: id), let owner = item.owner, !found.contains(owner) else {
                continue
            }
            found.append(owner)
        }
        return found
    }

    /// Records the user's answers for the caller and emits `Completed` with the objects it can now use (on
    /// the bus thread).
    private func completePrompt(_ name: String, dismissed: Bool, granted: [String]) {
        guard let prompt = prompts.removeValue(forKey: name) else { return }  // dismissed meanwhile
        if var caller = callers[prompt.caller] {
            caller.allowed.formUnion(granted)
            caller.notGranted.subtract(granted)
            callers[prompt.caller] = caller
        }
        announceLockState()
        switch prompt.action {
        case .unlock:
            break
        case .deleteCollection(let collection):
            emitCompleted(
                name,
                dismissed: !completeDeletion(of: collection, prompt, dismissed: dismissed),
                unlocked: []
            )
            return
        case .lock:
            let allowed =
                !dismissed && missingConsent(for: lockedCollections(prompt.objects), caller: prompt.caller).isEmpty
            emitCompleted(name, dismissed: !allowed, unlocked: allowed ? lockKeychain() : [])
            return
        }
        var unlocked: [String] = []
        if !dismissed && !isLocked {
            for path in prompt.objects {
                switch resolve(path) {
                case .collection, .service:
                    unlocked.append(path)
                case .item(let collection, let id):
                    if case .found(let owner) = itemOwner(id: id, in: collection),
                        mayUse(owner: owner, caller: prompt.caller)
                    {
                        unlocked.append(path)
                    }
                default:
                    continue
                }
            }
        }
        emitCompleted(name, dismissed: dismissed, unlocked: unlocked)
    }

    /// Deletes `collection` once the user answered `prompt`, when every consent it needs is now held; returns
    /// whether it was deleted.
    private func completeDeletion(of collection: String, _ prompt: SecretPrompt, dismissed: Bool) -> Bool {
        guard !dismissed, !isLocked(collection: collection), collections().exists(collection) else { return false }
        do {
            guard try deletionConsent(collection, caller: prompt.caller).owners.isEmpty else { return false }
            try deleteCollection(collection)
            return true
        } catch {
            logger.error("secret service: collection not deleted", metadata: ["error": "\(error.name)"])
            return false
        }
    }

    private func emitCompleted(_ name: String, dismissed: Bool, unlocked: [String]) {
        emit(
            ObjectPath.promptPath(name),
            Self.promptInterface,
            "Completed",
            [.boolean(dismissed), .variant(.objectPaths(unlocked))]
        )
    }
}
