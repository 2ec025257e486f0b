import Foundation
import Latchkey
import LatchkeyLocalAuthentication
import LatchkeySecurity
import LatchkeyTesting
import Testing

/// One process-wide context: the `SecItem*` functions, the typed `Keychain` and `LAContext`'s passphrase
/// check all use the same store (one pool, one lock state), and a scoped context overrides it for a task.
struct KeychainContextTests {
    @Test func secItemAndTheTypedKeychainShareTheScopedStore() throws {
        try withTemporaryKeychain { store in
            let contextStore = try KeychainContext.current().store
            let typedStore = try Keychain.defaultStore()
            let secItemService = try LatchkeySecurity.currentService()
            #expect(contextStore === store)
            #expect(typedStore === store)
            #expect(secItemService as? KeychainStore === store)
            let added = Sec.add([
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "ctx",
                kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8),
            ])
            #expect(added == errSecSuccess)
            let read = try Keychain(service: "ctx").string(forKey: "a")
            #expect(read == "v", "the typed API sees the SecItem add")
        }
    }

    @Test func locksAreSharedBetweenFaces() throws {
        try withTemporaryKeychain { store in
            let added = Sec.add([
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "lock",
                kSecValueData as String: Data("secret".utf8),
            ])
            #expect(added == errSecSuccess)
            _ = try KeychainContext.current().service.perform(.lock)
            #expect(store.lockState == .locked)
            var result: CFTypeRef?
            let status = SecItemCopyMatching(
                [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "lock",
                    kSecReturnData as String: true,
                ] as CFDictionary,
                &result
            )
            #expect(status == errSecInteractionNotAllowed, "locking through the context locks the SecItem face")
        }
    }

    @Test func theContextsPassphraseCheckUnlocksItsStore() throws {
        let keychain = TemporaryKeychain()
        let store = try keychain.open()
        store.lock()
        let context = KeychainContext(store: store)
        #expect(!context.verifyPassphrase(SecretData(string: "wrong")))
        #expect(store.lockState == .locked)
        #expect(context.verifyPassphrase(keychain.passphrase))
        #expect(store.lockState == .unlocked)
    }
}
