import Foundation

/// `org.freedesktop.DBus.Properties` (Get, GetAll, Set) for every object of the service.
extension SecretService {
    static let serviceInterface = "org.freedesktop.Secret.Service"

    func handleProperties(_ call: BusCall, _ object: ObjectPath) throws(SecretServiceError) -> [BusValue] {
        let arguments = call.arguments
        guard let interface = arguments.first?.stringValue else {
            throw .invalidArguments("\(call.member) takes the interface name first.")
        }
        switch call.member {
        case "GetAll":
            return [.properties(try properties(of: object, interface: interface, caller: call.sender))]
        case "Get":
            guard arguments.count == 2, let name = arguments[1].stringValue else {
                throw .invalidArguments("Get takes (s, s).")
            }
            guard let value = try properties(of: object, interface: interface, caller: call.sender, only: name)[name]
            else {
                if case .item(let collection, _) = object, isLocked(collection: collection) {
                    throw .isLocked("The keychain is locked: its items show only Locked until it is unlocked.")
                }
                throw .invalidArguments("No property \(name) on \(interface).")
            }
            return [.variant(value)]
        case "Set":
            guard arguments.count == 3, let name = arguments[1].stringValue else {
                throw .invalidArguments("Set takes (s, s, v).")
            }
            switch object {
            case .item(let collection, let id) where interface == Self.itemInterface:
                try setItemProperty(id: id, in: collection, name: name, value: arguments[2], caller: call.sender)
                return []
            case .collection(let collection) where interface == Self.collectionInterface && name == "Label":
                try setCollectionLabel(collection, arguments[2], caller: call.sender)
                return []
            default:
                throw .notSupported("The property \(name) cannot be set.")
            }
        default:
            throw .unknownMethod("No method \(call.member) on org.freedesktop.DBus.Properties.")
        }
    }

    /// The properties of item `id` while the keychain is locked, as `caller` sees them: every property the
    /// specification lists, with valid values, so that clients (libsecret asserts on a missing `Label`) never
    /// see a hole. `Locked` is true; `Label` and `Type` are empty; `Attributes` are the attributes of the
    /// searches that found the item through the index on this connection (the index matched their tags; an
    /// `xdg:schema` of the generic schema is left out, as the index did not check it), else empty; `Created`
    /// and `Modified` are 0.
    func lockedItemProperties(id: String, caller: String) -> [String: BusValue] {
        var attributes: [String: String] = [:]
        for query in callers[caller]?.unverified[id] ?? [] {
            attributes.merge(SecretItem.withoutGenericSchema(query)) { first, _ in first }
        }
        return [
            "Locked": .boolean(true),
            "Attributes": .stringDictionary(attributes),
            "Label": .string(""),
            "Type": .string(""),
            "Created": .uint64(0),
            "Modified": .uint64(0),
        ]
    }

    /// The properties of `object` under `interface` ("" for all of its interfaces); with `only`, at least
    /// that one (others may be left out).
    private func properties(
        of object: ObjectPath,
        interface: String,
        caller: String,
        only name: String? = nil
    ) throws(SecretServiceError) -> [String: BusValue] {
        switch object {
        case .service where interface.isEmpty || interface == Self.serviceInterface:
            return ["Collections": .objectPaths(collections().names.map(ObjectPath.collectionPath))]
        case .collection(let collection) where interface.isEmpty || interface == Self.collectionInterface:
            return try collectionProperties(collection, only: name)
        case .item(let collection, let id) where interface.isEmpty || interface == Self.itemInterface:
            return try itemProperties(id: id, in: collection, caller: caller)
        case .unknown, .alias, .aliasItem:
            throw .noSuchObject()
        default:
            return [:]
        }
    }
}
