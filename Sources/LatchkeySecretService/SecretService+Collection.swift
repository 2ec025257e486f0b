import Foundation
import Latchkey

/// `org.freedesktop.Secret.Collection` on the login collection (and its `default` alias).
extension SecretService {
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"

    func handleCollection(_ call: BusCall) throws(SecretServiceError) -> [BusValue] {
        let arguments = call.arguments
        switch call.member {
        case "SearchItems":
            guard arguments.count == 1, let query = arguments[0].stringDictionaryValue else {
                throw .invalidArguments("SearchItems takes a{ss}.")
            }
            let found = try keychain { () throws(KeychainError) in try items.search(query) }
            return [.objectPaths(found.map { ObjectPath.itemPath($0.id) })]
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
            let (item, created) = try keychain { () throws(KeychainError) in
                try items.create(
                    label: label,
                    attributes: attributes,
                    type: type,
                    secret: secret,
                    contentType: contentType,
                    owner: owner(forCreator: call.sender),
                    mayReplace: { replace && mayUse($0, caller: call.sender) }
                )
            }
            let path = ObjectPath.itemPath(item.id)
            emit(
                ObjectPath.collectionPath,
                Self.collectionInterface,
                created ? "ItemCreated" : "ItemChanged",
                [
                    .objectPath(path)
                ]
            )
            if created { emitItemsChanged() }
            return [.objectPath(path), .objectPath(ObjectPath.none)]
        case "Delete":
            throw .notSupported("The login collection is the keychain itself; delete its items one by one.")
        default:
            throw .unknownMethod("No method \(call.member) on a collection.")
        }
    }

    /// `PropertiesChanged` for the collection's `Items`, as an invalidated property: clients that want the
    /// list ask for it, so a write never decrypts every item's attributes to announce it.
    func emitItemsChanged() {
        emit(
            ObjectPath.collectionPath,
            "org.freedesktop.DBus.Properties",
            "PropertiesChanged",
            [
                .string(Self.collectionInterface), .properties([:]), .array(element: "s", [.string("Items")]),
            ]
        )
    }

    /// The collection's properties, or only `name` when given: `Items`, `Created` and `Modified` read every
    /// item's attributes, so a `Get` of `Locked` or `Label` (which clients ask before each write) does not.
    func collectionProperties(only name: String? = nil) throws(SecretServiceError) -> [String: BusValue] {
        var properties: [String: BusValue] = [
            "Label": .string(ObjectPath.collectionLabel),
            "Locked": .boolean(isLocked),
        ]
        if let name, properties[name] != nil { return properties }
        let all = isLocked ? [] : try keychain { () throws(KeychainError) in try items.search([:]) }
        let created = all.map(\.created).min() ?? Date(timeIntervalSince1970: 0)
        let modified = all.map(\.modified).max() ?? created
        properties["Items"] = .objectPaths(all.map { ObjectPath.itemPath($0.id) })
        properties["Created"] = .uint64(Self.seconds(created))
        properties["Modified"] = .uint64(Self.seconds(modified))
        return properties
    }

    /// Seconds since 1970, as the specification's `t` dates.
    static func seconds(_ date: Date) -> UInt64 {
        UInt64(max(0, date.timeIntervalSince1970.rounded(.down)))
    }
}
