#if !canImport(Darwin)
// Keychain code written against the Core Foundation spellings, and a Swift 6 actor using it.
import Foundation
import Security

enum CoreFoundationStyleSample {
    static func save(key: String, data: Data) -> OSStatus {
        let query =
            [
                kSecClass: kSecClassGenericPassword,
                kSecAttrAccount: key,
                kSecValueData: data,
                kSecAttrAccessible: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                kSecUseDataProtectionKeychain: true,
            ] as [CFString: Any] as CFDictionary
        SecItemDelete(query)
        return SecItemAdd(query, nil)
    }

    static func load(key: String) -> Data? {
        let query =
            [
                kSecClass: kSecClassGenericPassword,
                kSecAttrAccount: key,
                kSecReturnData: kCFBooleanTrue!,
                kSecMatchLimit: kSecMatchLimitOne,
            ] as [CFString: Any] as CFDictionary
        var dataTypeRef: AnyObject? = nil
        let status: OSStatus = SecItemCopyMatching(query, &dataTypeRef)
        if status == noErr {
            return dataTypeRef as! Data?
        }
        return nil
    }

    static func exists(key: String) -> Bool {
        let query: NSDictionary = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: key]
        return SecItemCopyMatching(query, nil) == errSecSuccess
    }

    static func randomKey() -> Data? {
        var bytes = [UInt8](repeating: 0, count: 32)
        let result = SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
        guard result == errSecSuccess else { return nil }
        return Data(bytes)
    }

    static func randomKeyIntoData() -> Data {
        var data = Data(count: 16)
        _ = data.withUnsafeMutableBytes { SecRandomCopyBytes(kSecRandomDefault, 16, $0.baseAddress!) }
        return data
    }

    static func describe(_ error: CFError) -> String {
        let domain = CFErrorGetDomain(error) as String
        let code = CFErrorGetCode(error)
        let info = CFErrorCopyUserInfo(error) as? [String: Any] ?? [:]
        return "\(domain) \(code) \(info.count)"
    }

    static func bundleIdentifierKey() -> String {
        kCFBundleIdentifierKey as String
    }

    static func keyItem(tag: String, keyData: Data) -> OSStatus {
        let attributes: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrKeyType as String: kSecAttrKeyTypeEC,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            kSecAttrApplicationTag as String: tag.data(using: .utf8)!,
            kSecAttrKeySizeInBits as String: 256,
            kSecValueData as String: keyData,
        ]
        return SecItemAdd(attributes as CFDictionary, nil)
    }

    static func keyClass(tag: String) -> Int? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: tag.data(using: .utf8)!,
            kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let attributes = result as? [String: Any]
        else { return nil }
        return attributes[kSecAttrKeyClass as String] as? Int
    }
}

/// Swift 6: the constants are usable from an actor.
actor TokenStore {
    private let service: String

    init(service: String) { self.service = service }

    func save(_ token: String) -> OSStatus {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: "token",
        ]
        SecItemDelete(query as CFDictionary)
        var attributes = query
        attributes[kSecValueData as String] = Data(token.utf8)
        return SecItemAdd(attributes as CFDictionary, nil)
    }

    func token() -> String? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: "token",
            kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return (result as? Data).map { String(decoding: $0, as: UTF8.self) }
    }
}
#endif
