import Foundation

/// The collections and aliases beyond the two that always exist (`login`, the keychain, and `session`, in
/// memory): kept encrypted in the keychain as one registry item (`SecretItemStore.loadCollections`), read
/// once the keychain is unlocked.
struct SecretCollections: Codable, Equatable {
    /// One collection made with `CreateCollection`.
    struct Info: Codable, Equatable {
        /// Its `Label`.
        var label: String
        /// When it was made.
        var created: Date
    }

    /// Collections made with `CreateCollection`, by name (their path's last element).
    var collections: [String: Info] = [:]
    /// Aliases set with `SetAlias` or `CreateCollection`, to collection names; `default` is `login` unless set.
    var aliases: [String: String] = [:]
    /// Whether every item written before search tags has been given them (`SecretItemStore.tagUntaggedItems`).
    var tagged: Bool?

    /// The collection `alias` names, or `nil`.
    func collection(forAlias alias: String) -> String? {
        if let name = aliases[alias] { return exists(name) ? name : nil }
        switch alias {
        case "default", ObjectPath.login: return ObjectPath.login
        case ObjectPath.sessionCollection: return ObjectPath.sessionCollection
        default: return nil
        }
    }

    /// Whether a collection named `name` exists.
    func exists(_ name: String) -> Bool {
        name == ObjectPath.login || name == ObjectPath.sessionCollection || collections[name] != nil
    }

    /// Every collection's name: `login`, `session`, then the others by name.
    var names: [String] { [ObjectPath.login, ObjectPath.sessionCollection] + collections.keys.sorted() }

    /// A free name for a new collection labelled `label`: its letters, digits and underscores (others become
    /// `_`), lower-cased, at most 32, then `_2`, `_3` … when taken.
    func newName(for label: String) -> String {
        var base = String(
            label.lowercased().unicodeScalars.prefix(32).map { scalar -> Character in
                let text = String(scalar)
                return ObjectPath.isElement(text) ? Character(text) : "_"
            }
        )
        if base.isEmpty || base.allSatisfy({ $0 == "_" }) { base = "collection" }
        var name = base
        var suffix = 2
        while exists(name) || name == "aliases" {
            name = base + "_\(suffix)"
            suffix += 1
        }
        return name
    }
}
