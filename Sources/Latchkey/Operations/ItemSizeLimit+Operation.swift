extension ItemSizeLimit {
    /// Refuses every item and change of `operation` (and of the operations of a batch) over `maximumBytes`.
    package static func check(_ operation: KeychainOperation) throws(KeychainError) {
        switch operation.storage {
        case .add(let item), .upsert(let item), .restore(let item, _):
            try check(item)
        case .addAll(let items, _):
            for item in items { try check(item) }
        case .updateFirstOrAdd(_, let changes, let otherwise):
            try check(changes)
            try check(otherwise)
        case .update(let request):
            try check(request.changes)
        case .batch(let operations):
            for operation in operations { try check(operation) }
        case .find, .exists, .delete, .lockState, .unlock, .lock, .accessGroups, .changeCounter, .damagedItems,
            .verifyIntegrity, .changeCredential:
            break
        }
    }
}
