import Logging

/// A property stored in the keychain: any `Codable` value under one key.
///
/// ```swift
/// struct Settings {
///     @KeychainStored("token") var token: Token?
///     @KeychainStored("refresh", keychain: Keychain(service: "com.example.auth")) var refresh: String?
/// }
/// settings.token = Token(value: "abc", expires: .now + 3600)   // written at once
/// settings.token = nil                                           // removed
/// ```
///
/// Reading returns `nil` when no item exists. A property cannot throw, so when the keychain fails
/// (for example `interactionNotAllowed` because it is locked) the getter also returns `nil`, the
/// setter changes nothing, and `onError` is told (by default it logs the error's code through
/// swift-log; values are never logged). Where "locked" must not look like "absent", use the
/// projected value's throwing calls: `try $token.load()`, `try await $token.load()`, `try $token.save(value)`.
///
/// The wrapper holds no value of its own (every read goes to the keychain, so other processes'
/// writes are seen) and is `Sendable`.
@propertyWrapper
public struct KeychainStored<Value: Codable & Sendable>: Sendable {
    /// The key (account) the value is stored under.
    public let key: String
    /// The keychain holding it.
    public let keychain: Keychain
    private let onError: @Sendable (KeychainError) -> Void

    private static var logger: Logger { Logger(label: "latchkey.keychain-stored") }

    /// Declares a keychain-backed property.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - keychain: The keychain (default `Keychain.standard`).
    ///   - onError: Told about failures that the property's getter and setter cannot throw; by
    ///     default logs the OSStatus code at error level.
    public init(
        _ key: String,
        keychain: Keychain = .standard,
        onError: (@Sendable (KeychainError) -> Void)? = nil
    ) {
        self.key = key
        self.keychain = keychain
        self.onError =
            onError ?? { error in
                Self.logger.error(
                    "keychain-stored property failed",
                    metadata: ["osstatus": "\(error.code.rawValue)", "message": "\(error.message)"]
                )
            }
    }

    /// The stored value, or `nil` when absent (or unreadable: see `onError`); assigning writes it at
    /// once in one transaction, assigning `nil` removes it.
    public var wrappedValue: Value? {
        get {
            do {
                return try load()
            } catch {
                onError(error)
                return nil
            }
        }
        nonmutating set {
            do {
                try save(newValue)
            } catch {
                onError(error)
            }
        }
    }

    /// The wrapper itself, for its throwing and `async` calls: `try $token.load()`.
    public var projectedValue: KeychainStored<Value> { self }

    /// The stored value, or `nil` when absent.
    ///
    /// - Throws: `interactionNotAllowed` when locked (never `nil`), `decode` when the bytes do not decode.
    public func load() throws(KeychainError) -> Value? {
        try keychain.value(Value.self, forKey: key)
    }

    /// Stores `value` (or removes the item for `nil`), in one transaction.
    public func save(_ value: Value?) throws(KeychainError) {
        if let value {
            try keychain.set(value, forKey: key)
        } else {
            try keychain.removeValue(forKey: key)
        }
    }

    /// The stored value off the caller's executor (see the synchronous `load()`).
    public func load() async throws(KeychainError) -> Value? {
        try await keychain.value(Value.self, forKey: key)
    }

    /// Stores or removes the value off the caller's executor (see the synchronous `save(_:)`).
    public func save(_ value: Value?) async throws(KeychainError) {
        if let value {
            try await keychain.set(value, forKey: key)
        } else {
            try await keychain.removeValue(forKey: key)
        }
    }

    /// The changes to this key, from any process (see `Keychain.changes(forKey:)`).
    public func changes() -> KeychainChanges {
        keychain.changes(forKey: key)
    }

    /// The changes to this key; the initial read runs off the caller's executor.
    public func changes() async -> KeychainChanges {
        await keychain.changes(forKey: key)
    }
}
