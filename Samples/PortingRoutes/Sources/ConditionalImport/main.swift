// Route (a): the one source change is the import. On Apple platforms it is Apple's framework; elsewhere
// Latchkey's implementation under its own module name, so no `Security` module exists in this build.
import Foundation

#if canImport(Darwin)
import Security
#else
import LatchkeySecurity
#endif

// Stores a generic password with SecItemAdd, reads it back with SecItemCopyMatching and prints it.
let service = CommandLine.arguments.dropFirst().first ?? "com.example.porting.conditional-import"
let item: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrService as String: service,
    kSecAttrAccount as String: "alice",
    kSecValueData as String: Data("route-a-password".utf8),
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
print("conditional import: \(String(decoding: data, as: UTF8.self))")
