import Foundation
import Latchkey
import Synchronization

/// What the agent's socket clients and its in-process services (the Secret Service) share about
/// applications: who a process is, which groups the policy gives it, asking the user for a group, and
/// unlocking the keychain after asking for its passphrase.
extension AgentServer {
    /// One read-modify-write of the policy file at a time within the agent.
    private static let policyWrites = Mutex<Int>(0)

    /// The application identity of process `process`: its executable, or the script an interpreter runs
    /// (`ScriptIdentity`); `nil` when `/proc` does not tell (the process is gone, or not dumpable).
    package func applicationIdentity(ofProcess process: Int32) -> String? {
        guard let executable = PeerIdentity.executable(of: process) else { return nil }
        return ScriptIdentity.script(ofProcess: process, executable: executable) ?? executable
    }

    /// The groups the policy gives `identity` now (a grant pinned to a content hash counts while the file's
    /// SHA-256 matches); an unreadable policy gives only the default group, and is logged.
    package func policyGroups(for identity: String) -> [String] {
        let policy: AccessPolicy
        do {
            policy = try AccessPolicy.load(from: configuration.policyPath)
        } catch {
            configuration.logger.error(
                "access policy unreadable: only default groups are given",
                metadata: ["error": "\(error.message)"]
            )
            policy = AccessPolicy()
        }
        return policy.groups(forExecutable: identity) { contentHashes.digest(ofFile: identity) }
    }

    /// Asks the user (when the agent has a prompter) whether `identity` (process `process`) may use
    /// `group`; returns whether it may. "Always allow" is written to the policy as a grant to `identity`
    /// pinned to its current SHA-256 (a file that cannot be hashed is allowed this once only); "Allow once"
    /// allows this once (the caller decides how long that lasts); "Deny", no answer in time, a failed
    /// pinentry or no prompter refuse.
    ///
    /// - Parameter description: The question's text, when not the access-group question.
    /// - Throws: `param` for a group name that cannot be granted (commas, control characters).
    package func askForGroup(
        _ group: String,
        identity: String,
        process: Int32,
        target: AgentPrompter.Target,
        description: String? = nil
    ) throws(KeychainError) -> Bool {
        guard let prompter else { return false }
        try AccessPolicy.validate(group: group)
        let logger = configuration.logger
        let answer = prompter.askForGroup(
            identity: identity,
            process: process,
            group: group,
            target: target,
            description: description
        )
        switch answer {
        case .deny:
            return false
        case .once:
            return true
        case .always:
            guard let digest = contentHashes.digest(ofFile: identity) else {
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
        if try store.hasPassphrase() {
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
