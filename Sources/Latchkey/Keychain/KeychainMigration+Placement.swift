/// Where one migrated item goes, decided the same way in process (`KeychainMigration+Execution.swift`) and
/// through an agent (`KeychainMigration+Operations.swift`): only the executor of the resulting writes differs.
extension KeychainMigration {
    struct Placement {
        /// The changes of an in-place rewrite: accessibility, label, comment.
        let changes: [AttributeName: AttributeValue]
        /// The source item's attributes as they would be in the destination (compared by primary key).
        let moved: [AttributeName: AttributeValue]
        /// The attributes of a new destination item.
        let added: [AttributeName: AttributeValue]
        /// The destination slot (service, account, group, sync), to look for an occupant.
        let target: ItemQuery

        init(of sourceAttributes: [AttributeName: AttributeValue], proposed: Item, destination: Keychain) {
            let metadata = proposed.sourceMetadata
            let group = destination.accessGroup ?? metadata.accessGroup
            let synchronizable: Bool =
                switch destination.synchronizable {
                case .localOnly: false
                case .synchronized: true
                case .any: metadata.isSynchronizable
                }
            var changes: [AttributeName: AttributeValue] = [.accessible: .string(destination.accessibility.rawValue)]
            if let label = proposed.label { changes[.label] = .string(label) }
            if let comment = proposed.comment { changes[.comment] = .string(comment) }
            var slot: [AttributeName: AttributeValue] = [
                .service: .string(destination.service),
                .account: Keychain.account(proposed.key),
                .synchronizable: .bool(synchronizable),
            ]
            if let group { slot[.accessGroup] = .string(group) }
            self.changes = changes
            moved = sourceAttributes.merging(slot) { _, new in new }
            added = changes.merging(slot) { _, new in new }
            var target = ItemQuery(.genericPassword, synchronizable: synchronizable ? .yes : .no)
            for name: AttributeName in [.service, .account, .accessGroup] { target.attributes[name] = slot[name] }
            self.target = target
        }
    }

    /// What the conflict policy makes of a taken destination slot: `.replacedDestination` means the occupant is
    /// deleted and the item written; any other action leaves both as they are. `pendingSource` says the occupant
    /// is a source item still to migrate (replacing it would lose it).
    func conflictAction(pendingSource: Bool) -> MigrationReport.Action {
        switch conflictPolicy {
        case .fail: .conflict
        case .keepDestination: .keptDestination
        case .replaceDestination: pendingSource ? .conflict : .replacedDestination
        }
    }
}
