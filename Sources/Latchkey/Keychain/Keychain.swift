import Foundation

/// A typed, `Sendable` view of the keychain: one service's items, with the attributes new items get.
///
/// `Keychain` is a small value: copy it, store it in a `static let`, pass it between tasks. Each
/// configuration method returns a changed copy, so a base keychain can be specialised per call site.
/// Items are generic passwords whose service is `service` and whose account is the key you pass.
///
/// ```swift
/// let keychain = Keychain(service: "com.example.app")
/// try keychain.set("s3cret", forKey: "api-token")
/// let token = try keychain.string(forKey: "api-token")      // String?
///
/// let background = keychain.accessibility(.afterFirstUnlock).label("Sync token")
/// try await background.set(session, forKey: "session")       // any Codable value, async
/// ```
///
/// Every operation exists twice: a synchronous one that runs on the calling thread, and an `async`
/// one with the same name that runs the blocking SQLite and crypto work on a dedicated queue and never
/// blocks the caller's executor.
///
/// Errors are `KeychainError`. A missing item is `nil` (or `false`), never an error; a keychain too
/// locked to read the item is `KeychainError.Code.interactionNotAllowed` (-25308), never `nil`.
public struct Keychain: Sendable, CustomStringConvertible {
    /// Where a keychain's items live: the process-wide context (the agent or the default keychain), or a
    /// given service (a keychain opened in process, an agent's client), with an optional owner kept alive
    /// alongside it (such as a test keychain's temporary directory).
    enum Backing: Sendable {
        case shared
        case service(any KeychainService, owner: (any AnyObject & Sendable)?)
    }

    /// The service (`kSecAttrService`) of every item this keychain reads and writes.
    public private(set) var service: String
    /// The access group of new items and of searches; `nil` writes to the process's first group and
    /// searches all of the process's groups.
    public private(set) var accessGroup: String?
    /// When new (and rewritten) items are readable. Default `.afterFirstUnlock`: readable by background
    /// work once the keychain has been unlocked once, as KeychainAccess and SimpleKeychain default to.
    public private(set) var accessibility: Accessibility
    /// Whether reads and writes concern local items, synchronizable items or both. Default `.localOnly`.
    public private(set) var synchronizable: SyncPolicy
    /// The label (`kSecAttrLabel`) written with each item; `nil` leaves an item's label as it is.
    public private(set) var label: String?
    /// The comment (`kSecAttrComment`) written with each item; `nil` leaves an item's comment as it is.
    public private(set) var comment: String?
    /// Encodes `Encodable` values (not `String` or `Data`). Default: JSON with sorted keys.
    public private(set) var encoder: any KeychainValueEncoder
    /// Decodes `Decodable` values (not `String` or `Data`). Default: JSON.
    public private(set) var decoder: any KeychainValueDecoder
    var backing: Backing

    /// Makes a keychain for one service.
    ///
    /// - Parameters:
    ///   - service: The service of its items, typically a reverse-DNS name.
    ///   - accessGroup: A shared access group, or `nil` for the process's default group.
    ///   - accessibility: When new items are readable (default `.afterFirstUnlock`).
    ///   - synchronizable: Local, synchronizable or both (default `.localOnly`).
    ///   - store: The keychain to use (a keychain opened in process, or an agent's client); `nil` for the
    ///     process context (`KeychainContext.current()`): the per-user agent when one serves the default
    ///     keychain, else the default keychain opened in process on first use.
    public init(
        service: String,
        accessGroup: String? = nil,
        accessibility: Accessibility = .afterFirstUnlock,
        synchronizable: SyncPolicy = .localOnly,
        store: (any KeychainService)? = nil
    ) {
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.synchronizable = synchronizable
        self.label = nil
        self.comment = nil
        self.encoder = DefaultValueCoder.encoder
        self.decoder = DefaultValueCoder.decoder
        self.backing = store.map { .service($0, owner: nil) } ?? .shared
    }

    /// The process's default keychain: service = the process's first access group when it is a name (its
    /// bundle identifier or entitlement, see `AccessGroups.current()`), else the executable's file name;
    /// default store.
    ///
    /// `@KeychainStored` uses it when given no keychain.
    public static var standard: Keychain { Keychain(service: defaultService) }

    private static let defaultService: String = {
        guard let first = AccessGroups.current().first, !first.hasPrefix("/") else {
            return AccessGroups.executableName()
        }
        return first
    }()

    /// A copy whose new and rewritten items have another accessibility.
    ///
    /// `set` on an existing item changes its accessibility in place (re-encrypting it), without a
    /// duplicate-item error.
    public func accessibility(_ accessibility: Accessibility) -> Keychain {
        var copy = self
        copy.accessibility = accessibility
        return copy
    }

    /// A copy that reads and writes in `accessGroup` (`nil`: default group for writes, all for reads).
    public func accessGroup(_ accessGroup: String?) -> Keychain {
        var copy = self
        copy.accessGroup = accessGroup
        return copy
    }

    /// A copy with another synchronizable policy.
    public func synchronizable(_ policy: SyncPolicy) -> Keychain {
        var copy = self
        copy.synchronizable = policy
        return copy
    }

    /// A copy for another service, with the same settings.
    public func service(_ service: String) -> Keychain {
        var copy = self
        copy.service = service
        return copy
    }

