#if !canImport(Darwin)
// A password item type in the shape of Apple's classic "GenericKeychain" sample: [String: AnyObject]
// queries, withUnsafeMutablePointer, kCFBooleanTrue/kCFBooleanFalse, renaming with SecItemUpdate.
import Foundation
import Security

struct PasswordItem {
    enum Failure: Error {
        case noPassword
        case unexpectedPasswordData
        case unexpectedItemData
        case unhandledError(status: OSStatus)
    }

    let service: String
    private(set) var account: String
    let accessGroup: String?

    init(service: String, account: String, accessGroup: String? = nil) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
    }

    func readPassword() throws -> String {
        var query = PasswordItem.keychainQuery(withService: service, account: account, accessGroup: accessGroup)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecReturnData as String] = kCFBooleanTrue
        var queryResult: AnyObject?
        let status = withUnsafeMutablePointer(to: &queryResult) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard status != errSecItemNotFound else { throw Failure.noPassword }
        guard status == noErr else { throw Failure.unhandledError(status: status) }
        guard let existingItem = queryResult as? [String: AnyObject],
            let passwordData = existingItem[kSecValueData as String] as? Data,
            let password = String(data: passwordData, encoding: String.Encoding.utf8)
        else {
            throw Failure.unexpectedPasswordData
        }
        return password
    }

    func savePassword(_ password: String) throws {
        let encodedPassword = password.data(using: String.Encoding.utf8)!
        do {
            try _ = readPassword()
            var attributesToUpdate = [String: AnyObject]()
            attributesToUpdate[kSecValueData as String] = encodedPassword as AnyObject?
            let query = PasswordItem.keychainQuery(withService: service, account: account, accessGroup: accessGroup)
            let status = SecItemUpdate(query as CFDictionary, attributesToUpdate as CFDictionary)
            guard status == noErr else { throw Failure.unhandledError(status: status) }
        } catch Failure.noPassword {
            var newItem = PasswordItem.keychainQuery(withService: service, account: account, accessGroup: accessGroup)
            newItem[kSecValueData as String] = encodedPassword as AnyObject?
            let status = SecItemAdd(newItem as CFDictionary, nil)
            guard status == noErr else { throw Failure.unhandledError(status: status) }
        }
    }

    mutating func renameAccount(_ newAccountName: String) throws {
        var attributesToUpdate = [String: AnyObject]()
        attributesToUpdate[kSecAttrAccount as String] = newAccountName as AnyObject?
        let query = PasswordItem.keychainQuery(withService: service, account: self.account, accessGroup: accessGroup)
        let status = SecItemUpdate(query as CFDictionary, attributesToUpdate as CFDictionary)
        guard status == noErr || status == errSecItemNotFound else { throw Failure.unhandledError(status: status) }
        self.account = newAccountName
    }

    func deleteItem() throws {
        let query = PasswordItem.keychainQuery(withService: service, account: account, accessGroup: accessGroup)
        let status = SecItemDelete(query as CFDictionary)
        guard status == noErr || status == errSecItemNotFound else { throw Failure.unhandledError(status: status) }
    }

    static func passwordItems(forService service: String, accessGroup: String? = nil) throws -> [PasswordItem] {
        var query = PasswordItem.keychainQuery(withService: service, accessGroup: accessGroup)
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecReturnData as String] = kCFBooleanFalse
        var queryResult: AnyObject?
        let status = withUnsafeMutablePointer(to: &queryResult) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard status != errSecItemNotFound else { return [] }
        guard status == noErr else { throw Failure.unhandledError(status: status) }
        guard let results = queryResult as? [[String: AnyObject]] else { throw Failure.unexpectedItemData }
        var passwordItems = [PasswordItem]()
        for result in results {
            guard let account = result[kSecAttrAccount as String] as? String else { throw Failure.unexpectedItemData }
            passwordItems.append(PasswordItem(service: service, account: account, accessGroup: accessGroup))
        }
        return passwordItems
    }

    private static func keychainQuery(
        withService service: String,
        account: String? = nil,
        accessGroup: String? = nil
    ) -> [String: AnyObject] {
        var query = [String: AnyObject]()
        query[kSecClass as String] = kSecClassGenericPassword
        query[kSecAttrService as String] = service as AnyObject?
        if let account = account {
            query[kSecAttrAccount as String] = account as AnyObject?
        }
        if let accessGroup = accessGroup {
            query[kSecAttrAccessGroup as String] = accessGroup as AnyObject?
        }
        return query
    }

    /// The one-liner style: a dictionary literal coerced straight to `CFDictionary`.
    static func exists(service: String) -> Bool {
        let query =
            [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecReturnData: false] as CFDictionary
        return SecItemCopyMatching(query, nil) == errSecSuccess
    }
}
#endif
