import Foundation
import Latchkey
import Synchronization

/// What the agent's socket clients and its in-process services (the Secret Service) share about
/// applications: who a process is, which groups the policy gives it, asking the user for a group, and
/// unlocking the keychain after asking for its passphrase.
extension AgentServer {
    /// One read-modify-write of the policy file at a time within the agent.
    private static let policyWrites = Mutex<Int>(0)

    /// The application identity of process `process` (`ApplicationIdentity`), `nil` when it has none the agent
    /// trusts (gone, not dumpable, a deleted or replaced executable, the dynamic loader).
    package func applicationIdentity(ofProcess process: Int32) -> String? {
        try? ApplicationIdentity.of(process: process).path
    }

    /// The groups the policy gives `identity` now: its default group, the granted ones (a grant pinned to a
    /// content hash counts while the running image's, or script's, SHA-256 matches), and its legacy
    /// file-name group once it adopted it (`adoptLegacyGroupIfOwned`). An unreadable policy gives only the
    /// default group, and is logged.
    package func policyGroups(for identity: ApplicationIdentity) -> [String] {
        var policy = loadPolicy()
        if adoptLegacyGroupIfOwned(identity.path, policy: policy) { policy = loadPolicy() }
        return policy.groups(forExecutable: identity.path) { contentHashes.digest(ofFile: identity.contentPath) }
            .filter { !AccessPolicy.isReserved($0) }  // `latchkey.` groups are never a client's (the access log's keys)
    }

    /// The groups the policy gives process `process`, whose identity was found earlier to be `identity`
    /// (the Secret Service identifies a bus connection once): none when the process's identity is not that
    /// any more.
    package func policyGroups(for identity: String, process: Int32) -> [String] {
        guard let current = try? ApplicationIdentity.of(process: process), current.path == identity else { return [] }
        return policyGroups(for: current)
    }

    /// The policy file, or an empty policy (logged) when it cannot be read.
    private func loadPolicy() -> AccessPolicy {
        do {
            return try AccessPolicy.load(from: configuration.policyPath)
        } catch {
            configuration.logger.error(
                "access policy unreadable: only default groups are given",
                metadata: ["error": "\(error.message)"]
            )
            return AccessPolicy()
        }
    }

    /// The one-time upgrade from name-based groups: when no application adopted the legacy group named after
    /// `path`'s file name yet and that group holds items, `path` adopts it (written to the policy, logged);
    /// returns whether it did. A name found empty is not searched again until the keychain changes (its
    /// change counter moves).
    private func adoptLegacyGroupIfOwned(_ path: String, policy: AccessPolicy) -> Bool {
        let legacy = AccessPolicy.legacyGroup(forExecutable: path)
        guard policy.adopted[legacy] == nil else { return false }
        let counter = (try? store.changeCounter()) ?? -1
        guard emptyLegacyGroups.withLock({ $0[legacy] }) != counter else { return false }
        guard legacyGroupHoldsItems(legacy) else {
            emptyLegacyGroups.withLock { $0[legacy] = counter }
            return false
        }
        do {
            let adopted = try Self.policyWrites.withLock { (_: inout Int) throws(KeychainError) -> Bool in
                var current = try AccessPolicy.load(from: configuration.policyPath)
                guard current.adoptLegacyGroup(of: path) else { return false }
                try current.save(to: configuration.policyPath)
                return true
            }
            if adopted {
                configuration.logger.notice(
                    "legacy group adopted",
                    metadata: ["group": "\(legacy)", "executable": "\(path)"]
                )
            }
            return adopted
        } catch {
            configuration.logger.error("legacy group not adopted", metadata: ["error": "\(error.message)"])
            return false
        }
    }

    /// Whether any item is stored under `group`, from the index alone (works while locked).
    private func legacyGroupHoldsItems(_ group: String) -> Bool {
        let scoped = store.scoped(accessGroups: [group])
        for itemClass in [ItemClass.genericPassword, .internetPassword, .key, .certificate] {
            let request = FindRequest(ItemQuery(itemClass, synchronizable: .any), limit: .one, referencesOnly: true)
            if case .items(let items)? = (try? scoped.perform(.find(request)))?.storage, !items.isEmpty { return true }
        }
        return false
    }

