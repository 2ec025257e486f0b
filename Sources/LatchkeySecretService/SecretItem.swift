import Foundation

/// One Secret Service item as it is kept: a Latchkey generic password in the Secret Service's access group.
struct SecretItem: Sendable, Equatable {
    /// The item's object-path element: the hex of its persistent reference.
    var id: String
    /// The item's `Label`.
    var label: String
    /// The item's attribute map (`Attributes`).
    var attributes: [String: String]
    /// The item's `Type` (libsecret's schema name), "" when none was given.
    var type: String
    /// The content type of its secret ("text/plain" unless the client said otherwise).
    var contentType: String
    /// `Created`.
    var created: Date
    /// `Modified`.
    var modified: Date
    /// The application that created it (`SecretServiceApplications`), `nil` for an item stored before
    /// confinement or by an unidentified caller.
    var owner: String? = nil
    /// The collection it belongs to (its path's parent).
    var collection: String = ObjectPath.login
}

/// Matching attributes as libsecret's clients expect (docs/secret-service.md, "libsecret's generic schema").
extension SecretItem {
    /// The attribute in which libsecret writes an item's schema name, and adds to the searches it makes.
    static let schemaAttribute = "xdg:schema"
    /// libsecret's generic schema (python keyring's libsecret backend uses it), which an item without
    /// `xdg:schema` has: gnome-keyring keeps an item stored without a schema as generic.
    static let genericSchema = "org.freedesktop.Secret.Generic"

    /// Whether the item's attributes contain `query`; a query's `xdg:schema` of the generic schema also matches
    /// an item without `xdg:schema` (python SecretStorage, `secret-tool store`, KeePassXC store none).
    func matches(_ query: [String: String]) -> Bool {
        query.allSatisfy { name, value in
            if let own = attributes[name] { return own == value }
            return Self.isGenericSchema(name, value)
        }
    }

    /// Whether the item has the same attribute map as `other`, an absent `xdg:schema` being the generic
    /// schema: what `CreateItem` with `replace` replaces.
    func hasSameAttributes(as other: [String: String]) -> Bool {
        Self.withoutGenericSchema(attributes) == Self.withoutGenericSchema(other)
    }

    /// `attributes` without an `xdg:schema` of the generic schema (which its absence means).
    static func withoutGenericSchema(_ attributes: [String: String]) -> [String: String] {
        attributes.filter { !isGenericSchema($0.key, $0.value) }
    }

    /// Whether `name` = `value` is `xdg:schema` = the generic schema.
    static func isGenericSchema(_ name: String, _ value: String) -> Bool {
        name == schemaAttribute && value == genericSchema
    }
}
