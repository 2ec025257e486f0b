import Foundation
import Latchkey

/// `org.freedesktop.Secret.Collection` on each collection (and the aliases that name it).
extension SecretService {
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"

    func handleCollection(_ call: BusCall, name: String) throws(SecretServiceError) -> [BusValue] {
        let arguments = call.arguments
        let collectionPath = ObjectPath.collectionPath(name)
        switch call.member {
        case "SearchItems":
            guard arguments.count == 1, let query = arguments[0].stringDictionaryValue else {
                throw .invalidArguments("SearchItems takes a{ss}.")
            }
            if isLocked(collection: name) {
                return [.objectPaths(try lockedSearch(query, in: name, caller: call.sender))]
            }
            let found = try searchItems(query, in: name)
            return [.objectPaths(found.map { ObjectPath.itemPath(name, $0.id) })]
        case "CreateItem":
            guard arguments.count == 3, let properties = arguments[0].keyedValues,
                let replace = arguments[2].booleanValue, case .structure(let fields) = arguments[1], fields.count == 4,
                let sessionPath = fields[0].stringValue
            else { throw .invalidArguments("CreateItem takes (a{sv}, (oayays), b).") }
            let session = try session(at: sessionPath, caller: call.sender)
            let (secret, contentType) = try session.decode(arguments[1])
            let attributes = properties[Self.itemInterface + ".Attributes"]?.stringDictionaryValue ?? [:]
            let label = properties[Self.itemInterface + ".Label"]?.stringValue ?? ""
            let type = properties[Self.itemInterface + ".Type"]?.stringValue ?? attributes["xdg:schema"] ?? ""
            let owner = owner(forCreator: call.sender)
            let (item, created) = try keychain { () throws(KeychainError) in
                try store(for: name).create(
                    label: label,
                    attributes: attributes,
                    type: type,
                    secret: secret,
                    contentType: contentType,
                    owner: owner,
                    collection: name,
                    // `replace` replaces an item with the same attributes that the caller may use; without it,
                    // a second item with the same attributes is made.
                    replace: replace,
                    mayReplace: { mayUse($0, caller: call.sender) }
                )
            }
            let path = ObjectPath.itemPath(name, item.id)
            emit(collectionPath, Self.collectionInterface, created ? "ItemCreated" : "ItemChanged", [.objectPath(path)])
            if created { emitItemsChanged(name) }
            recordAccess(.write, caller: call.sender, labels: [item.label])
            return [.objectPath(path), .objectPath(ObjectPath.none)]
        case "Delete":
            return [.objectPath(try requestDeleteCollection(name, caller: call.sender))]
        default:
            throw .unknownMethod("No method \(call.member) on a collection.")
        }
    }

    /// Deletes a collection and its items: `session` is emptied (it always exists), one made with
    /// `CreateCollection` disappears with its aliases (`requestDeleteCollection` decides whether the caller may).
    func deleteCollection(_ name: String) throws(SecretServiceError) {
        let removed: [String]
        if name == ObjectPath.sessionCollection {
            removed = sessionItems.removeAll()
        } else {
            removed = try keychain { () throws(KeychainError) in try items.deleteAll(in: name) }
            var changed = collections()
            changed.collections[name] = nil
            changed.aliases = changed.aliases.filter { $0.value != name }
            try saveCollections(changed)
        }
        let path = ObjectPath.collectionPath(name)
        for id in removed {
            emit(path, Self.collectionInterface, "ItemDeleted", [.objectPath(ObjectPath.itemPath(name, id))])
        }
        if name == ObjectPath.sessionCollection {
            emitItemsChanged(name)
        } else {
            emit(ObjectPath.servicePath, Self.serviceInterface, "CollectionDeleted", [.objectPath(path)])
            emitCollectionsChanged()
        }
    }

    /// `PropertiesChanged` for a collection's `Items`, as an invalidated property: clients that want the
    /// list ask for it, so a write never decrypts every item's attributes to announce it.
    func emitItemsChanged(_ collection: String) {
        emit(
            ObjectPath.collectionPath(collection),
            "org.freedesktop.DBus.Properties",
            "PropertiesChanged",
            [
                .string(Self.collectionInterface), .properties([:]), .array(element: "s", [.string("Items")]),
            ]
        )
    }

    /// A collection's properties, or only `name` when given: `Items`, `Created` and `Modified` read every
    /// item's attributes, so a `Get` of `Locked` or `Label` (which clients ask before each write) does not.
    func collectionProperties(
        _ collection: String,
        only name: String? = nil
    ) throws(SecretServiceError) -> [String:
        BusValue]
    {
        let registry = collections()
        let info = registry.collections[collection]
        var properties: [String: BusValue] = [
            "Label": .string(registry.label(of: collection)),
            "Locked": .boolean(isLocked(collection: collection)),
        ]
        if let name, properties[name] != nil { return properties }
        let all = try visibleItems(in: collection)
        let created = info?.created ?? all.map(\.created).min() ?? Date(timeIntervalSince1970: 0)
        let modified = all.map(\.modified).max() ?? created
        properties["Items"] = .objectPaths(all.map { ObjectPath.itemPath(collection, $0.id) })
        properties["Created"] = .uint64(Self.seconds(created))
        properties["Modified"] = .uint64(Self.seconds(modified))
        return properties
    }

    /// Sets a collection's `Label` for the connection `caller`: that of `login` (any caller), or of one made with
    /// `CreateCollection` (in confined mode, with its owner's consent: `refusal` otherwise); `session` keeps
    /// its own.
    func setCollectionLabel(_ collection: String, _ value: BusValue, caller: String) throws(SecretServiceError) {
        guard let label = value.stringValue else { throw .invalidArguments("Label is a string.") }
        guard collection != ObjectPath.sessionCollection else {
            throw .notSupported("The session collection's label cannot be changed.")
        }
        guard !isLocked else { throw .isLocked() }
        var changed = collections()
        if collection == ObjectPath.login {
            // Relabelling the default collection needs no consent: clients' test suites do it.
            changed.loginLabel = label
        } else {
            let owner = changed.owner(of: collection)
            guard mayUse(owner: owner, caller: caller) else {
                throw refusal(
                    "Changing the label of the collection \(ObjectPath.collectionPath(collection))",
                    owner: owner,
                    caller: caller
                )
            }
            changed.collections[collection]?.label = label
        }
        try saveCollections(changed)
        emit(
            ObjectPath.collectionPath(collection),
            "org.freedesktop.DBus.Properties",
            "PropertiesChanged",
            [.string(Self.collectionInterface), .properties(["Label": .string(label)]), .array(element: "s", [])]
        )
        emit(
            ObjectPath.servicePath,
            Self.serviceInterface,
            "CollectionChanged",
            [.objectPath(ObjectPath.collectionPath(collection))]
        )
    }

    /// Seconds since 1970, as the specification's `t` dates.
    static func seconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
    }
}