    /// Asks the user (when the agent has a prompter) whether `identity` (process `process`) may use
    /// `group`; returns whether it may. "Always allow" is written to the policy as a grant to `identity`
    /// pinned to the SHA-256 of `contentPath` (the running image, or the script; a file that cannot be hashed
    /// is allowed this once only); "Allow once"
    /// allows this once (the caller decides how long that lasts); "Deny", no answer in time, a failed
    /// pinentry or no prompter refuse.
    ///
    /// - Parameters:
    ///   - description: The question's text, when not the access-group question.
    ///   - client: The socket of the connection that asks: the question is cancelled (refused) as soon as it
    ///     hangs up; `nil` for an asker without a socket (the Secret Service).
    /// - Throws: `param` for a group name that cannot be granted (commas, control characters).
    package func askForGroup(
        _ group: String,
        identity: String,
        contentPath: String,
        process: Int32,
        target: AgentPrompter.Target,
        description: String? = nil,
        watching client: Int32? = nil
    ) throws(KeychainError) -> Bool {
        let channel: AccessLogEntry.Channel = client == nil ? .secretService : .socket
        func log(_ decision: AccessLogEntry.Decision) {
            recordDecision(
                decision,
                group: group,
                identity: identity,
                contentPath: contentPath,
                process: process,
                channel: channel
            )
        }
        guard let prompter else {
            log(.denied)
            return false
        }
        try AccessPolicy.validate(group: group)
        let logger = configuration.logger
        if (try? AccessPolicy.load(from: configuration.policyPath))?.isDenied(group, for: identity) == true {
            logger.info("group refused: the user denied it for good", metadata: ["pid": "\(process)"])
            log(.deniedAlways)
            return false
        }
        let answer = prompter.askForGroup(
            identity: identity,
            process: process,
            group: group,
            target: target,
            description: description,
            watching: client
        )
        switch answer {
        case .deny:
            let remember = prompter.askToRememberDenial(
                identity: identity,
                process: process,
                group: group,
                target: target,
                watching: client
            )
            guard remember else {
                log(.denied)
                return false
            }
            rememberDenial(group, to: identity, process: process)
            log(.deniedAlways)
            return false
        case .unanswered:
            log(.denied)
            return false
        case .once:
            log(.once)
            return true
        case .always:
            log(.always)
            guard let digest = contentHashes.digest(ofFile: contentPath) else {
                logger.warning(
                    "always-allow not remembered: the file cannot be hashed",
                    metadata: ["pid": "\(process)"]
                )
                return true
            }
            let path = configuration.policyPath
            do {
                try Self.policyWrites.withLock { (_: inout Int) throws(KeychainError) in
                    var policy = try AccessPolicy.load(from: path)
                    if policy.grant(group, to: identity, sha256: digest) { try policy.save(to: path) }
                }
                logger.info("grant remembered", metadata: ["pid": "\(process)", "executable": "\(identity)"])
            } catch {
                logger.error("grant not remembered", metadata: ["error": "\(error.message)"])
            }
            return true
        }
    }

    /// Writes a "Deny always" to the policy (`AccessPolicy.deny(_:to:)`); a failure is logged (the denial then
    /// holds for this question only).
    private func rememberDenial(_ group: String, to identity: String, process: Int32) {
        let path = configuration.policyPath
        do {
            try Self.policyWrites.withLock { (_: inout Int) throws(KeychainError) in
                var policy = try AccessPolicy.load(from: path)
                if policy.deny(group, to: identity) { try policy.save(to: path) }
            }
            configuration.logger.info(
                "denial remembered",
                metadata: ["pid": "\(process)", "executable": "\(identity)"]
            )
        } catch {
            configuration.logger.error("denial not remembered", metadata: ["error": "\(error.message)"])
        }
    }

    /// Unlocks the keychain with `passphrase` as `latchkey unlock` does: the remembered state is checked
    /// before and after (`LedgerMemory`), and a rolled-back file is locked again and refused.
    ///
    /// - Throws: `authFailed` for a wrong passphrase, the rollback refusal, what the store throws.
    package func unlockCheckingMemory(_ passphrase: SecretData) throws(KeychainError) {
        try ledgerMemory.check(store)  // before the unlock when the device secret opens the ledger
        try store.unlock(with: .passphrase(passphrase))
        do {
            try ledgerMemory.check(store)
        } catch {
            store.lock()
            throw error
        }
        notePassphraseUnlock(passphrase)
    }

    /// Asks the user for the keychain passphrase through the prompter and unlocks the keychain with it (a
    /// keychain without a passphrase is unlocked after a confirmation); nothing to do when it is unlocked.
    ///
    /// - Parameters:
    ///   - description: Who asks, and why (shown above the passphrase field).
    ///   - target: Where pinentry shows (the agent's own display when the asker has no terminal).
    /// - Throws: `interactionNotAllowed` (-25308) without a prompter, `userCanceled` (-128) when the user
    ///   cancels, `authFailed` (-25293) for a wrong passphrase.
    package func unlockAskingUser(description: String, target: AgentPrompter.Target) throws(KeychainError) {
        guard store.lockState != .unlocked else { return }
        guard let prompter else {
            throw KeychainError(
                .interactionNotAllowed,
                "The keychain is locked and the agent has no prompter: run `latchkey unlock`."
            )
        }
        if store.isWaitingForFirstUnlock {
            let passphrase = try prompter.askNewPassphrase(
                description: description + "\nThere is no keychain yet: choose the passphrase that creates it "
                    + "(\(keychainPath)). Your login password lets the login unlock it.",
                target: target
            )
            try unlockCheckingMemory(passphrase)
        } else if try store.hasPassphrase() {
            let passphrase = try prompter.askPassphrase(
                description: description + "\nEnter the keychain passphrase to unlock it.",
                target: target
            )
            try unlockCheckingMemory(passphrase)
        } else {
            throw KeychainError(
                .interactionNotAllowed,
                "The keychain is unlocked with a key file: run `latchkey unlock --key-file`."
            )
        }
        configuration.logger.info("keychain unlocked through the prompter")
    }
}
