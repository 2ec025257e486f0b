#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing
import LatchkeyTesting

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
        // The lazily opened default is `KeychainStore.open(path:credentials:)` with the environment's path and
        // credentials. The environment itself is not changed here: other suites spawn processes at the same time,
        // and a setenv races the environment copy Foundation's Process.run makes (it crashed a run).
        do {
            _ = try KeychainStore.open(path: keychain.directory + "/missing.keychain-db", credentials: [])
            Issue.record("a missing keychain was opened without credentials")
        } catch {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.message.contains("LATCHKEY_KEY_FILE"))
        }
    }
}
#endif
