import Foundation
import Latchkey

/// The `session` collection: items kept in the agent's memory only, gone when it exits (the
/// specification's session collection). Used on the bus thread only.
final class SessionItemStore: SecretItemStoring {
    private var items: [String: (item: SecretItem, secret: SecretData)] = [:]
    private var nextID = 1
    private let now: () -> Date

    /// An empty collection; `now` dates its items.
    init(now: @escaping () -> Date = Date.init) {
        self.now = now
    }

    func search(_ query: [String: String], in collection: String?) throws(KeychainError) -> [SecretItem] {
        items.values.map(\.item).filter { $0.matches(query) }.sorted { $0.id < $1.id }
    }

    func item(id: String, withSecret: Bool) throws(KeychainError) -> (SecretItem, SecretData?) {
        guard let stored = items[id] else { throw KeychainError(.itemNotFound, "No such Secret Service item.") }
        return (stored.item, withSecret ? stored.secret : nil)
    }

    func create(
        label: String,
        attributes: [String: String],
        type: String,
        secret: SecretData,
        contentType: String,
        owner: String?,
        collection: String,
        replace: Bool,
        mayReplace: (SecretItem) -> Bool
    ) throws(KeychainError) -> (SecretItem, Bool) {
        let date = now()
        let same = replace ? try search(attributes, in: nil).filter { $0.hasSameAttributes(as: attributes) } : []
        if !same.isEmpty {
            guard let existing = same.first(where: mayReplace) else {
                throw SecretItemStore.foreignItemRefusal(existingOwner: same.first?.owner, creator: owner)
            }
            var replaced = existing
            replaced.label = label
            replaced.attributes = attributes
            replaced.type = type
            replaced.contentType = contentType
            replaced.modified = date
            items[existing.id] = (replaced, secret)
            return (replaced, false)
        }
        let id = "m\(nextID)"
        nextID += 1
        let item = SecretItem(
            id: id,
            label: label,
            attributes: attributes,
            type: type,
            contentType: contentType,
            created: date,
            modified: date,
            owner: owner,
            collection: ObjectPath.sessionCollection
        )
        items[id] = (item, secret)
        return (item, true)
    }

    func setSecret(id: String, _ secret: SecretData, contentType: String) throws(KeychainError) {
        try change(id) { item, stored in
            item.contentType = contentType
            stored = secret
        }
    }

    func setLabel(id: String, _ label: String) throws(KeychainError) {
        try change(id) { item, _ in item.label = label }
    }

    func setAttributes(id: String, _ attributes: [String: String]) throws(KeychainError) {
        try change(id) { item, _ in item.attributes = attributes }
    }

    func delete(id: String) throws(KeychainError) {
        guard items.removeValue(forKey: id) != nil else {
            throw KeychainError(.itemNotFound, "No such Secret Service item.")
        }
    }

    /// Forgets every item (the collection's `Delete`); returns their ids.
    func removeAll() -> [String] {
        defer { items.removeAll() }
        return items.keys.sorted()
    }

    private func change(_ id: String, _ body: (inout SecretItem, inout SecretData) -> Void) throws(KeychainError) {
        guard var stored = items[id] else { throw KeychainError(.itemNotFound, "No such Secret Service item.") }
        body(&stored.item, &stored.secret)
        stored.item.modified = now()
        items[id] = stored
    }
}
