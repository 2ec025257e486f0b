#if !canImport(Darwin)
import Foundation
import Latchkey
import Security
import Testing

/// docs/apple-semantics.md §3.3, §6.1: locked classes fail the whole query; kSecAttrAccessible narrows it.
struct LockStateTests {
    @Test func queryTouchingALockedRowFailsAsAWhole() throws {
        try withTemporaryKeychain { store in
            Sec.add(Sec.password(account: "locked"))
            var readable = Sec.password(account: "readable")
            readable[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            Sec.add(readable)
            store.lock()
            let all: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: true,
            ]
            #expect(Sec.copy(all).0 == errSecInteractionNotAllowed)
            var narrowed = all
            narrowed[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            narrowed[kSecReturnData as String] = true
            let (status, result) = Sec.copy(narrowed)
            #expect(status == errSecSuccess)
            #expect((result as? [[String: Any]])?.first?["v_Data"] as? Data == Data("s3cret".utf8))
        }
    }

    @Test func addingALockedClassItemFailsEvenWhenItWouldBeADuplicate() throws {
        try withTemporaryKeychain { store in
            Sec.add(Sec.password())
            store.lock()
            #expect(Sec.add(Sec.password()) == errSecInteractionNotAllowed)
            #expect(Sec.add(Sec.password(account: "new")) == errSecInteractionNotAllowed)
            var always = Sec.password(account: "always")
            always[kSecAttrAccessible as String] = kSecAttrAccessibleAlways
            #expect(Sec.add(always) == errSecSuccess)
        }
    }

    @Test func missingDefaultKeychainWithoutCredentialsIsAStatusNotACrash() throws {
        let keychain = TemporaryKeychain()
        let environment = ProcessInfo.processInfo.environment
        guard environment["LATCHKEY_PASSPHRASE"] == nil, environment["LATCHKEY_KEY_FILE"] == nil,
            environment["LATCHKEY_PASSPHRASE_FILE"] == nil
        else { return }
        setenv("LATCHKEY_KEYCHAIN", keychain.directory + "/missing.keychain-db", 1)
        defer { unsetenv("LATCHKEY_KEYCHAIN") }
        // No scoped or installed store: the default one is opened lazily, and cannot be created.
        #expect(Sec.copy(Sec.password(data: nil)).0 == errSecInteractionNotAllowed)
        #expect(Sec.add(Sec.password()) == errSecInteractionNotAllowed)
        #expect(LatchkeySecurity.lastErrorMessage?.contains("LATCHKEY_KEY_FILE") == true)
    }
}
#endif
