import Foundation

/// The object paths of the Secret Service and what each one names, as written (aliases are resolved by the
/// service, which knows them).
///
/// The service is `/org/freedesktop/secrets`; a collection is `/org/freedesktop/secrets/collection/<name>`
/// (`login`, the keychain; `session`, kept in memory; and those made with `CreateCollection`), also reachable
/// through an alias, `/org/freedesktop/secrets/aliases/<alias>` (python's secretstorage calls the `default`
/// alias's path directly); items are `<collection>/<id>`; sessions are `/org/freedesktop/secrets/session/s<n>`;
/// prompts are `/org/freedesktop/secrets/prompt/p<n>`.
enum ObjectPath: Equatable {
    /// The service object.
    case service
    /// A collection, by name.
    case collection(String)
    /// A collection, by alias.
    case alias(String)
    /// One item of a collection, by collection name and id.
    case item(collection: String, id: String)
    /// One item of the collection an alias names.
    case aliasItem(alias: String, id: String)
    /// One session, by its path's last element.
    case session(String)
    /// One prompt, by its path's last element.
    case prompt(String)
    /// Anything else under the prefix.
    case unknown

    /// The service's path, and the prefix every object lives under.
    static let servicePath = "/org/freedesktop/secrets"
    /// The login collection's name: the keychain.
    static let login = "login"
    /// The session collection's name: items kept in the agent's memory until it exits.
    static let sessionCollection = "session"
    /// The login collection's path.
    static let loginPath = collectionPath(login)
    /// The path of "no object" (no prompt needed, no such alias).
    static let none = "/"

    /// What `path` names.
    init(_ path: String) {
        guard path.hasPrefix(Self.servicePath) else {
            self = .unknown
            return
        }
        let rest = path.dropFirst(Self.servicePath.count)
        if rest.isEmpty {
            self = .service
            return
        }
        guard rest.first == "/" else {
            self = .unknown
            return
        }
        let parts = rest.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy({ !$0.isEmpty }) else {
            self = .unknown
            return
        }
        switch (parts.first, parts.count) {
        case ("collection", 2): self = .collection(parts[1])
        case ("collection", 3): self = .item(collection: parts[1], id: parts[2])
        case ("aliases", 2): self = .alias(parts[1])
        case ("aliases", 3): self = .aliasItem(alias: parts[1], id: parts[2])
        case ("session", 2): self = .session(parts[1])
        case ("prompt", 2): self = .prompt(parts[1])
        default: self = .unknown
        }
    }

    /// The path of the collection named `name`.
    static func collectionPath(_ name: String) -> String { servicePath + "/collection/" + name }

    /// The path of item `id` of collection `collection`.
    static func itemPath(_ collection: String, _ id: String) -> String { collectionPath(collection) + "/" + id }

    /// The path of the prompt named `name`.
    static func promptPath(_ name: String) -> String { servicePath + "/prompt/" + name }

    /// The path of the session named `name`.
    static func sessionPath(_ name: String) -> String { servicePath + "/session/" + name }

    /// Whether `text` can be one element of an object path (`[A-Za-z0-9_]+`, the D-Bus rule).
    static func isElement(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
    }
}
