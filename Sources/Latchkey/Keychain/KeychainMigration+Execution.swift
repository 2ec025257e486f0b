import Foundation

extension KeychainMigration {
    /// Plans and applies (or, for a dry run, plans and rolls back) the migration in one transaction: in
    /// process when the keychain is opened here, else through the keychain's service (the per-user agent)
    /// as one all-or-nothing batch (`execute(through:dryRun:)`).
    func execute(dryRun: Bool) throws -> MigrationReport {
        let service = try source.resolvedService()
        let destinationService = try destination.resolvedService()
        guard let store = service as? KeychainStore else {
            guard Self.sameKeychain(service, destinationService) else { throw Self.differentFiles }
            return try execute(through: service, dryRun: dryRun)
        }
        guard let destinationStore = destinationService as? KeychainStore, destinationStore.path == store.path else {
            throw Self.differentFiles
        }
        var report = MigrationReport(entries: [], isDryRun: dryRun)
        var transformError: (any Error)?
        var completedDryRun = false
        do {
            try store.transaction { transaction in
                report.entries = try migrate(in: transaction, transformError: &transformError)
                let conflicts = report.entries(.conflict).count
                if conflicts > 0, !dryRun {
                    throw KeychainError(
                        .duplicateItem,
                        "\(conflicts) migrated key(s) already exist in the destination; nothing was migrated. "
                            + "List them with dryRun(), or choose the conflict policy .replaceDestination or .keepDestination."
                    )
                }
                if dryRun {
                    completedDryRun = true
                    throw KeychainError(.userCanceled, "Dry run: rolled back.")
                }
            }
        } catch {
            if completedDryRun { return report }
            if let transformError { throw transformError }
            throw error
        }
        return report
    }

    static let differentFiles = KeychainError(
        .param,
        "A migration must stay within one keychain file to be atomic; the source and destination keychains use different files."
    )

    /// Whether two services are clients of one agent serving one keychain file.
    private static func sameKeychain(_ lhs: any KeychainService, _ rhs: any KeychainService) -> Bool {
        guard let lhs = lhs as? AgentClient, let rhs = rhs as? AgentClient else { return false }
        return lhs === rhs || (lhs.socketPath == rhs.socketPath && lhs.welcome.keychain == rhs.welcome.keychain)
    }

    /// Migrates every source item inside `transaction`; returns one entry per source item.
    private func migrate(
        in transaction: ItemTransaction,
        transformError: inout (any Error)?
    ) throws
        -> [MigrationReport.Entry]
    {
        let (plan, items) = try transaction.find(source.query(forKey: nil), withData: true)
        let sourceIDs = Set(items.compactMap(\.row.id))
        var processed: Set<Int64> = []
        var entries: [MigrationReport.Entry] = []
        for item in items {
            if let id = item.row.id { processed.insert(id) }
            guard let sourceKey = Keychain.key(of: item.attributes) else { continue }
            let metadata = KeychainItemMetadata(
                attributes: item.attributes,
                persistentReference: KeychainStore.persistentReference(.genericPassword, item.row.persistref)
            )
            var proposed = Item(
                key: sourceKey,
                value: item.secret ?? SecretData([]),
                label: destination.label ?? metadata.label,
                comment: destination.comment ?? metadata.comment,
                sourceKey: sourceKey,
                sourceMetadata: metadata
            )
            if let transform {
                do {
                    guard let rewritten = try transform(proposed) else {
                        entries.append(
                            .init(sourceKey: sourceKey, destinationKey: sourceKey, action: .skippedByTransform)
                        )
                        continue
                    }
                    proposed = rewritten
                } catch {
                    transformError = error
                    throw error
                }
            }
            var entry = MigrationReport.Entry(sourceKey: sourceKey, destinationKey: proposed.key, action: .moved)
            let placement = Placement(of: item.attributes, proposed: proposed, destination: destination)
            // The core's primary-key rule decides whether the item stays where it is.
            if plan.schema.samePrimaryKey(item.attributes, placement.moved) {
                _ = try transaction.update(
                    item,
                    plan: plan,
                    with: ItemChanges(attributes: placement.changes, data: proposed.value)
                )
                entry.action = .rewrittenInPlace
                entries.append(entry)
                continue
            }
            let (targetPlan, occupants) = try transaction.find(placement.target, withData: false)
            entry.action = mode == .move ? .moved : .copied
            if let occupant = occupants.first {
                let pendingSource = occupant.row.id.map { sourceIDs.contains($0) && !processed.contains($0) } ?? false
                entry.action = conflictAction(pendingSource: pendingSource)
                if entry.action == .replacedDestination { try transaction.delete(occupant, plan: targetPlan) }
                if entry.action != .replacedDestination {
                    entries.append(entry)
                    continue
                }
            }
            if mode == .move { try transaction.delete(item, plan: plan) }
            // The source item's search tags go with it (its sealed tokens are valid in this file).
            _ = try transaction.add(
                .genericPassword,
                attributes: placement.added,
                data: proposed.value,
                carrying: item.sealedTags
            )
            entries.append(entry)
        }
        return entries
    }
}

extension Keychain {
    /// Moves this keychain's items to `destination` atomically (see `KeychainMigration`).
    ///
    /// ```swift
    /// try keychain.migrate(to: keychain.accessibility(.afterFirstUnlock))   // re-class in place
    /// try old.migrate(to: new, conflictPolicy: .keepDestination)
    /// ```
    ///
    /// - Returns: What was done, item by item.
    /// - Throws: See `KeychainMigration.run()`; nothing changed when it throws.
    @discardableResult
    public func migrate(
        to destination: Keychain,
        conflictPolicy: KeychainMigration.ConflictPolicy = .fail,
        mode: KeychainMigration.Mode = .move,
        transform: KeychainMigration.Transform? = nil
    ) throws -> MigrationReport {
        try KeychainMigration(
            from: self,
            to: destination,
            conflictPolicy: conflictPolicy,
            mode: mode,
            transform: transform
        )
        .run()
    }

    /// Migrates off the caller's executor (see the synchronous `migrate(to:conflictPolicy:mode:transform:)`).
    @discardableResult
    public func migrate(
        to destination: Keychain,
        conflictPolicy: KeychainMigration.ConflictPolicy = .fail,
        mode: KeychainMigration.Mode = .move,
        transform: KeychainMigration.Transform? = nil
    ) async throws -> MigrationReport {
        try await KeychainMigration(
            from: self,
            to: destination,
            conflictPolicy: conflictPolicy,
            mode: mode,
            transform: transform
        )
        .run()
    }
}
