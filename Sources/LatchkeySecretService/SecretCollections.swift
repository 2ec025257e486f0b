import Foundation

/// The collections and aliases beyond the two that always exist (`login`, the keychain, and `session`, in
/// memory): kept encrypted in the keychain as one registry item (`SecretItemStore.loadCollections`), read
/// once the keychain is unlocked.
///
/// Every collection has an owner (docs/secret-service.md, "Confinement"): one made with `CreateCollection`
/// belongs to the application that made it; `login`, `session` and collections made before owners were
/// recorded belong to the user (`userOwner`). An alias to the `session` collection lives in memory only: it
/// is never written to the registry, and one found there is dropped when the registry is read, so no alias
/// survives the agent pointing at what did not.
struct SecretCollections: Codable, Equatable {
    /// One collection made with `CreateCollection`.
    struct Info: Codable, Equatable {
        /// Its `Label`.
        var label: String
        /// When it was made.
        var created: Date
        /// The application identity of the caller that made it; `nil` (the user's) for one made before
        /// collections had owners, or by a caller that could not be identified.
        var owner: String?
    }

    /// The owner of what belongs to the user rather than to one application: `login`, `session`, unowned
    /// collections and the aliases that name them. Not a path, so never an application's identity; its
    /// policy group is `org.freedesktop.secrets:@user`.
    static let userOwner = "@user"

    /// Collections made with `CreateCollection`, by name (their path's last element).
    var collections: [String: Info] = [:]
    /// Aliases set with `SetAlias` or `CreateCollection`, to collection names; `default` is `login` unless set.
    /// Those naming `session` are kept in memory only (never encoded).
    var aliases: [String: String] = [:]
    /// The `login` collection's label, once set; "Login" until then.
    var loginLabel: String?
    /// Whether every item written before search tags has been given them (`SecretItemStore.tagUntaggedItems`).
    var tagged: Bool?

    /// An empty registry.
    init() {}

    private enum CodingKeys: String, CodingKey {
        case collections, aliases, loginLabel, tagged
    }

    /// Decodes a registry, dropping any alias to the `session` collection (written before they were kept in
    /// memory only).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        collections = try container.decodeIfPresent([String: Info].self, forKey: .collections) ?? [:]
        aliases = try container.decodeIfPresent([String: String].self, forKey: .aliases) ?? [:]
        aliases = aliases.filter { $0.value != ObjectPath.sessionCollection }
        loginLabel = try container.decodeIfPresent(String.self, forKey: .loginLabel)
        tagged = try container.decodeIfPresent(Bool.self, forKey: .tagged)
    }

    /// Encodes the registry, without the aliases to the `session` collection.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(collections, forKey: .collections)
        try container.encode(aliases.filter { $0.value != ObjectPath.sessionCollection }, forKey: .aliases)
        try container.encodeIfPresent(loginLabel, forKey: .loginLabel)
        try container.encodeIfPresent(tagged, forKey: .tagged)
    }

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

    /// Who owns the collection `name`: the application that made it, else the user (`userOwner`).
    func owner(of name: String) -> String {
        collections[name]?.owner ?? Self.userOwner
    }

    /// The label of the collection `name`.
    func label(of name: String) -> String {
        switch name {
        case ObjectPath.login: return loginLabel ?? "Login"
        case ObjectPath.sessionCollection: return "Session"
        default: return collections[name]?.label ?? name
        }
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