    /// A copy that writes `label` with each item (`nil` leaves labels alone).
    public func label(_ label: String?) -> Keychain {
        var copy = self
        copy.label = label
        return copy
    }

    /// A copy that writes `comment` with each item (`nil` leaves comments alone).
    public func comment(_ comment: String?) -> Keychain {
        var copy = self
        copy.comment = comment
        return copy
    }

    /// A copy that encodes and decodes `Codable` values with other coders.
    ///
    /// - Parameters:
    ///   - encoder: For example a configured `JSONEncoder` or a `PropertyListEncoder`.
    ///   - decoder: The matching decoder.
    public func coder(encoder: any KeychainValueEncoder, decoder: any KeychainValueDecoder) -> Keychain {
        var copy = self
        copy.encoder = encoder
        copy.decoder = decoder
        return copy
    }

    /// A copy that uses another keychain (a keychain opened in process, or an agent's client).
    public func store(_ store: any KeychainService) -> Keychain {
        keychainService(store)
    }

    /// A copy that uses `store` and keeps `owner` alive as long as the copy (or a copy of it) exists.
    ///
    /// For types that own a store's file and remove it when released, such as `LatchkeyTesting`'s
    /// `TestKeychain`: `try TestKeychain.inMemory().keychain()` then stays usable on its own.
    public func store(_ store: any KeychainService, keepingAlive owner: some AnyObject & Sendable) -> Keychain {
        var copy = self
        copy.backing = .service(store, owner: owner)
        return copy
    }

    /// A copy that sends its operations to `keychainService`: an `AgentClient` (the per-user agent) or a
    /// `KeychainStore`.
    ///
    /// Values, listing, removal, observation (`changes(forKey:)`, `lockStateUpdates()`), readiness and
    /// migrations all go through the service: with an agent's client they follow the agent's lock state.
    public func keychainService(_ keychainService: any KeychainService) -> Keychain {
        var copy = self
        copy.backing = .service(keychainService, owner: nil)
        return copy
    }

    /// The service this keychain's values, listings and removals go to: its store or service, else the
    /// process context's service (`KeychainContext.current()`), which is the per-user agent when one
    /// serves the default keychain, and the default keychain opened in process otherwise.
    ///
    /// - Throws: The `KeychainError` of `KeychainContext.current()` (for example when the default keychain
    ///   cannot be opened, or `LATCHKEY_AGENT=required` finds no agent).
    public func resolvedService() throws(KeychainError) -> any KeychainService {
        switch backing {
        case .service(let service, _): service
        case .shared: try KeychainContext.current().service
        }
    }

    /// The keychain opened in this process that this keychain uses, when it uses one.
    ///
    /// Nothing of the typed API needs it (values, observation, readiness and migrations go through
    /// `resolvedService()`); it is for code that wants the in-process store itself, such as to unlock it.
    /// It never opens a second copy of a keychain the per-user agent serves.
    ///
    /// - Throws: The `KeychainError` of `KeychainContext.current()`; `notAvailable` when this keychain goes
    ///   through the per-user agent (the process context's, or a client given with `keychainService(_:)`).
    public func resolvedStore() throws(KeychainError) -> KeychainStore {
        if let store = try resolvedService() as? KeychainStore { return store }
        throw KeychainError(
            .notAvailable,
            "This keychain goes through the per-user agent: it has no keychain opened in process; use "
                + "resolvedService()."
        )
    }

    /// The settings only; the service and labels are attribute values and are not printed.
    public var description: String {
        "Keychain(accessibility: \(accessibility), synchronizable: \(synchronizable), "
            + "accessGroup: \(accessGroup == nil ? "default" : "explicit"))"
    }
}

// MARK: - Queries

extension Keychain {
    /// The account value of `key`.
    static func account(_ key: String) -> AttributeValue { .string(key) }

    /// The query for one key, or for every key of the service when `key` is `nil`.
    func query(forKey key: String?) -> ItemQuery {
        var attributes: [AttributeName: AttributeValue] = [.service: .string(service)]
        if let key { attributes[.account] = Self.account(key) }
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return ItemQuery(.genericPassword, attributes: attributes, synchronizable: synchronizable.queryFilter)
    }

    /// The attributes a new item for `key` gets.
    func newItemAttributes(forKey key: String) -> [AttributeName: AttributeValue] {
        var attributes = settableAttributes()
        attributes[.service] = .string(service)
        attributes[.account] = Self.account(key)
        attributes[.synchronizable] = synchronizable.newItemValue
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return attributes
    }

    /// The non-key attributes a write sets on an existing item.
    func settableAttributes() -> [AttributeName: AttributeValue] {
        var attributes: [AttributeName: AttributeValue] = [.accessible: .string(accessibility.rawValue)]
        if let label { attributes[.label] = .string(label) }
        if let comment { attributes[.comment] = .string(comment) }
        return attributes
    }

    /// An item's key, from its account attribute (String, or Data holding UTF-8).
    static func key(of attributes: [AttributeName: AttributeValue]) -> String? {
        switch attributes[.account] {
        case .string(let text): text
        case .data(let bytes): String(data: bytes, encoding: .utf8)
        default: nil
        }
    }
}
