#if !canImport(Darwin)
import Foundation

// Import/export option and result keys (Apple's SecImportExport.h), with Apple's raw string values.
// `NSString` is not `Sendable` on swift-corelibs-foundation; these instances are immutable, so
// `nonisolated(unsafe)` is sound.

/// `kSecImportExportPassphrase` (`"passphrase"`): Option key of `SecPKCS12Import`: the passphrase, a `CFString`.
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
/// `kSecImportItemLabel` (`"label"`): Result key: the key bag's `friendlyName`, a `CFString`, when present.
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
/// `kSecImportItemKeyID` (`"keyid"`): Result key: the key bag's `localKeyID`, a `CFData`, when present.
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
/// `kSecImportItemTrust` (`"trust"`): Result key: a `SecTrust` for the identity, made of its chain
/// (`kSecImportItemCertChain`) and the basic X.509 policy, not yet evaluated (as Apple's).
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// `kSecImportItemCertChain` (`"chain"`): Result key: the certificate chain, a `CFArray` of `SecCertificate`,
/// leaf first.
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
/// `kSecImportItemIdentity` (`"identity"`): Result key: the `SecIdentity`.
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"

/// `SecPKCS12Import`: decodes a PKCS#12 (`.p12`, `.pfx`) file into identities (mirrors Apple's function).
///
/// Verifies the password MAC, decrypts the contents and returns one dictionary per private key that has a
/// certificate in the file, in file order:
/// - `kSecImportItemIdentity`: the `SecIdentity` (certificate and private key);
/// - `kSecImportItemCertChain`: `[SecCertificate]`, the leaf first, then its issuers found in the file, then
///   the file's other certificates that belong to no identity;
/// - `kSecImportItemTrust`: a `SecTrust` of that chain with `SecPolicyCreateBasicX509()`, not evaluated
///   (evaluate it with `SecTrustEvaluateWithError`, after `SecTrustSetAnchorCertificates` for a private CA);
/// - `kSecImportItemKeyID`: the `localKeyID` bag attribute (`Data`), when present;
/// - `kSecImportItemLabel`: the `friendlyName` bag attribute (`String`), when present.
///
/// As on iOS, nothing is added to the keychain; add the identity's parts with `SecItemAdd` and `kSecValueRef`.
///
/// ```swift
/// var items: CFArray?
/// let status = SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase: "secret"] as CFDictionary, &items)
/// if status == errSecSuccess, let first = (items as? [[String: Any]])?.first {
///     let identity = first[kSecImportItemIdentity as String] as! SecIdentity
/// }
/// ```
///
/// Supported: PFX version 3 in password integrity mode; MAC with HMAC-SHA-1/256/384/512 (PKCS#12 KDF) or PBMAC1;
/// files without MAC; plain `data` and PBES2 `encryptedData` contents (PBKDF2 with HMAC-SHA-1/224/256/384/512,
/// AES-128/192/256-CBC); `keyBag`, `pkcs8ShroudedKeyBag`, `certBag` (X.509) and nested `safeContentsBag`;
/// EC P-256/P-384/P-521 and RSA (at least 2048 bits) private keys. Other bags are skipped.
///
/// Known differences from Apple, each pinned by a test in `PKCS12ImportTests`:
/// - The chain is ordered by subject and issuer names, not built by `SecTrust`
///   (`chainIsLeafThenIssuersInOrderWhateverTheFileOrder`).
/// - Legacy PKCS#12 PBE encryption (`openssl pkcs12 -legacy`: RC2, 3DES) gives `errSecDecode`, where Apple
///   decrypts it (`legacyEncryptionGivesDecodeError`).
/// - A file without MAC imports (Apple requires the MAC, `errSecDecode`); a wrong passphrase then shows as a
///   decryption failure, reported as `errSecAuthFailed` (`fileWithoutMACImportsAndRejectsWrongPassphrase`).
/// - Options other than `kSecImportExportPassphrase` (such as `kSecUseDataProtectionKeychain`) are ignored.
///
/// - Parameters:
///   - pkcs12_data: The PKCS#12 bytes (DER or BER).
///   - options: `kSecImportExportPassphrase` (a string; absent means the empty passphrase).
///   - items: Receives the array of dictionaries on success; untouched on failure.
/// - Returns: `errSecSuccess` (also for a file with certificates but no matching key: then the array is empty,
///   as on iOS); `errSecAuthFailed` (-25293) when the MAC does not verify with the passphrase; `errSecDecode`
///   (-26275) for empty, truncated or malformed input and for unsupported algorithms, key types or structures
///   (Apple's `p12_decodeErr`); `errSecParam` when the passphrase is not a string.
public func SecPKCS12Import(
    _ pkcs12_data: CFData,
    _ options: CFDictionary,
    _ items: UnsafeMutablePointer<CFArray?>
) -> OSStatus {
    var passphrase = ""
    for (key, value) in options {
        guard (key as? String ?? (key as? NSString).map { $0 as String }) == kSecImportExportPassphrase as String
        else { continue }
        guard let text = value as? String ?? (value as? NSString).map({ $0 as String }) else { return errSecParam }
        passphrase = text
    }
    let bags: [SafeBag]
    do {
        bags = try PFXParser.bags(of: [UInt8](Data(referencing: pkcs12_data)), passphrase: passphrase)
    } catch let error as PKCS12Error {
        return error.status
    } catch {
        return errSecDecode
    }
    let results: [NSDictionary] = ImportedIdentity.pair(bags).map { imported in
        let dictionary = NSMutableDictionary()
        dictionary.setObject(imported.identity, forKey: kSecImportItemIdentity)
        dictionary.setObject(NSArray(array: imported.chain), forKey: kSecImportItemCertChain)
        var trust: SecTrust?
        if SecTrustCreateWithCertificates(NSArray(array: imported.chain), SecPolicyCreateBasicX509(), &trust)
            == errSecSuccess, let trust
        {
            dictionary.setObject(trust, forKey: kSecImportItemTrust)
        }
        if let keyID = imported.keyID { dictionary.setObject(NSData(data: keyID), forKey: kSecImportItemKeyID) }
        if let label = imported.label { dictionary.setObject(NSString(string: label), forKey: kSecImportItemLabel) }
        return dictionary
    }
    items.pointee = NSArray(array: results)
    return errSecSuccess
}
#endif
