import Crypto
import Foundation
import Latchkey
import LatchkeyCrypto

/// The Secret Service's items in the keychain, through the agent's store seen with the Secret Service's
/// access group.
///
/// The mapping (docs/secret-service.md): a generic password (`genp`) whose label is the item's label,
/// whose `svce`/`acct` are libsecret's conventional `service`/`username` attributes (empty when absent,
/// so `latchkey find-generic-password -s S -a U` finds what `secret-tool store ... service S username U`
/// stored), whose generic attribute (`gena`) holds the whole attribute map, type and content type as
/// sorted JSON (encrypted like every attribute), and whose sync view hint (`vwht`, a primary-key attribute
/// otherwise unused on Linux) is the SHA-256 of the attribute map, so that two items differing only in
/// their other attributes do not collide, with a random suffix when another item of the collection has the
/// same map (`CreateItem` without `replace` makes such a second item).
struct SecretItemStore: SecretItemStoring {
    /// The access group of every Secret Service item.
    static let accessGroup = "org.freedesktop.secrets"

    /// The agent's store scoped to `accessGroup`.
    let service: any KeychainService
    /// Called after every committed write (the agent records its ledger state there).
    let didWrite: @Sendable () -> Void

    /// Records already decoded (every lookup reads the same few again).
    static let records = RecordCache()

    /// What `gena` holds.
    struct Record: Codable, Sendable {
        var attributes: [String: String]
        var type: String
        var contentType: String
        /// The creating application; absent in records written before confinement.
        var owner: String?
        /// The collection, absent for `login` (and in records written before collections).
        var collection: String?
        /// Whether the item carries its search tags (absent in records written before them).
        var tagged: Bool?
    }

    /// The items whose attribute maps contain `query`: the index narrows by `service`/`username` when the
    /// query names them; the candidates' attributes (never their secrets) are decrypted and filtered.
    func search(_ query: [String: String], in collection: String? = nil) throws(KeychainError) -> [SecretItem] {
        var attributes: [AttributeName: AttributeValue] = [:]
        if let service = query["service"] { attributes[.service] = .string(service) }
        if let username = query["username"] { attributes[.account] = .string(username) }
        // The tag index finds the candidates; their decrypted attributes are checked again below.
        let tags = Self.queryTags(of: query, collection: collection)
        let found = try service.findAll(ItemQuery(.genericPassword, attributes: attributes, searchTags: tags))
        return found.compactMap(Self.item(from:)).filter { item in
            (collection == nil || item.collection == collection) && item.matches(query)
        }
    }

    /// The ids of the items of `collection` whose tags match `query`, from the keychain's index alone (no
    /// record opened): what a locked keychain can say when its device secret opens the index key. The
    /// matches are candidates: the caller checks each one's attributes once the keychain is unlocked.
    ///
    /// - Throws: `interactionNotAllowed` when the index key is not available (no device secret).
    func lockedMatches(_ query: [String: String], in collection: String) throws(KeychainError) -> [String] {
        var attributes: [AttributeName: AttributeValue] = [:]
        if let service = query["service"] { attributes[.service] = .string(service) }
        if let username = query["username"] { attributes[.account] = .string(username) }
        let request = FindRequest(
            ItemQuery(
                .genericPassword,
                attributes: attributes,
                searchTags: Self.queryTags(of: query, collection: collection)
            ),
            limit: .all,
            referencesOnly: true
        )
        do {
            return try service.perform(.find(request)).items().map { $0.persistentReference.lowercaseHex }
        } catch  where error.code == .itemNotFound {
            return []
        }
    }

    /// The item with object-path element `id`, and its secret when `withSecret`.
    func item(id: String, withSecret: Bool) throws(KeychainError) -> (SecretItem, SecretData?) {
        guard let reference = Self.reference(from: id) else {
            throw KeychainError(.itemNotFound, "No such Secret Service item.")
        }
        let found = try service.findOne(
            ItemQuery(.genericPassword, persistentReference: reference),
            withData: withSecret
        )
        guard let item = Self.item(from: found) else {
            throw KeychainError(.itemNotFound, "Not a Secret Service item.")
        }
        return (item, found.data)
    }

