import Foundation
import Latchkey

/// Which collections exist, what their paths and aliases name, and where their items are kept.
extension SecretService {
    /// The collections and aliases: read from the keychain once it is unlocked (and kept while it is
    /// locked again); only `login` and `session` before that.
    func collections() -> SecretCollections {
        if let knownCollections { return knownCollections }
        guard !isLocked, var loaded = try? items.loadCollections() else { return SecretCollections() }
        if loaded.tagged != true {
            // Once per keychain: items stored before search tags get theirs, so searches use the index.
            do {
                let count = try items.tagUntaggedItems()
                loaded.tagged = true
                try items.saveCollections(loaded)
                logger.info("secret service: items given search tags", metadata: ["count": "\(count)"])
            } catch {
                // Not retried on every call: older items stay out of searches until the agent restarts.
                logger.error(
                    "secret service: items not given search tags",
                    metadata: ["code": "\(error.code.rawValue)"]
                )
                knownCollections = loaded
                return loaded
            }
        }
        knownCollections = loaded
        return loaded
    }

    /// Saves changed collections and aliases in the keychain.
    func saveCollections(_ changed: SecretCollections) throws(SecretServiceError) {
        try keychain { () throws(KeychainError) in try items.saveCollections(changed) }
        knownCollections = changed
    }

    /// What `path` names, its alias resolved: an alias that names no collection, or a collection that does
    /// not exist, is `.unknown`.
    func resolve(_ path: String) -> ObjectPath {
        switch ObjectPath(path) {
        case .alias(let alias):
            return collections().collection(forAlias: alias).map { .collection($0) } ?? .unknown
        case .aliasItem(let alias, let id):
            return collections().collection(forAlias: alias).map { .item(collection: $0, id: id) } ?? .unknown
        case .collection(let name):
            return collections().exists(name) ? .collection(name) : .unknown
        case .item(let collection, let id):
            return collections().exists(collection) ? .item(collection: collection, id: id) : .unknown
        case let other:
            return other
        }
    }

    /// The store that keeps `collection`'s items.
    func store(for collection: String) -> any SecretItemStoring {
        collection == ObjectPath.sessionCollection ? sessionItems : items
    }

    /// Whether `collection` is locked: the keychain's collections follow the keychain; `session` never is.
    func isLocked(collection: String) -> Bool {
        collection == ObjectPath.sessionCollection ? false : isLocked
    }

    /// The items of `collection` (every collection when `nil`) whose attribute maps contain `query`.
    ///
    /// - Throws: `IsLocked` when the search covers the keychain and it is locked.
    func searchItems(_ query: [String: String], in collection: String?) throws(SecretServiceError) -> [SecretItem] {
        _ = collections()  // gives older items their search tags first
        var found: [SecretItem] = []
        if collection == nil || collection == ObjectPath.sessionCollection {
            found += try keychain { () throws(KeychainError) in try sessionItems.search(query, in: nil) }
        }
        if collection != ObjectPath.sessionCollection {
            // The keychain's attributes are encrypted: nothing can be matched while it is locked.
            guard !isLocked else { throw .isLocked() }
            found += try keychain { () throws(KeychainError) in try items.search(query, in: collection) }
        }
        return found
    }

    /// The most items a connection may hold unverified from searches made while the keychain was locked.
    static let maximumUnverified = 4096

    /// The paths of the keychain's items matching `query` while it is locked (in `collection`, or in every
    /// collection known), found through the index alone and remembered for `caller` as unverified: each
    /// one's attributes are checked against `query` once it is unlocked (`mayUse`).
    ///
    /// - Throws: `IsLocked` when even the index is locked (no device secret opens it).
    func lockedSearch(
        _ query: [String: String],
        in collection: String?,
        caller name: String
    ) throws(SecretServiceError) -> [String] {
        let names = collection.map { [$0] } ?? collections().names.filter { $0 != ObjectPath.sessionCollection }
        _ = caller(name)
        var paths: [String] = []
        for collection in names {
            let ids: [String]
            do {
                ids = try items.lockedMatches(query, in: collection)
            } catch {
                throw .isLocked("The keychain is locked and its index cannot be read without it: unlock it first.")
            }
            for id in ids {
                // Every path handed out is remembered until checked; past the limit the rest are left out
                // (never handed out unchecked), until the client reads what it found or the keychain opens.
                guard
                    (callers[name]?.unverified.count ?? 0) < Self.maximumUnverified
                        || callers[name]?.unverified[id] != nil
                else { break }
                callers[name]?.unverified[id, default: []].append(query)
                paths.append(ObjectPath.itemPath(collection, id))
            }
        }
        return paths
    }

    /// Every item of `collection`, or none while it is locked.
    func visibleItems(in collection: String) throws(SecretServiceError) -> [SecretItem] {
        isLocked(collection: collection) ? [] : try searchItems([:], in: collection)
    }

    /// The item `id` of `collection`, and its secret when `withSecret`.
    func item(
        _ id: String,
        in collection: String,
        withSecret: Bool = false
    ) throws(SecretServiceError) -> (SecretItem, SecretData?) {
        let found = try keychain { () throws(KeychainError) in
            try store(for: collection).item(id: id, withSecret: withSecret)
        }
        guard found.0.collection == collection else { throw .noSuchObject() }
        return found
    }

    /// `PropertiesChanged` for the service's `Collections`, with the new list.
    func emitCollectionsChanged() {
        let paths = collections().names.map(ObjectPath.collectionPath)
        emit(
            ObjectPath.servicePath,
            "org.freedesktop.DBus.Properties",
            "PropertiesChanged",
            [
                .string(Self.serviceInterface), .properties(["Collections": .objectPaths(paths)]),
                .array(element: "s", []),
            ]
        )
    }
}
