import Foundation
import LatchkeyCrypto

/// The in-process executor of the operation API: every face's request ends here, in one transaction
/// per write operation.
extension KeychainStore: KeychainService {
    /// Executes one operation on this file.
    ///
    /// - Throws: `KeychainError` (see `KeychainOperation` for each operation's errors).
    public func perform(_ operation: KeychainOperation) throws(KeychainError) -> KeychainOutcome {
        switch operation.storage {
        case .find(let request):
            return .items(try executeFind(request))
        case .exists(let query):
            return .exists(try executeExists(query))
        case .lockState:
            return .lockState(lockState)
        case .unlock(let credential):
            try unlock(with: credential)
            return .lockState(lockState)
        case .lock:
            lock()
            return .lockState(lockState)
        case .accessGroups:
            return .accessGroups(options.accessGroups)
        case .changeCounter:
            return .changeCounter(try changeCounter())
        case .damagedItems(let itemClass, let includingSecrets):
            return .damagedItems(try damagedItems(itemClass, includingSecrets: includingSecrets))
        case .verifyIntegrity(let acceptingCurrentState):
            let report = try verifyIntegrity()
            if acceptingCurrentState { try acceptCurrentRows() }
            return .integrity(report)
        case .changeCredential(let current, let new):
            try unlock(with: current)
            switch new {
            case .passphrase(let passphrase): try changePassphrase(to: passphrase)
            case .keyFile: try setKeyFile(new)
            }
            return .lockState(lockState)
        case .add, .addAll, .upsert, .updateFirstOrAdd, .restore, .update, .delete, .batch:
            let outcome = try transaction { try $0.perform(operation, inBatch: false) }
            options.logger.debug("items changed", metadata: ["operation": "\(operation.name)"])
            return outcome
        }
    }
}

extension ItemTransaction {
    /// Executes a write operation inside this transaction.
    func perform(_ operation: KeychainOperation, inBatch: Bool) throws -> KeychainOutcome {
        switch operation.storage {
        case .add(let item):
            return .items([try add(item)])
        case .addAll(let items, let tolerateExisting):
            return .items(try addAll(items, tolerateExisting: tolerateExisting))
        case .upsert(let item):
            return .items([
                try upsert(item.itemClass, attributes: item.attributes, data: item.data, searchTags: item.searchTags)
            ])
        case .updateFirstOrAdd(let match, let changes, let item):
            let (plan, existing) = try find(match, withData: false)
            if let first = existing.first {
                return .items([try update(first, plan: plan, with: changes)])
            }
            return .items([try add(item)])
        case .restore(let item, let replacingExisting):
            return .restored(try restore(item, replacingExisting: replacingExisting))
        case .update(let request):
            let count = try updateAll(request.query, with: request.changes, authentication: request.authentication)
            guard count > 0 || inBatch else { throw KeychainStore.notFound }
            return .count(count)
        case .delete(let request):
            let count = try deleteAll(request.query, limit: request.limit)
            guard count > 0 || inBatch else { throw KeychainStore.notFound }
            return .count(count)
        case .find(let request):
            var (plan, rows) = try find(request.query, withData: request.withData)
            if let limit = request.limit.rowLimit, rows.count > limit { rows.removeLast(rows.count - limit) }
            return .items(rows.map { $0.found(plan.itemClass, withSearchTags: request.withSearchTags) })
        case .batch(let operations):
            guard !inBatch else { throw KeychainError(.param, "A batch cannot contain another batch.") }
            return .batch(try operations.map { try perform($0, inBatch: true) })
        case .exists, .lockState, .unlock, .lock, .accessGroups, .changeCounter, .damagedItems, .verifyIntegrity,
            .changeCredential:
            throw KeychainError(.param, "Only item operations can run inside a batch.")
        }
    }
}
