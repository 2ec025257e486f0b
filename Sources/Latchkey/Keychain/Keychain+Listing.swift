import Foundation

/// How far `Keychain.removeAll(_:)` reaches.
public enum RemovalScope: Sendable, Hashable {
    /// The keychain's service, in its access group (or all of the process's groups) and sync policy.
    case service
    /// Every item of every class (generic and internet passwords, keys, certificates, local and
    /// synchronizable) in every access group this process can see, whatever its service. Other
    /// processes' groups are untouched.
    case everythingVisibleToThisProcess
}

extension Keychain {
    /// Whether an item exists under `key`, without reading its secret and without needing its class key.
    ///
    /// The answer comes from the keychain's search index, so it works for items whose class is locked
    /// ("exists, locked") and never needs authentication.
    ///
    /// - Throws: `interactionNotAllowed` only when the keychain has never been unlocked in this process
    ///   and its device secret cannot open the index; `missingEntitlement` for a foreign access group.
    public func contains(_ key: String) throws(KeychainError) -> Bool {
        try resolvedService().exists(query(forKey: key))
    }

    /// Every key of the service (in its access group and sync policy), oldest first.
    ///
    /// - Throws: `interactionNotAllowed` when one of the items' class is locked.
    public func allKeys() throws(KeychainError) -> [String] {
        try items().map(\.key)
    }

    /// Every key of the service with its metadata (dates, label, comment, accessibility), oldest first.
    ///
    /// Secrets are not read.
    ///
    /// - Throws: `interactionNotAllowed` when one of the items' class is locked.
    public func items() throws(KeychainError) -> [KeychainItemInfo] {
        try resolvedService().findAll(query(forKey: nil)).compactMap { item in
            Self.key(of: item.attributes).map { KeychainItemInfo(key: $0, metadata: KeychainItemMetadata(item)) }
        }
    }

    /// The metadata of the item under `key`, or `nil` when there is none. The secret is not read.
    ///
    /// - Throws: `interactionNotAllowed` when the item's class is locked.
    public func metadata(forKey key: String) throws(KeychainError) -> KeychainItemMetadata? {
        try resolvedService().findFirst(query(forKey: key)).map(KeychainItemMetadata.init)
    }

    /// Removes every item in `scope`, in one transaction.
    ///
    /// ```swift
    /// try keychain.removeAll()                                  // this service only
    /// try keychain.removeAll(.everythingVisibleToThisProcess)  // explicit opt-in
    /// ```
    ///
    /// - Parameter scope: `.service` (default) or, explicitly, every item this process can see.
    /// - Returns: How many items were removed (0 is not an error).
    /// - Throws: `interactionNotAllowed` when one of the items' class is locked (then nothing is removed).
    @discardableResult
    public func removeAll(_ scope: RemovalScope = .service) throws(KeychainError) -> Int {
        switch scope {
        case .service:
            return try remove(query(forKey: nil))
        case .everythingVisibleToThisProcess:
            let deletes = ItemClass.storable.map {
                KeychainOperation.delete(DeleteRequest(ItemQuery($0, synchronizable: .any)))
            }
            return try Self.deletedCount(resolvedService().batch(deletes))
        }
    }
}
