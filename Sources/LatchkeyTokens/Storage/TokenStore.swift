import Foundation
import Latchkey

/// The keychain items holding token sets: one generic-password item per account, whose service is the
/// authorization server (issuer or API base URL) and whose account is the user or client id.
///
/// One item per account means the access token, refresh token and expiry are written in one keychain
/// transaction: a crash never leaves a new access token beside an old refresh token. Several accounts
/// live side by side under one service.
///
/// ```swift
/// let store = TokenStore(keychain: keychain, service: "https://id.example.com")
/// for account in try await store.accounts() { ... }
/// ```
///
/// `TokenManager` uses it; use it directly to list accounts or to remove one without a manager. A
/// locked keychain is `TokenError.Code.keychainLocked`, never "no tokens".
public struct TokenStore: Sendable {
    /// The keychain (its service is the store's service).
    public let keychain: Keychain

    /// Makes a store.
    ///
    /// - Parameters:
    ///   - keychain: Where items go: its store, access group and accessibility are used; its service is
    ///     replaced by `service`.
    ///   - service: The authorization server's issuer or the API's base URL.
    public init(keychain: Keychain, service: String) {
        self.keychain = keychain.service(service)
    }

    /// The service the items are stored under.
    public var service: String { keychain.service }

    /// The tokens stored for `account`, or `nil` when there are none.
    ///
    /// - Throws: `keychainLocked` when the item exists but cannot be read now (it is not reported as
    ///   absent); `keychain` for other keychain failures or an item that is not a token set.
    public func tokens(for account: String) throws(TokenError) -> TokenSet? {
        let secret: SecretData?
        do {
            secret = try keychain.secret(forKey: account)
        } catch {
            throw TokenError.keychain(error, while: "read")
        }
        guard let secret else { return nil }
        do {
            return try secret.withUnsafeBytes { bytes in
                try JSONDecoder().decode(TokenSet.self, from: Data(bytes))
            }
        } catch {
            throw TokenError(
                .keychain,
                "The keychain item for this account is not a token set this version can read; it was left untouched.",
                keychainError: KeychainError(.decode, "The stored token set could not be decoded.")
            )
        }
    }

    /// Stores `tokens` for `account` in one transaction, replacing what was there.
    ///
    /// - Throws: `keychainLocked` when the keychain is locked for the item's class; `keychain` otherwise.
    public func save(_ tokens: TokenSet, for account: String) throws(TokenError) {
        let encoded: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            encoded = try encoder.encode(tokens)
        } catch {
            throw TokenError(.keychain, "The token set could not be encoded.")
        }
        do {
            try keychain.set(SecretData(encoded), forKey: account)
        } catch {
            throw TokenError.keychain(error, while: "stored")
        }
    }

    /// Removes the tokens of `account`.
    ///
    /// - Returns: Whether there were any (no tokens is not an error).
    /// - Throws: `keychainLocked` when the item's class is locked; `keychain` otherwise.
    @discardableResult
    public func remove(account: String) throws(TokenError) -> Bool {
        do {
            return try keychain.removeValue(forKey: account)
        } catch {
            throw TokenError.keychain(error, while: "removed")
        }
    }

    /// The accounts with stored tokens under this service.
    ///
    /// - Throws: `keychain` when the keychain cannot be searched.
    public func accounts() throws(TokenError) -> [String] {
        do {
            return try keychain.allKeys()
        } catch {
            throw TokenError.keychain(error, while: "listed")
        }
    }

    // MARK: async variants (off the caller's executor)

    /// The tokens stored for `account` (see the synchronous `tokens(for:)`), read off the caller's executor.
    public func tokens(for account: String) async throws(TokenError) -> TokenSet? {
        let store = self
        return try await BlockingWork.run { () throws(TokenError) in try store.tokens(for: account) }
    }

    /// Stores `tokens` for `account` (see the synchronous `save(_:for:)`), off the caller's executor.
    public func save(_ tokens: TokenSet, for account: String) async throws(TokenError) {
        let store = self
        try await BlockingWork.run { () throws(TokenError) in try store.save(tokens, for: account) }
    }

    /// Removes the tokens of `account` (see the synchronous `remove(account:)`), off the caller's executor.
    @discardableResult
    public func remove(account: String) async throws(TokenError) -> Bool {
        let store = self
        return try await BlockingWork.run { () throws(TokenError) in try store.remove(account: account) }
    }

    /// The accounts with stored tokens (see the synchronous `accounts()`), off the caller's executor.
    public func accounts() async throws(TokenError) -> [String] {
        let store = self
        return try await BlockingWork.run { () throws(TokenError) in try store.accounts() }
    }
}
