import Foundation
import Latchkey

/// Collections and aliases written by another writer of the keychain than the Secret Service itself: an import
/// of gnome-keyring's keyrings (`latchkey import --from gnome-keyring` through the agent, or
/// `GnomeKeyringImport` called by the agent) adds collections to the registry that the service read earlier.
extension SecretService {
    /// Forgets the collections read from the keychain when the keychain changed since the last call (its change
    /// counter moved), so that `collections()` reads the registry again: one counter read per call, and one
    /// registry read after each change. Aliases to the `session` collection, which only memory holds, are kept
    /// (unless the registry now has an alias of that name). While the keychain is locked nothing is read or
    /// forgotten (the registry cannot be read again until it is unlocked, and the change is still seen then).
    func forgetCollectionsChangedElsewhere() {
        guard !isLocked else { return }
        guard case .changeCounter(let counter) = (try? backend.keychain.perform(.changeCounter))?.storage else {
            return
        }
        guard counter != knownChangeCounter else { return }
        knownChangeCounter = counter
        // Aliases to the `session` collection live only in memory (never in the registry): they are kept.
        let sessionAliases = knownCollections?.aliases.filter { $0.value == ObjectPath.sessionCollection } ?? [:]
        knownCollections = nil
        guard !sessionAliases.isEmpty else { return }
        var reloaded = collections()
        reloaded.aliases.merge(sessionAliases) { stored, _ in stored }
        knownCollections = reloaded
    }
}
