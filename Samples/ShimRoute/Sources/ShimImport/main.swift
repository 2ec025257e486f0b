// Route (c): the source is unchanged iOS code and Package.swift names Latchkey's opt-in `Security` product, a
// one-line shim that re-exports `LatchkeySecurity`. Not for a build that also builds swift-certificates' `X509`,
// which probes `canImport(Security)` (docs/apple-compatibility.md, "Porting routes").
import Foundation
import Security

// Stores a generic password with SecItemAdd, reads it back with SecItemCopyMatching and prints it.
let service = CommandLine.arguments.dropFirst().first ?? "com.example.porting.shim-import"
let item: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword,
    kSecAttrService as String: service,
    kSecAttrAccount as String: "alice",
    kSecValueData as String: Data("route-c-password".utf8),
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
print("shim import: \(String(decoding: data, as: UTF8.self))")
