#if !canImport(Darwin)
// Protecting a secret with user presence, as iOS apps do with SecAccessControl and LAContext.
import Foundation
import LocalAuthentication
import Security

enum BiometricSample {
    static let service = "com.example.biometric"

    static func canUseBiometrics() -> Bool {
        let context = LAContext()
        var error: NSError?
        return context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
    }

    static func store(secret: Data) -> OSStatus {
        var error: Unmanaged<CFError>?
        guard
            let access = SecAccessControlCreateWithFlags(
                kCFAllocatorDefault,
                kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                .userPresence,
                &error
            )
        else {
            let cfError = error!.takeRetainedValue()
            return OSStatus(CFErrorGetCode(cfError))
        }
        let context = LAContext()
        context.touchIDAuthenticationAllowableReuseDuration = 10
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: "user",
            kSecAttrAccessControl as String: access,
            kSecUseAuthenticationContext as String: context,
            kSecValueData as String: secret,
        ]
        SecItemDelete(
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary
        )
        return SecItemAdd(query as CFDictionary, nil)
    }

    static func read(reason: String, context: LAContext = LAContext()) -> (OSStatus, Data?) {
        context.localizedReason = reason
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecMatchLimit as String: kSecMatchLimitOne,
            kSecReturnData as String: true,
            kSecUseAuthenticationContext as String: context,
            kSecUseOperationPrompt as String: reason,
        ]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        return (status, item as? Data)
    }

    static func readWithoutPrompt() -> OSStatus {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecReturnData as String: true,
            kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail,
        ]
        return SecItemCopyMatching(query as CFDictionary, nil)
    }

    static func authenticateThenRead(completion: @escaping (Bool, Data?) -> Void) {
        let context = LAContext()
        context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Unlock") { success, error in
            guard success, error == nil else {
                if let laError = error as? LAError, laError.code == .userCancel {
                    completion(false, nil)
                    return
                }
                completion(false, nil)
                return
            }
            let (status, data) = read(reason: "Unlock", context: context)
            completion(status == errSecSuccess, data)
        }
    }

    static func accessControlDictionary() -> [String: AnyHashable] {
        let access = SecAccessControlCreateWithFlags(
            nil,
            kSecAttrAccessibleAfterFirstUnlock,
            [.biometryCurrentSet, .or, .devicePasscode],
            nil
        )!
        return [kSecAttrAccessControl as String: access, kSecClass as String: kSecClassGenericPassword as String]
    }
}
#endif
