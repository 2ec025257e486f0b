// Route (b): the source is unchanged iOS code. Package.swift passes `-module-alias Security=LatchkeySecurity` to
// this target on Linux, so `import Security` loads `LatchkeySecurity` and no `Security` module exists in this build.
import Foundation
import Security

// Stores a generic password with SecItemAdd, reads it back with SecItemCopyMatching and prints it.
let service = CommandLine.arguments.dropFirst().first ?? "com.example.porting.module-alias"
let item: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrService as String: service,
    kSecAttrAccount as String: "alice",
    kSecValueData as String: Data("route-b-password".utf8),
]
let added = SecItemAdd(item as CFDictionary, nil)
guard added == errSecSuccess else {
    FileHandle.standardError.write(Data("SecItemAdd failed: OSStatus \(added)\n".utf8))
    exit(1)
}
let query: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrService as String: service,
    kSecAttrAccount as String: "alice",
    kSecReturnData as String: true,
    kSecMatchLimit as String: kSecMatchLimitOne,
]
var result: CFTypeRef?
let found = SecItemCopyMatching(query as CFDictionary, &result)
guard found == errSecSuccess, let data = result as? Data else {
    FileHandle.standardError.write(Data("SecItemCopyMatching failed: OSStatus \(found)\n".utf8))
    exit(1)
}
print("module alias: \(String(decoding: data, as: UTF8.self))")
