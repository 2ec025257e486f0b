#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication
import LatchkeySecurity
import Testing

/// docs/apple-semantics.md §6.2, §3.6: SecAccessControl, and reading protected items through LAContext.
struct AccessControlTests {
    private func protectedItem(_ flags: SecAccessControlCreateFlags = .userPresence, account: String = "alice") throws
        -> [String: Any]
    {
        let control = try #require(
            SecAccessControlCreateWithFlags(
                kCFAllocatorDefault,
                kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                flags,
                nil
            )
        )
        var item = Sec.password(account: account)
        item[kSecAttrAccessControl as String] = control
        return item
    }

    private func readData(_ extra: [String: Any] = [:], account: String = "alice") -> (OSStatus, AnyObject?) {
        var query = Sec.password(account: account, data: nil)
        query[kSecReturnData as String] = true
        return Sec.copy(query.merging(extra) { $1 })
    }

    @Test func createWithFlagsValidatesLikeApple() {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, "nonsense" as CFString, [], &error) == nil)
        #expect(error?.takeRetainedValue().code == Int(errSecParam))
        #expect(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.userPresence, .biometryAny], nil)
                == nil
        )
        #expect(
            SecAccessControlCreateWithFlags(
                nil,
                kSecAttrAccessibleWhenUnlocked,
                [.biometryAny, .biometryCurrentSet],
                nil
            ) == nil
        )
        #expect(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.devicePasscode, .or, .and], nil)
                == nil
        )
        #expect(
            SecAccessControlCreateWithFlags(
                nil,
                kSecAttrAccessibleWhenUnlocked,
                [.userPresence, .applicationPassword],
                nil
            ) != nil
        )
        #expect(
            SecAccessControlCreateWithFlags(
                nil,
                kSecAttrAccessibleWhenUnlocked,
                [.biometryAny, .or, .devicePasscode],
                nil
            ) != nil
        )
    }

    @Test func accessControlIsHashable() throws {
        let first = try #require(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)
        )
        let second = try #require(
            SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)
        )
        let query: [String: AnyHashable] = [kSecAttrAccessControl as String: first]
        #expect(query[kSecAttrAccessControl as String] == AnyHashable(second))
        #expect(Set([first, second]).count == 1)
    }

    @Test func protectedItemStoresProtectionAndReadsAttributesWithoutAuthentication() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [.userCancel])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                #expect(Sec.add(try protectedItem()) == errSecSuccess)
                let attributes = try #require(Sec.attributes(Sec.password(data: nil)))
                #expect(attributes["pdmn"] as? String == "aku")
                let control = try #require(attributes["accc"] as? SecAccessControl)
                #expect(
                    control
                        == SecAccessControlCreateWithFlags(
                            nil,
                            kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                            .userPresence,
                            nil
                        )
                )
                #expect(authenticator.callCount == 0)
            }
        }
    }

    @Test func readingTheSecretAsksTheAuthenticatorWithTheOperationPrompt() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [nil])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem())
                let (status, result) = readData([kSecUseOperationPrompt as String: "Unlock your token"])
                #expect(status == errSecSuccess)
                #expect(result as? Data == Data("s3cret".utf8))
                #expect(authenticator.reasons == ["Unlock your token"])
            }
        }
    }

    @Test func cancelIsUserCanceledAndFailureIsAuthFailed() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [.userCancel, .authenticationFailed])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem())
                #expect(readData().0 == errSecUserCanceled)
                #expect(readData().0 == errSecAuthFailed)
            }
        }
    }

    @Test func authenticationUIFailAndSkip() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [nil])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem())
                Sec.add(Sec.password(account: "plain"))
                #expect(
                    readData([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]).0
                        == errSecInteractionNotAllowed
                )
                #expect(readData([kSecUseNoAuthenticationUI as String: true]).0 == errSecInteractionNotAllowed)
                #expect(
                    readData([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]).0 == errSecItemNotFound
                )
                let (status, result) = Sec.copy([
                    kSecClass as String: kSecClassGenericPassword,
                    kSecReturnAttributes as String: true,
                    kSecReturnData as String: true,
                    kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
                    kSecMatchLimit as String: kSecMatchLimitOne,
                ])
                #expect(status == errSecSuccess)
                #expect((result as? [String: Any])?["acct"] as? String == "plain")
                #expect(authenticator.callCount == 0)
            }
        }
    }

    @Test func evaluatedContextIsReusedWithoutAsking() async throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [nil, .userCancel])
        try await LAAuthentication.withAuthenticator(authenticator) {
            let context = LAContext()
            #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in"))
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem())
                for _ in 0..<3 {
                    #expect(readData([kSecUseAuthenticationContext as String: context]).0 == errSecSuccess)
                }
                #expect(authenticator.callCount == 1)
                context.invalidate()
                #expect(readData([kSecUseAuthenticationContext as String: context]).0 == errSecAuthFailed)
            }
        }
    }

    @Test func contextEvaluatedForTheAccessControlIsReused() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [nil, .userCancel])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                let item = try protectedItem()
                Sec.add(item)
                let control = try #require(item[kSecAttrAccessControl as String] as? SecAccessControl)
                let context = LAContext()
                nonisolated(unsafe) var evaluated = false
                context.evaluateAccessControl(control, operation: .useItem, localizedReason: "Use it") { success, _ in
                    evaluated = success
                }
                #expect(evaluated)
                #expect(readData([kSecUseAuthenticationContext as String: context]).1 as? Data == Data("s3cret".utf8))
                #expect(authenticator.callCount == 1)
                #expect(Int32(LAError.Code.userCancel.rawValue) == kLAErrorUserCancel)
            }
        }
    }

    @Test func contextWithInteractionNotAllowedIsInteractionNotAllowed() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [nil])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem())
                let context = LAContext()
                context.interactionNotAllowed = true
                #expect(readData([kSecUseAuthenticationContext as String: context]).0 == errSecInteractionNotAllowed)
                #expect(authenticator.callCount == 0)
            }
        }
    }

    @Test func updateAuthenticatesAndDeleteDoesNot() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [.userCancel, nil])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem())
                #expect(
                    Sec.update(Sec.password(data: nil), [kSecValueData as String: Data("n".utf8)]) == errSecUserCanceled
                )
                #expect(Sec.update(Sec.password(data: nil), [kSecValueData as String: Data("n".utf8)]) == errSecSuccess)
                #expect(authenticator.callCount == 2)
                #expect(Sec.delete(Sec.password(data: nil)) == errSecSuccess)
                #expect(authenticator.callCount == 2)
            }
        }
    }

    @Test func flagsWithoutConstraintsOrPrivateKeyUsageNeedNoAuthentication() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [.userCancel])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withTemporaryKeychain { _ in
                Sec.add(try protectedItem([], account: "none"))
                Sec.add(try protectedItem([.privateKeyUsage, .biometryAny], account: "keyUsage"))
                #expect(readData(account: "none").0 == errSecSuccess)
                #expect(readData(account: "keyUsage").0 == errSecSuccess)
                #expect(authenticator.callCount == 0)
            }
        }
    }
}
#endif
