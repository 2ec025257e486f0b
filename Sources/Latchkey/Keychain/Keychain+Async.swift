import Foundation

/// `async` variants: each runs its synchronous namesake on a dedicated queue, off the caller's
/// executor, so the main actor and the cooperative thread pool never wait for SQLite, fsync or crypto.
///
/// In `async` code the compiler picks these overloads, so calls need `await`. They are not cancelled
/// once started: a write commits or rolls back as a whole.
extension Keychain {
    /// The secret stored under `key`, or `nil` (see the synchronous `secret(forKey:)`).
    public func secret(forKey key: String) async throws(KeychainError) -> SecretData? {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.secret(forKey: key) }
    }

    /// The bytes stored under `key`, or `nil` (see the synchronous `data(forKey:)`).
    public func data(forKey key: String) async throws(KeychainError) -> Data? {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.data(forKey: key) }
    }

    /// The text stored under `key`, or `nil` (see the synchronous `string(forKey:)`).
    public func string(forKey key: String) async throws(KeychainError) -> String? {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.string(forKey: key) }
    }

    /// The value stored under `key`, or `nil` (see the synchronous `value(_:forKey:)`).
    public func value<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        forKey key: String
    ) async throws(KeychainError)
        -> T?
    {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.value(T.self, forKey: key) }
    }

    /// Stores `secret` under `key` in one transaction (see the synchronous `set(_:forKey:)`).
    public func set(_ secret: SecretData, forKey key: String) async throws(KeychainError) {
        let keychain = self
        try await BlockingWork.run { () throws(KeychainError) in try keychain.set(secret, forKey: key) }
    }

    /// Stores `value` under `key` as its bytes (see the synchronous `set(_:forKey:)`).
    public func set(_ value: Data, forKey key: String) async throws(KeychainError) {
        try await set(SecretData(value), forKey: key)
    }

    /// Stores `value` under `key` as UTF-8 (see the synchronous `set(_:forKey:)`).
    public func set(_ value: String, forKey key: String) async throws(KeychainError) {
        try await set(SecretData(string: value), forKey: key)
    }

    /// Stores `value` under `key`, encoded (see the synchronous `set(_:forKey:)`).
    public func set<T: Encodable & Sendable>(_ value: T, forKey key: String) async throws(KeychainError) {
        let keychain = self
        try await BlockingWork.run { () throws(KeychainError) in try keychain.set(value, forKey: key) }
    }

    /// Removes the item under `key`; whether there was one (see the synchronous `removeValue(forKey:)`).
    @discardableResult
    public func removeValue(forKey key: String) async throws(KeychainError) -> Bool {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.removeValue(forKey: key) }
    }

    /// Whether an item exists under `key`, without authentication (see the synchronous `contains(_:)`).
    public func contains(_ key: String) async throws(KeychainError) -> Bool {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.contains(key) }
    }

    /// Every key of the service (see the synchronous `allKeys()`).
    public func allKeys() async throws(KeychainError) -> [String] {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.allKeys() }
    }

    /// Every key of the service with metadata (see the synchronous `items()`).
    public func items() async throws(KeychainError) -> [KeychainItemInfo] {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.items() }
    }

    /// The metadata of the item under `key` (see the synchronous `metadata(forKey:)`).
    public func metadata(forKey key: String) async throws(KeychainError) -> KeychainItemMetadata? {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.metadata(forKey: key) }
    }

    /// Removes every item in `scope` in one transaction (see the synchronous `removeAll(_:)`).
    @discardableResult
    public func removeAll(_ scope: RemovalScope = .service) async throws(KeychainError) -> Int {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.removeAll(scope) }
    }

    /// The secret stored for an internet password (see the synchronous `passwordSecret(for:)`).
    public func passwordSecret(for item: InternetPassword) async throws(KeychainError) -> SecretData? {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.passwordSecret(for: item) }
    }

    /// The password stored for an internet password (see the synchronous `password(for:)`).
    public func password(for item: InternetPassword) async throws(KeychainError) -> String? {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.password(for: item) }
    }

    /// Stores an internet password in one transaction (see the synchronous `setPassword(_:for:)`).
    public func setPassword(_ secret: SecretData, for item: InternetPassword) async throws(KeychainError) {
        let keychain = self
        try await BlockingWork.run { () throws(KeychainError) in try keychain.setPassword(secret, for: item) }
    }

    /// Stores an internet password as UTF-8 (see the synchronous `setPassword(_:for:)`).
    public func setPassword(_ password: String, for item: InternetPassword) async throws(KeychainError) {
        try await setPassword(SecretData(string: password), for: item)
    }

    /// Removes matching internet passwords (see the synchronous `removePassword(for:)`).
    @discardableResult
    public func removePassword(for item: InternetPassword) async throws(KeychainError) -> Bool {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.removePassword(for: item) }
    }

    /// Lists internet passwords (see the synchronous `internetPasswords(forServer:)`).
    public func internetPasswords(forServer server: String? = nil) async throws(KeychainError) -> [InternetPasswordInfo]
    {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in
            try keychain.internetPasswords(forServer: server)
        }
    }

    /// Whether this keychain's items are readable now (see the synchronous `isAvailable()`).
    public func isAvailable() async throws(KeychainError) -> Bool {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.isAvailable() }
    }

    /// The service this keychain's values go to (see the synchronous `resolvedService()`).
    public func resolvedService() async throws(KeychainError) -> any KeychainService {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.resolvedService() }
    }

    /// The keychain file, opening the default one on first use (see the synchronous `resolvedStore()`).
    public func resolvedStore() async throws(KeychainError) -> KeychainStore {
        let keychain = self
        return try await BlockingWork.run { () throws(KeychainError) in try keychain.resolvedStore() }
    }
}
