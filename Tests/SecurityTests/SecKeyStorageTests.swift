#if !canImport(Darwin)
import Foundation
import LatchkeySecurity
import Testing

/// `SecKeyCreateRandomKey` storing keys: top-level attributes apply to both keys, `kSecPrivateKeyAttrs` and
/// `kSecPublicKeyAttrs` to one (docs/apple-semantics.md §1.9).
struct SecKeyStorageTests {
    private func keyClasses(tag: String) -> [Int] {
        let (status, result) = Sec.copy([
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ])
        guard status == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0["kcls"] as? Int }.sorted()
    }

    @Test func topLevelPermanentStoresBothKeys() throws {
        try withTemporaryKeychain { _ in
            let key = SecKeyCreateRandomKey(
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                    kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("both".utf8),
                ] as CFDictionary,
                nil
            )
            #expect(key != nil)
            #expect(keyClasses(tag: "both") == [0, 1])
            // The public key stored is the private key's public half.
            let (_, result) = Sec.copy([
                kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                kSecAttrApplicationTag as String: Data("both".utf8), kSecReturnRef as String: true,
            ])
            #expect(result as? SecKey == key.flatMap(SecKeyCopyPublicKey))
        }
    }

    @Test func perKeyAttributesChooseWhichKeyIsStored() throws {
        try withTemporaryKeychain { _ in
            #expect(
                SecKeyCreateRandomKey(
                    [
                        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                        kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data("priv".utf8)],
                    ] as CFDictionary,
                    nil
                ) != nil
            )
            #expect(keyClasses(tag: "priv") == [1])
            #expect(
                SecKeyCreateRandomKey(
                    [
                        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                        kSecAttrApplicationTag: Data("pub".utf8),
                        kSecPublicKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrLabel: "public half"],
                    ] as CFDictionary,
                    nil
                ) != nil
            )
            #expect(keyClasses(tag: "pub") == [0])
            #expect(Sec.attributes([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "public half"]) != nil)
        }
    }

    @Test func aFailedStoreLeavesNothingBehind() throws {
        try withTemporaryKeychain { _ in
            // The public key's add fails (an access group the process does not have): the private key goes too.
            var error: Unmanaged<CFError>?
            let key = SecKeyCreateRandomKey(
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                    kSecAttrApplicationTag: Data("half".utf8),
                    kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true],
                    kSecPublicKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrAccessGroup: "not.mine"],
                ] as CFDictionary,
                &error
            )
            #expect(key == nil)
            let failure = error?.takeRetainedValue()
            #expect(failure.map { CFErrorGetCode($0) } == Int(errSecMissingEntitlement))
            #expect(keyClasses(tag: "half") == [])
        }
    }
}
#endif
