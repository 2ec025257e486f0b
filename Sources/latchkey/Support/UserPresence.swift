import Foundation
import Latchkey

extension KeychainService {
    /// The first item matching `query`; when the core answers that its secret needs user authentication
    /// (an item stored with a `kSecAttrAccessControl` constraint, -25315), asks for the keychain passphrase
    /// on the terminal (standard input, else the controlling terminal), checks it, and repeats the search with the confirmation.
    ///
    /// Through the agent nothing is asked here: the agent confirms with its own prompter (pinentry) and
    /// answers with the item, or with -25308 when it has no prompter, -128 when the user cancels, -25293
    /// for a wrong passphrase.
    ///
    /// - Throws: `interactionNotAllowed` without a terminal, `authFailed` for a wrong passphrase, or the
    ///   search's own errors.
    func findOneConfirmingPresence(_ query: ItemQuery, withData: Bool) throws -> FoundItem {
        if self is AgentClient { return try findOne(query, withData: withData, authentication: .ask) }
        do {
            return try findOne(query, withData: withData, authentication: .ask)
        } catch {
            guard error.code == .interactionRequired else { throw error }
        }
        let prompt = "The item is protected: keychain passphrase to confirm it is you: "
        let passphrase =
            Terminal.isInteractive
            ? try Terminal.readSecret(prompt: prompt) : try Terminal.readSecretFromControllingTerminal(prompt: prompt)
        do {
            _ = try perform(.unlock(.passphrase(passphrase)))
        } catch {
            throw KeychainError(.authFailed, "The passphrase is wrong; the protected item was not read.")
        }
        return try findOne(query, withData: withData, authentication: .confirmed)
    }
}