    /// Creates an item owned by `owner`; with `replace`, replaces instead the secret, label and attributes of an
    /// item of `collection` with the same attribute map (an absent `xdg:schema` being libsecret's generic
    /// schema) that `mayReplace` allows (the replaced item keeps its owner). Without `replace` a second item
    /// with the same attributes is made, as the specification says.
    ///
    /// `vwht` is only what keeps two items apart: the digest of the attribute map, or, when another item of the
    /// collection already has it (`replace` false, or an attribute map equal but for `xdg:schema`), the digest
    /// and a random suffix. Which item is replaced is decided by the attributes, never by `vwht`.
    ///
    /// - Returns: The item and whether it is new.
    /// - Throws: `interactionNotAllowed` when `replace` is true and `mayReplace` refuses every item with these
    ///   attributes (another application's), and what the keychain throws.
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
        let stored = Self.stored(collection)
        let tags = Self.tags(of: attributes, collection: collection)
        if replace {
            let same = try search(attributes, in: collection).filter { $0.hasSameAttributes(as: attributes) }
            if !same.isEmpty {
                guard let existing = same.first(where: mayReplace), let reference = Self.reference(from: existing.id)
                else {
                    throw Self.foreignItemRefusal(existingOwner: same.first?.owner, creator: owner)
                }
                let kept = Record(
                    attributes: attributes,
                    type: type,
                    contentType: contentType,
                    owner: existing.owner,
                    collection: stored,
                    tagged: true
                )
                // `svce` and `acct` are the same (only `xdg:schema` may differ); `vwht` stays the item's own.
                let target = ItemQuery(.genericPassword, persistentReference: reference)
                let changes = ItemChanges(
                    attributes: [.label: .string(label), .generic: .data(try Self.encode(kept))],
                    data: secret,
                    searchTags: tags
                )
                guard try service.update(target, with: changes) > 0 else {
                    throw KeychainError(.itemNotFound, "The item with these attributes is gone.")
                }
                didWrite()
                guard let item = Self.item(from: try service.findOne(target)) else {
                    throw KeychainError(.decode, "The item is unreadable.")
                }
                return (item, false)
            }
        }
        let record = Record(
            attributes: attributes,
            type: type,
            contentType: contentType,
            owner: owner,
            collection: stored,
            tagged: true
        )
        var fields = try Self.fields(of: record)
        fields[.label] = .string(label)
        let added: FoundItem
        do throws(KeychainError) {
            added = try service.add(.genericPassword, attributes: fields, data: secret, searchTags: tags)
        } catch  where error.code == .duplicateItem {
            // Another item of the collection has this digest: this one is told apart by a suffix.
            fields[.syncViewHint] = .string(Self.uniqueHint(of: record))
            added = try service.add(.genericPassword, attributes: fields, data: secret, searchTags: tags)
        }
        didWrite()
        guard let item = Self.item(from: added) else { throw KeychainError(.decode, "The new item is unreadable.") }
        return (item, true)
    }

    /// Replaces an item's secret (and its content type).
    func setSecret(id: String, _ secret: SecretData, contentType: String) throws(KeychainError) {
        let (item, _) = try self.item(id: id)
        let record = Self.record(of: item, attributes: item.attributes, contentType: contentType)
        try update(
            id: id,
            ItemChanges(
                attributes: [.generic: .data(try Self.encode(record))],
                data: secret,
                searchTags: Self.tags(of: item.attributes, collection: item.collection)
            )
        )
    }

    /// Changes an item's label.
    func setLabel(id: String, _ label: String) throws(KeychainError) {
        try update(id: id, ItemChanges(attributes: [.label: .string(label)]))
    }

    /// Changes an item's attribute map (its `svce`/`acct`/`vwht` follow; `vwht` with a suffix when another
    /// item of the collection has the same attributes).
    func setAttributes(id: String, _ attributes: [String: String]) throws(KeychainError) {
        let (item, _) = try self.item(id: id)
        let record = Self.record(of: item, attributes: attributes, contentType: item.contentType)
        var fields = try Self.fields(of: record)
        let tags = Self.tags(of: attributes, collection: item.collection)
        do throws(KeychainError) {
            try update(id: id, ItemChanges(attributes: fields, searchTags: tags))
        } catch  where error.code == .duplicateItem {
            fields[.syncViewHint] = .string(Self.uniqueHint(of: record))
            try update(id: id, ItemChanges(attributes: fields, searchTags: tags))
        }
    }

    /// Deletes an item.
    func delete(id: String) throws(KeychainError) {
        guard let reference = Self.reference(from: id) else {
            throw KeychainError(.itemNotFound, "No such Secret Service item.")
        }
        let count = try service.delete(ItemQuery(.genericPassword, persistentReference: reference))
        guard count > 0 else { throw KeychainError(.itemNotFound, "No such Secret Service item.") }
        didWrite()
    }

    /// The record of `item` rewritten with `attributes` and `contentType` (owner, type and collection kept).
    private static func record(of item: SecretItem, attributes: [String: String], contentType: String) -> Record {
        Record(
            attributes: attributes,
            type: item.type,
            contentType: contentType,
            owner: item.owner,
            collection: stored(item.collection),
            tagged: true
        )
    }

    /// Deletes every item of `collection`; returns their ids.
    func deleteAll(in collection: String) throws(KeychainError) -> [String] {
        let doomed = try search([:], in: collection)
        guard !doomed.isEmpty else { return [] }
        let operations = doomed.compactMap { item in
            Self.reference(from: item.id).map {
                KeychainOperation.delete(DeleteRequest(ItemQuery(.genericPassword, persistentReference: $0)))
            }
        }
        _ = try service.perform(.batch(operations))
        didWrite()
        return doomed.map(\.id)
    }

    // MARK: The collection registry

    /// The registry item's `vwht`: not a digest, so never an item's.
    static let registryHint = "secret-service:collections"

    /// The collections and aliases beyond `login` and `session` (empty when none was ever saved).
    func loadCollections() throws(KeychainError) -> SecretCollections {
        let found = try service.findAll(
            ItemQuery(.genericPassword, attributes: [.syncViewHint: .string(Self.registryHint)])
        )
        guard let bytes = found.first?.attributes[.generic]?.dataValue else { return SecretCollections() }
        do {
            return try JSONDecoder().decode(SecretCollections.self, from: bytes)
        } catch {
            throw KeychainError(.decode, "The Secret Service's collection registry is unreadable.")
        }
    }

    /// Saves the collections and aliases (one item, replaced).
    func saveCollections(_ collections: SecretCollections) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: Data
        do {
            bytes = try encoder.encode(collections)
        } catch {
            throw KeychainError(.param, "The collection registry cannot be encoded.")
        }
        let identity: [AttributeName: AttributeValue] = [
            .service: .string(""), .account: .string(""), .syncViewHint: .string(Self.registryHint),
        ]
        var fields = identity
        fields[.generic] = .data(bytes)
        fields[.label] = .string("Secret Service collections")
        _ = try service.perform(.upsert(NewItem(.genericPassword, attributes: fields)))
        didWrite()
    }

    private func update(id: String, _ changes: ItemChanges) throws(KeychainError) {
        guard let reference = Self.reference(from: id) else {
            throw KeychainError(.itemNotFound, "No such Secret Service item.")
        }
        let count = try service.update(ItemQuery(.genericPassword, persistentReference: reference), with: changes)
        guard count > 0 else { throw KeychainError(.itemNotFound, "No such Secret Service item.") }
        didWrite()
    }

    // MARK: Mapping

    /// The keychain attributes of a record: `svce`, `acct`, `vwht` and `gena`.
    static func fields(of record: Record) throws(KeychainError) -> [AttributeName: AttributeValue] {
        [
            .service: .string(record.attributes["service"] ?? ""),
            .account: .string(record.attributes["username"] ?? ""),
            .syncViewHint: .string(digest(of: record.attributes, collection: record.collection)),
            .generic: .data(try encode(record)),
        ]
    }

    /// The search tags of an item with `attributes` in `collection`: `ss` (every Secret Service item, for a
    /// search that names no attribute), `c:` and the collection, and one per attribute, `a:` and the name's
    /// length, name and value (so no two pairs share a tag). The keychain stores only their keyed tokens.
    static func tags(of attributes: [String: String], collection: String) -> [String] {
        ["ss", "c:" + collection] + attributes.map(attributeTag).sorted()
    }

    /// The tags a search for `query` in `collection` (every collection when `nil`) asks for: those of its
    /// attributes and collection, or `ss` alone. An `xdg:schema` of libsecret's generic schema asks for no tag:
    /// it also matches items without `xdg:schema` (`SecretItem.matches`).
    static func queryTags(of query: [String: String], collection: String?) -> [String] {
        let indexed = SecretItem.withoutGenericSchema(query)
        let tags = (collection.map { ["c:" + $0] } ?? []) + indexed.map(attributeTag).sorted()
        return tags.isEmpty ? ["ss"] : tags
    }

    private static func attributeTag(_ attribute: (key: String, value: String)) -> String {
        "a:\(attribute.key.utf8.count):\(attribute.key)=\(attribute.value)"
    }

    /// Gives search tags to the Secret Service items written before them (their records say so), once per
    /// keychain: the collection registry remembers it (`SecretCollections.tagged`). This one pass reads every
    /// item's attributes; searches after it use the tag index.
    ///
    /// - Returns: How many items were given tags.
    func tagUntaggedItems() throws(KeychainError) -> Int {
        let all = try service.findAll(ItemQuery(.genericPassword))
        var operations: [KeychainOperation] = []
        for found in all {
            guard let generic = Self.genericBytes(of: found),
                var record = try? JSONDecoder().decode(Record.self, from: generic), record.tagged != true
            else { continue }
            record.tagged = true
            let collection = record.collection ?? ObjectPath.login
            operations.append(
                .update(
                    UpdateRequest(
                        ItemQuery(.genericPassword, persistentReference: found.persistentReference),
                        changes: ItemChanges(
                            attributes: [.generic: .data(try Self.encode(record))],
                            searchTags: Self.tags(of: record.attributes, collection: collection)
                        )
                    )
                )
            )
        }
        guard !operations.isEmpty else { return 0 }
        _ = try service.perform(.batch(operations))
        didWrite()
        return operations.count
    }

    /// A collection's name as a record keeps it: `nil` for `login`.
    static func stored(_ collection: String) -> String? {
        collection == ObjectPath.login ? nil : collection
    }

    /// `secret-service:` and the hex SHA-256 of the attribute map's sorted JSON, preceded by the collection's
    /// name and a NUL for a collection other than `login` (so each collection keeps its own item per map).
    static func digest(of attributes: [String: String], collection: String? = nil) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var bytes = collection.map { Data($0.utf8) + Data([0]) } ?? Data()
        bytes += (try? encoder.encode(attributes)) ?? Data()
        return "secret-service:" + SHA256.hash(data: bytes).lowercaseHex
    }

    /// The `vwht` of an item whose digest another item of its collection has: the digest, `:` and 16 random
    /// bytes in hex, so that the keychain's primary key keeps both.
    static func uniqueHint(of record: Record) -> String {
        var random = SystemRandomNumberGenerator()
        let suffix = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }.lowercaseHex
        return digest(of: record.attributes, collection: record.collection) + ":" + suffix
    }

    private static func encode(_ record: Record) throws(KeychainError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(record)
        } catch {
            throw KeychainError(.param, "The item's attributes cannot be encoded.")
        }
    }

    /// The Secret Service view of a found item, or `nil` when it is not one (no readable `gena` record).
    static func item(from found: FoundItem) -> SecretItem? {
        guard let generic = Self.genericBytes(of: found),
            let record = records.record(generic)
        else { return nil }
        let label: String
        switch found.attributes[.label] {
        case .string(let text): label = text
        case .data(let bytes): label = String(decoding: bytes, as: UTF8.self)
        default: label = ""
        }
        let created = found.attributes[.creationDate]?.dateValue ?? Date(timeIntervalSince1970: 0)
        return SecretItem(
            id: found.persistentReference.lowercaseHex,
            label: label,
            attributes: record.attributes,
            type: record.type,
            contentType: record.contentType,
            created: created,
            modified: found.attributes[.modificationDate]?.dateValue ?? created,
            owner: record.owner,
            collection: record.collection ?? ObjectPath.login
        )
    }

    /// The bytes of an item's `gena` (stored as data; a string's UTF-8 when a tool wrote text).
    static func genericBytes(of found: FoundItem) -> Data? {
        switch found.attributes[.generic] {
        case .data(let bytes): bytes
        case .string(let text): Data(text.utf8)
        default: nil
        }
    }

    /// The persistent reference an object-path element names, or `nil` when it is not even-length hex.
    static func reference(from id: String) -> Data? {
        let digits = Array(id.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

extension SecretItemStore {
    /// The refusal of a `CreateItem` with `replace` over an item that another application owns, naming the
    /// two ways to allow it.
    static func foreignItemRefusal(existingOwner: String?, creator: String?) -> KeychainError {
        let other = existingOwner ?? "another application"
        var text =
            "\(other) stored an item with these attributes, so this program may not replace it: call Unlock on "
            + "that item (the agent asks the user)"
        if let creator, let existingOwner {
            text += " or run `latchkey access grant \(creator) \(SecretItemStore.accessGroup):\(existingOwner)`"
        }
        return KeychainError(.interactionNotAllowed, text + ".")
    }
}
