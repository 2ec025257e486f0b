#if !canImport(Darwin)
// An iOS-style key and identity helper, written as it is on Apple platforms (Apple's Swift idioms:
// `.ecdsaSignatureMessageX962SHA256` members, `CFGetTypeID` checks, `Unmanaged<CFError>` out-parameters,
// `SecPKCS12Import` into `CFArray?`). It imports only Foundation and Security.
import Foundation
import Security

enum KeyAndIdentitySample {
    enum Failure: Error {
        case status(OSStatus)
        case crypto(String)
    }

    /// Creates a P-256 signing key stored under `tag` (the pattern of Apple's "Storing Keys in the Keychain").
    static func makeSigningKey(tag: String) throws -> SecKey {
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true,
                kSecAttrApplicationTag as String: tag.data(using: .utf8)!,
            ],
        ]
        var error: Unmanaged<CFError>?
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            throw Failure.crypto(error!.takeRetainedValue().localizedDescription)
        }
        return privateKey
    }

    /// Looks the key up by tag (Apple's "Getting an Existing Key").
    static func loadKey(tag: String) throws -> SecKey {
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: tag.data(using: .utf8)!,
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecReturnRef as String: true,
        ]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        guard status == errSecSuccess else { throw Failure.status(status) }
        guard CFGetTypeID(item) == SecKeyGetTypeID() else { throw Failure.crypto("not a key") }
        return item as! SecKey
    }

    /// Signs and verifies with Apple's algorithm members.
    static func signAndVerify(_ message: Data, with privateKey: SecKey) throws -> Bool {
        let algorithm: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256
        guard SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm) else { throw Failure.crypto("unsupported") }
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(privateKey, algorithm, message as CFData, &error) as Data? else {
            throw error!.takeRetainedValue() as Error
        }
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else { throw Failure.crypto("no public key") }
        return SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, &error)
    }

    /// Encrypts to an RSA public key and decrypts with the private key.
    static func roundTrip(_ message: Data, with privateKey: SecKey) throws -> Data {
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else { throw Failure.crypto("no public key") }
        var error: Unmanaged<CFError>?
        guard
            let ciphertext = SecKeyCreateEncryptedData(
                publicKey,
                .rsaEncryptionOAEPSHA256,
                message as CFData,
                &error
            )
        else { throw error!.takeRetainedValue() as Error }
        guard let plaintext = SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA256, ciphertext, &error)
        else { throw error!.takeRetainedValue() as Error }
        return plaintext as Data
    }

    /// Derives a shared key with ECDH and the X9.63 KDF.
    static func sharedKey(_ privateKey: SecKey, _ peerPublicKey: SecKey) throws -> Data {
        let parameters = [SecKeyKeyExchangeParameter.requestedSize.rawValue: 32] as CFDictionary
        var error: Unmanaged<CFError>?
        guard
            let shared = SecKeyCopyKeyExchangeResult(
                privateKey,
                .ecdhKeyExchangeStandardX963SHA256,
                peerPublicKey,
                parameters,
                &error
            )
        else { throw error!.takeRetainedValue() as Error }
        return shared as Data
    }

    /// Imports a PKCS#12 file and stores its identity (the pattern of Apple's "Importing an Identity").
    static func importIdentity(_ p12: Data, password: String) throws -> SecIdentity {
        var rawItems: CFArray?
        let options = [kSecImportExportPassphrase as String: password]
        let status = SecPKCS12Import(p12 as CFData, options as CFDictionary, &rawItems)
        guard status == errSecSuccess else { throw Failure.status(status) }
        let items = rawItems! as! [[String: Any]]
        let identity = items[0][kSecImportItemIdentity as String] as! SecIdentity
        let addStatus = SecItemAdd([kSecValueRef as String: identity] as CFDictionary, nil)
        guard addStatus == errSecSuccess || addStatus == errSecDuplicateItem else { throw Failure.status(addStatus) }
        return identity
    }

    /// Finds the stored identity and gives its certificate's common name.
    static func storedIdentityCommonName() throws -> String? {
        let query: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        guard status == errSecSuccess else { throw Failure.status(status) }
        let identity = item as! SecIdentity
        var certificate: SecCertificate?
        guard SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess, let certificate else {
            return nil
        }
        var commonName: CFString?
        _ = SecCertificateCopyCommonName(certificate, &commonName)
        return commonName as String?
    }
}
#endif
