import Foundation

extension KeychainMigration {
    /// Where a generic password sits: the primary-key attributes a migration changes.
    private struct Slot: Hashable {
        var service: Data
        var account: Data
        var accessGroup: Data
        var synchronizable: Bool

        init(_ attributes: [AttributeName: AttributeValue]) {
            service = (attributes[.service] ?? .string("")).canonicalBytes
            account = (attributes[.account] ?? .string("")).canonicalBytes
            accessGroup = (attributes[.accessGroup] ?? .string("")).canonicalBytes
            synchronizable = attributes[.synchronizable]?.boolValue ?? false
        }
    }

    /// Whether a slot holds an item as the plan stands: the item's persistent reference when it existed
    /// before the migration, `nil` for an item the plan adds.
    private enum Occupancy {
        case empty
        case occupied(Data?)
    }

    /// Plans the migration from reads through `service` (the per-user agent's client) and applies it as one
    /// `KeychainOperation.batch`, which the service runs in one transaction: every item, or nothing.
    ///
    /// The plan follows the in-process migration step by step (the same in-place rule, conflict policies
    /// and report), keeping track of which slots its own earlier steps empty or fill. The reads come before
    /// the batch, not inside its transaction: a write by another process between the two that adds an item
    /// where the plan adds one makes the batch fail with `duplicateItem` and change nothing.
    func execute(through service: any KeychainService, dryRun: Bool) throws -> MigrationReport {
        let items = try Self.sourceItems(source.query(forKey: nil), through: service)
        let schema = ItemSchema.of(.genericPassword)
        let sourceReferences = Set(items.map(\.persistentReference))
        var processed: Set<Data> = []
        var slots: [Slot: Occupancy] = [:]
        for item in items { slots[Slot(item.attributes)] = .occupied(item.persistentReference) }
        var operations: [KeychainOperation] = []
        var entries: [MigrationReport.Entry] = []

        func occupancy(_ slot: Slot, query: ItemQuery) throws(KeychainError) -> Occupancy {
            if let known = slots[slot] { return known }
            let found = try service.findFirst(query).map { Occupancy.occupied($0.persistentReference) } ?? .empty
            slots[slot] = found
            return found
        }
        func byReference(_ reference: Data) -> ItemQuery {
            ItemQuery(.genericPassword, synchronizable: .any, persistentReference: reference)
        }

        for item in items {
            processed.insert(item.persistentReference)
            guard let sourceKey = Keychain.key(of: item.attributes) else { continue }
            let metadata = KeychainItemMetadata(item)
            var proposed = Item(
                key: sourceKey,
                value: item.data ?? SecretData([]),
                label: destination.label ?? metadata.label,
                comment: destination.comment ?? metadata.comment,
                sourceKey: sourceKey,
                sourceMetadata: metadata
            )
            if let transform {
                guard let rewritten = try transform(proposed) else {
                    entries.append(.init(sourceKey: sourceKey, destinationKey: sourceKey, action: .skippedByTransform))
                    continue
                }
                proposed = rewritten
            }
            var entry = MigrationReport.Entry(sourceKey: sourceKey, destinationKey: proposed.key, action: .moved)
            let placement = Placement(of: item.attributes, proposed: proposed, destination: destination)
            if schema.samePrimaryKey(item.attributes, placement.moved) {
                let changes = ItemChanges(attributes: placement.changes, data: proposed.value)
                operations.append(.update(UpdateRequest(byReference(item.persistentReference), changes: changes)))
                entry.action = .rewrittenInPlace
                entries.append(entry)
                continue
            }
            let targetSlot = Slot(placement.added)
            entry.action = mode == .move ? .moved : .copied
            if case .occupied(let occupant) = try occupancy(targetSlot, query: placement.target) {
                let pendingSource = occupant.map { sourceReferences.contains($0) && !processed.contains($0) } ?? false
                entry.action = conflictAction(pendingSource: pendingSource)
                if entry.action == .replacedDestination {
                    let request =
                        occupant.map { DeleteRequest(byReference($0)) } ?? DeleteRequest(placement.target, limit: .one)
                    operations.append(.delete(request))
                    slots[targetSlot] = .empty
                }
                if entry.action != .replacedDestination {
                    entries.append(entry)
                    continue
                }
            }
            if mode == .move {
                operations.append(.delete(DeleteRequest(byReference(item.persistentReference))))
                slots[Slot(item.attributes)] = .empty
            }
            // Tags written before their text was kept (`searchTags == nil`) cannot be carried through an agent.
            let tags = item.searchTags ?? []
            operations.append(
                .add(NewItem(.genericPassword, attributes: placement.added, data: proposed.value, searchTags: tags))
            )
            slots[targetSlot] = .occupied(nil)
            entries.append(entry)
        }

        let report = MigrationReport(entries: entries, isDryRun: dryRun)
        let conflicts = report.entries(.conflict).count
        if conflicts > 0, !dryRun {
            throw KeychainError(
                .duplicateItem,
                "\(conflicts) migrated key(s) already exist in the destination; nothing was migrated. "
                    + "List them with dryRun(), or choose the conflict policy .replaceDestination or .keepDestination."
            )
        }
        if !dryRun, !operations.isEmpty { _ = try service.batch(operations) }
        return report
    }

    /// Every source item with its secret and its search tags (read back so that copies keep them); empty
    /// when none.
    private static func sourceItems(
        _ query: ItemQuery,
        through service: any KeychainService
    ) throws(KeychainError) -> [FoundItem] {
        let request = FindRequest(query, limit: .all, withData: true, withSearchTags: true)
        do {
            return try service.perform(.find(request)).items()
        } catch {
            guard error.code == .itemNotFound else { throw error }
            return []
        }
    }
}
