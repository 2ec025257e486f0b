import Foundation

extension Keychain {
    // MARK: Reading

    /// The secret bytes stored under `key`, or `nil` when no item exists.
    ///
    /// `SecretData` zeroes its bytes when released and never prints them: prefer it for passwords and
    /// keys you pass on without converting.
    ///
    /// - Throws: `interactionNotAllowed` (-25308) when the item exists but its class is locked (never
    ///   `nil`); `missingEntitlement` (-34018) when `accessGroup` is not one of the process's groups.
    public func secret(forKey key: String) throws(KeychainError) -> SecretData? {
        try resolvedService().findFirst(query(forKey: key), withData: true).map { $0.data ?? SecretData([]) }
    }

    /// The bytes stored under `key`, or `nil` when no item exists.
    ///
    /// - Throws: See `secret(forKey:)`.
    public func data(forKey key: String) throws(KeychainError) -> Data? {
        try secret(forKey: key)?.data
    }

    /// The text stored under `key` (UTF-8), or `nil` when no item exists.
    ///
    /// - Throws: `decode` (-26275) when the bytes are not UTF-8; otherwise see `secret(forKey:)`.
    public func string(forKey key: String) throws(KeychainError) -> String? {
        try secret(forKey: key).map { secret throws(KeychainError) in try decodedValue(String.self, from: secret) }
    }

    /// The value stored under `key`, decoded with the keychain's decoder, or `nil` when no item exists.
    ///
    /// ```swift
    /// struct Session: Codable { var token: String; var expires: Date }
    /// let session = try keychain.value(Session.self, forKey: "session")
    /// ```
    ///
    /// - Throws: `decode` (-26275) when the bytes do not decode as `T` (the message names the type, never
    ///   the bytes); otherwise see `secret(forKey:)`.
    public func value<T: Decodable>(_ type: T.Type = T.self, forKey key: String) throws(KeychainError) -> T? {
        try secret(forKey: key).map { secret throws(KeychainError) in try decodedValue(T.self, from: secret) }
    }

    /// The text stored under `key`: `try keychain["token"]`.
    ///
    /// Subscripts are read-only because a setter cannot throw, and a write that fails silently is how
    /// other wrappers lose tokens; write with `set(_:forKey:)`.
    public subscript(key: String) -> String? {
        get throws(KeychainError) { try string(forKey: key) }
    }

    /// The bytes stored under `key`: `try keychain[data: "key"]`.
    public subscript(data key: String) -> Data? {
        get throws(KeychainError) { try data(forKey: key) }
    }

    /// The value stored under `key`: `try keychain["session", as: Session.self]`.
    public subscript<T: Decodable>(key: String, as type: T.Type) -> T? {
        get throws(KeychainError) { try value(T.self, forKey: key) }
    }

    // MARK: Writing

    /// Stores `secret` under `key`, creating the item or updating it in one transaction.
    ///
    /// An existing item keeps its creation date and persistent reference; its secret and the
    /// keychain's accessibility, label and comment are applied to it (a new accessibility re-encrypts
    /// it under that class). No duplicate-item error can occur, even when other threads or processes
    /// write the same key at the same time.
    ///
    /// - Throws: `interactionNotAllowed` when the existing item's or the new accessibility's class is
    ///   locked; `missingEntitlement` for an access group that is not the process's.
    public func set(_ secret: SecretData, forKey key: String) throws(KeychainError) {
        _ = try resolvedService().perform(
            .updateFirstOrAdd(
                match: query(forKey: key),
                changes: ItemChanges(attributes: settableAttributes(), data: secret),
                otherwise: NewItem(.genericPassword, attributes: newItemAttributes(forKey: key), data: secret)
            )
        )
    }

    /// Stores `value` under `key` as its bytes (see `set(_:forKey:)` for `SecretData`).
    public func set(_ value: Data, forKey key: String) throws(KeychainError) {
        try set(SecretData(value), forKey: key)
    }

    /// Stores `value` under `key` as UTF-8 (see `set(_:forKey:)` for `SecretData`).
    public func set(_ value: String, forKey key: String) throws(KeychainError) {
        try set(SecretData(string: value), forKey: key)
    }

    /// Stores `value` under `key`, encoded with the keychain's encoder (JSON by default).
    ///
    /// - Throws: `param` (-50) when the value cannot be encoded (nothing is written); otherwise see
    ///   `set(_:forKey:)` for `SecretData`.
    public func set<T: Encodable>(_ value: T, forKey key: String) throws(KeychainError) {
        try set(try encodedValue(value), forKey: key)
    }

    // MARK: Removing

    /// Removes the item stored under `key`.
    ///
    /// - Returns: Whether an item was removed (`false` when there was none: not an error).
    /// - Throws: `interactionNotAllowed` when the item's class is locked.
    @discardableResult
    public func removeValue(forKey key: String) throws(KeychainError) -> Bool {
        try remove(query(forKey: key)) > 0
    }

    /// Deletes every item matching `query` in one transaction; returns how many.
    func remove(_ query: ItemQuery) throws(KeychainError) -> Int {
        try Self.deletedCount(resolvedService().batch([.delete(DeleteRequest(query))]))
    }

    /// The total of a batch of deletes' counts.
    static func deletedCount(_ outcomes: [KeychainOutcome]) throws(KeychainError) -> Int {
        var total = 0
        for outcome in outcomes { total += try outcome.count() }
        return total
    }
}
