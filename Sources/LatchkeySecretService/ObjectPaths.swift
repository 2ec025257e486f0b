import Foundation

/// The object paths of the Secret Service and what each one names.
///
/// The service is `/org/freedesktop/secrets`; the one collection, the login keychain, is
/// `/org/freedesktop/secrets/collection/login`, also reachable as `/org/freedesktop/secrets/aliases/default`
/// (python's secretstorage calls the alias path directly); its items are
/// `/org/freedesktop/secrets/collection/login/<id>`; sessions are `/org/freedesktop/secrets/session/s<n>`;
/// prompts are `/org/freedesktop/secrets/prompt/p<n>`.
enum ObjectPath: Equatable {
    /// The service object.
    case service
    /// The login collection (under its own path or its `default` alias).
    case collection
    /// One item of the login collection, by id.
    case item(String)
    /// One session, by its path's last element.
    case session(String)
    /// One prompt, by its path's last element.
    case prompt(String)
    /// Anything else under the prefix.
    case unknown

    /// The service's path, and the prefix every object lives under.
    static let servicePath = "/org/freedesktop/secrets"
    /// The login collection's path.
    static let collectionPath = servicePath + "/collection/login"
    /// The `default` alias's path.
    static let defaultAliasPath = servicePath + "/aliases/default"
    /// The path of "no object" (no prompt needed, no such alias).
    static let none = "/"
    /// The collection's label.
    static let collectionLabel = "Login"

    /// What `path` names.
    init(_ path: String) {
        if path == Self.servicePath {
            self = .service
        } else if path == Self.collectionPath || path == Self.defaultAliasPath {
            self = .collection
        } else if let id = Self.child(of: Self.collectionPath, path) ?? Self.child(of: Self.defaultAliasPath, path) {
            self = .item(id)
        } else if let id = Self.child(of: Self.servicePath + "/session", path) {
            self = .session(id)
        } else if let id = Self.child(of: Self.servicePath + "/prompt", path) {
            self = .prompt(id)
        } else {
            self = .unknown
        }
    }

    /// The path of the item with id `id`.
    static func itemPath(_ id: String) -> String { collectionPath + "/" + id }

    /// The path of the prompt named `name`.
    static func promptPath(_ name: String) -> String { servicePath + "/prompt/" + name }

    /// The path of the session named `name`.
    static func sessionPath(_ name: String) -> String { servicePath + "/session/" + name }

    /// The element of `path` directly below `parent`, or `nil`.
    private static func child(of parent: String, _ path: String) -> String? {
        guard path.hasPrefix(parent + "/") else { return nil }
        let rest = path.dropFirst(parent.count + 1)
        guard !rest.isEmpty, !rest.contains("/") else { return nil }
        return String(rest)
    }
}
