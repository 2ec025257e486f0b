#if !canImport(Darwin)
// A wrapper in the style of the popular open-source keychain libraries: String(kSec...) keys,
// [String: AnyObject] queries, persistent refs, NSDictionary results.
import Foundation
import Security

final class KeychainWrapper {
    private let service: String
    private let accessGroup: String?

    private static let SecClass = String(kSecClass)
    private static let SecAttrService = String(kSecAttrService)
    private static let SecAttrAccount = String(kSecAttrAccount)
    private static let SecAttrAccessGroup = String(kSecAttrAccessGroup)
    private static let SecAttrGeneric = String(kSecAttrGeneric)
    private static let SecAttrAccessible = String(kSecAttrAccessible)
    private static let SecValueData = String(kSecValueData)
    private static let SecMatchLimit = String(kSecMatchLimit)
    private static let SecReturnData = String(kSecReturnData)
    private static let SecReturnAttributes = String(kSecReturnAttributes)
    private static let SecReturnPersistentRef = String(kSecReturnPersistentRef)
    private static let SecValuePersistentRef = String(kSecValuePersistentRef)

    init(service: String, accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    private func baseQuery(forKey key: String) -> [String: AnyObject] {
        var query: [String: AnyObject] = [
            Self.SecClass: kSecClassGenericPassword,
            Self.SecAttrService: service as AnyObject,
        ]
        let encodedIdentifier = key.data(using: .utf8)
        query[Self.SecAttrGeneric] = encodedIdentifier as AnyObject?
        query[Self.SecAttrAccount] = encodedIdentifier as AnyObject?
        if let accessGroup { query[Self.SecAttrAccessGroup] = accessGroup as AnyObject }
        return query
    }

    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        guard let data = value.data(using: .utf8) else { return false }
        var query = baseQuery(forKey: key)
        query[Self.SecValueData] = data as AnyObject
        query[Self.SecAttrAccessible] = kSecAttrAccessibleAfterFirstUnlock
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecDuplicateItem {
            let update: [String: AnyObject] = [Self.SecValueData: data as AnyObject]
            return SecItemUpdate(baseQuery(forKey: key) as CFDictionary, update as CFDictionary) == errSecSuccess
        }
        return status == errSecSuccess
    }

    func string(forKey key: String) -> String? {
        var query = baseQuery(forKey: key)
        query[Self.SecMatchLimit] = kSecMatchLimitOne
        query[Self.SecReturnData] = kCFBooleanTrue
        var result: AnyObject?
        let status = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard status == noErr, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    func persistentReference(forKey key: String) -> Data? {
        var query = baseQuery(forKey: key)
        query[Self.SecReturnPersistentRef] = kCFBooleanTrue
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? Data
    }

    func string(forPersistentReference reference: Data) -> String? {
        let query: [String: Any] = [Self.SecValuePersistentRef: reference, Self.SecReturnData: true]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    func allKeys() -> Set<String> {
        let query: [String: AnyObject] = [
            Self.SecClass: kSecClassGenericPassword,
            Self.SecAttrService: service as AnyObject,
            Self.SecReturnAttributes: kCFBooleanTrue,
            Self.SecMatchLimit: kSecMatchLimitAll,
        ]
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else { return [] }
        var keys = Set<String>()
        if let results = result as? [[String: Any]] {
            for attributes in results {
                if let accountData = attributes[Self.SecAttrAccount] as? Data,
                    let key = String(data: accountData, encoding: .utf8)
                {
                    keys.insert(key)
                }
            }
        }
        return keys
    }

    func accessibility(forKey key: String) -> String? {
        var query = baseQuery(forKey: key)
        query[Self.SecReturnAttributes] = kCFBooleanTrue
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let attributes = result as? NSDictionary
        else { return nil }
        return attributes[kSecAttrAccessible] as? String
    }

    @discardableResult
    func removeObject(forKey key: String) -> Bool {
        SecItemDelete(baseQuery(forKey: key) as CFDictionary) == errSecSuccess
    }

    @discardableResult
    func removeAllKeys() -> Bool {
        let query: NSMutableDictionary = NSMutableDictionary()
        query.setObject(kSecClassGenericPassword, forKey: kSecClass)
        query[kSecAttrService] = service
        let status: OSStatus = SecItemDelete(query)
        return status == errSecSuccess || status == errSecItemNotFound
    }
}
#endif
