import Foundation
import LatchkeyStorage

/// An item whose stored row fails authentication (damaged or tampered), named by what can be told without
/// decrypting it: its class and persistent reference, never an attribute value.
public struct DamagedItem: Sendable, Hashable, CustomStringConvertible {
    /// The item's class.
    public var itemClass: ItemClass
    /// The 20-byte persistent reference: class code ‖ the row's 16-byte persistent id.
    public var persistentReference: Data

    /// Makes a damaged-item value.
    public init(itemClass: ItemClass, persistentReference: Data) {
        self.itemClass = itemClass
        self.persistentReference = persistentReference
    }

    /// `genp 67656e70…`: the class code, then the persistent reference in lowercase hexadecimal.
    public var description: String {
        itemClass.rawValue + " " + persistentReference.lowercaseHex
    }
}

extension KeychainStore {
    /// The items of `itemClass` this process may see (synchronizable or not, tombstones excluded) whose rows
    /// fail authentication, in insertion order.
    ///
    /// `find` skips such rows, as Apple's keychain does, so a listing or a backup built on it would silently
    /// miss them; a backup asks here first and refuses (or names what it leaves out). A row counts as damaged
    /// when its accessibility token is unknown, its attributes (or, with `includingSecrets`, its secret) fail
    /// authentication, its decrypted access group disagrees with the group token it was selected by, or it
    /// is not the row the keychain last stored (the row ledger: restored from an older copy, or edited).
    ///
    /// - Parameters:
    ///   - itemClass: A storable class (not `.identity`).
    ///   - includingSecrets: Also authenticate every secret, as a backup that reads them would.
    /// - Returns: The damaged items; empty when every row opens.
    /// - Throws: `interactionNotAllowed` (-25308) when a visible row's class is locked in this process;
    ///   `missingEntitlement` without access groups.
    public func damagedItems(_ itemClass: ItemClass, includingSecrets: Bool) throws(KeychainError) -> [DamagedItem] {
        let plan = try plan(ItemQuery(itemClass, synchronizable: .any))
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let filter = try rowFilter(plan, tokens: tokens, limit: nil)
        let damaged = try mappingErrors {
            try storage.read { reader -> [Data] in
                let (opened, corrupt) = try self.openRows(
                    reader: reader,
                    plan: plan,
                    filter: filter,
                    withSecret: includingSecrets,
                    snapshot,
                    checkingLedger: false
                )
                let selected = try reader.select(from: plan.table, where: filter, includeSecret: false)
                // Rows that decrypt but are not the ones the keychain last stored (restored from an older
                // copy) are damaged for a backup too: it would otherwise carry an old secret forward as
                // current. Checked like every read (their buckets verified once per process).
                let notAsStored = try self.checkLedger(
                    selected,
                    in: plan.table,
                    reader: reader,
                    snapshot,
                    tokens,
                    write: nil
                )
                guard corrupt > 0 || opened.count != selected.count || !notAsStored.isEmpty else { return [] }
                let authentic = Set(opened.map(\.row.persistref))
                return selected.indices.filter {
                    !authentic.contains(selected[$0].persistref) || notAsStored.contains($0)
                }
                .map { selected[$0].persistref }
            }
        }
        return damaged.map {
            DamagedItem(itemClass: plan.itemClass, persistentReference: Self.persistentReference(plan.itemClass, $0))
        }
    }
}
