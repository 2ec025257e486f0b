import Foundation
import Latchkey

/// `org.freedesktop.Secret.Item` on each item of a collection.
extension SecretService {
    func handleItem(_ call: BusCall, collection: String, id: String) throws(SecretServiceError) -> [BusValue] {
        let arguments = call.arguments
        let path = ObjectPath.itemPath(collection, id)
        let collectionPath = ObjectPath.collectionPath(collection)
        switch call.member {
        case "GetSecret":
            guard arguments.count == 1, let sessionPath = arguments[0].stringValue else {
                throw .invalidArguments("GetSecret takes o.")
            }
            let session = try session(at: sessionPath, caller: call.sender)
            let (item, secret) = try item(id, in: collection, withSecret: true)
            guard let secret else { throw .isLocked() }
            guard mayUse(item, caller: call.sender) else { throw .isLocked(Self.foreignItem) }
            let encoded = try session.encode(secret, contentType: item.contentType)
            recordAccess(.read, caller: call.sender, labels: [item.label])
            return [encoded]
        case "SetSecret":
            guard arguments.count == 1, case .structure(let fields) = arguments[0], fields.count == 4,
                let sessionPath = fields[0].stringValue
            else { throw .invalidArguments("SetSecret takes (oayays).") }
            let session = try session(at: sessionPath, caller: call.sender)
            let item = try requireUse(id: id, in: collection, caller: call.sender)
            let (secret, contentType) = try session.decode(arguments[0])
            try keychain { () throws(KeychainError) in
                try store(for: collection).setSecret(id: id, secret, contentType: contentType)
            }
            recordAccess(.write, caller: call.sender, labels: [item.label])
            emit(collectionPath, Self.collectionInterface, "ItemChanged", [.objectPath(path)])
            return []
        case "Delete":
            let item = try requireUse(id: id, in: collection, caller: call.sender)
            try keychain { () throws(KeychainError) in try store(for: collection).delete(id: id) }
            recordAccess(.delete, caller: call.sender, labels: [item.label])
            emit(collectionPath, Self.collectionInterface, "ItemDeleted", [.objectPath(path)])
            emitItemsChanged(collection)
            return [.objectPath(ObjectPath.none)]
        default:
            throw .unknownMethod("No method \(call.member) on an item.")
        }
    }

    /// Why a caller cannot use an item that is not locked by the keychain itself.
    static let foreignItem =
        "The item belongs to another application: call Unlock on it, which asks the user, or run `latchkey unlock`."

    /// Throws `IsLocked` unless `caller` may use item `id` of `collection` now.
    @discardableResult
    func requireUse(id: String, in collection: String, caller: String) throws(SecretServiceError) -> SecretItem {
        let (item, _) = try item(id, in: collection)
        guard mayUse(item, caller: caller) else { throw .isLocked(Self.foreignItem) }
        return item
    }

    /// The item's properties as `caller` sees them (`Locked` is true for another application's item).
    ///
    /// While the keychain is locked its items' attributes cannot be read: an item then shows what
    /// `lockedItemProperties` can say.
    func itemProperties(
        id: String,
        in collection: String,
        caller: String
    ) throws(SecretServiceError) -> [String:
        BusValue]
    {
        if isLocked(collection: collection) {
            guard SecretItemStore.reference(from: id) != nil else { throw .noSuchObject() }
            return lockedItemProperties(id: id, caller: caller)
        }
        let (item, _) = try item(id, in: collection)
        return [
            "Locked": .boolean(!mayUse(item, caller: caller)),
            "Attributes": .stringDictionary(item.attributes),
            "Label": .string(item.label),
            "Type": .string(item.type),
            "Created": .uint64(Self.seconds(item.created)),
            "Modified": .uint64(Self.seconds(item.modified)),
        ]
    }

    /// Sets a writable item property (`Label`, `Attributes`; `Type` is read-only here).
    func setItemProperty(
        id: String,
        in collection: String,
        name: String,
        value: BusValue,
        caller: String
    ) throws(SecretServiceError) {
        try requireUse(id: id, in: collection, caller: caller)
        let store = store(for: collection)
        switch name {
        case "Label":
            guard let label = value.stringValue else { throw .invalidArguments("Label is a string.") }
            try keychain { () throws(KeychainError) in try store.setLabel(id: id, label) }
        case "Attributes":
            guard let attributes = value.stringDictionaryValue else { throw .invalidArguments("Attributes is a{ss}.") }
            try keychain { () throws(KeychainError) in try store.setAttributes(id: id, attributes) }
        default:
            throw .notSupported("The item property \(name) cannot be set.")
        }
        let path = ObjectPath.itemPath(collection, id)
        emit(
            path,
            "org.freedesktop.DBus.Properties",
            "PropertiesChanged",
            [
                .string(Self.itemInterface), .properties([name: value.unwrappedVariant]), .array(element: "s", []),
            ]
        )
        emit(ObjectPath.collectionPath(collection), Self.collectionInterface, "ItemChanged", [.objectPath(path)])
    }
}

extension BusValue {
    /// The value inside a variant (itself when it is not one).
    var unwrappedVariant: BusValue {
        if case .variant(let inner) = self { inner.unwrappedVariant } else { self }
    }
}
