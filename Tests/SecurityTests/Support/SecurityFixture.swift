#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication
import LatchkeySecurity
import LatchkeyTesting

/// Runs `body` with every `SecItem*` call of this task going to a fresh temporary keychain.
@discardableResult
func withTemporaryKeychain<T>(
    accessGroups: [String] = ["com.example.app", "com.example.shared"],
    _ body: (KeychainStore) throws -> T
) throws -> T {
    let keychain = TemporaryKeychain(accessGroups: accessGroups)
    let store = try keychain.open()
    return try withExtendedLifetime(keychain) {
        try LatchkeySecurity.withStore(store) { try body(store) }
    }
}

/// Shorthands for the dictionaries tests pass around.
enum Sec {
    /// `SecItemAdd` without a result.
    @discardableResult
    static func add(_ attributes: [String: Any]) -> OSStatus {
        SecItemAdd(attributes as CFDictionary, nil)
    }

    /// `SecItemAdd` with a result.
    static func addReturning(_ attributes: [String: Any]) -> (OSStatus, AnyObject?) {
        var result: CFTypeRef?
        let status = SecItemAdd(attributes as CFDictionary, &result)
        return (status, result)
    }

    /// `SecItemCopyMatching`.
    static func copy(_ query: [String: Any]) -> (OSStatus, AnyObject?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    /// `SecItemUpdate`.
    static func update(_ query: [String: Any], _ changes: [String: Any]) -> OSStatus {
        SecItemUpdate(query as CFDictionary, changes as CFDictionary)
    }

    /// `SecItemDelete`.
    static func delete(_ query: [String: Any]) -> OSStatus {
        SecItemDelete(query as CFDictionary)
    }

    /// A generic password's attributes.
    static func password(service: String = "svc", account: String = "alice", data: String? = "s3cret") -> [String: Any]
    {
        var item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let data { item[kSecValueData as String] = Data(data.utf8) }
        return item
    }

    /// The attributes of the one item matching `query` (fails the test otherwise).
    static func attributes(_ query: [String: Any]) -> [String: Any]? {
        var query = query
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        let (status, result) = copy(query)
        guard status == errSecSuccess else { return nil }
        return result as? [String: Any]
    }

    /// How many items match `query` (0 when none).
    static func count(_ query: [String: Any]) -> Int {
        var query = query
        query[kSecReturnPersistentRef as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        let (status, result) = copy(query)
        guard status == errSecSuccess else { return 0 }
        return (result as? [Any])?.count ?? -1
    }
}
#endif
