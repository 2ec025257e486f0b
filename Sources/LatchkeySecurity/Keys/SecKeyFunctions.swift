#if !canImport(Darwin)
import Foundation
import Latchkey

/// Reads `kSecAttrKeyType` (a string such as `kSecAttrKeyTypeECSECPrimeRandom` or a number) as Apple's number.
private func keyTypeNumber(_ value: Any?) -> Int? {
    guard let value = value.flatMap(ValueBridge.unwrap) else { return nil }
    if let text = ValueBridge.string(value) { return Int(text) }
    return ValueBridge.number(value)?.numberValue.map(Int.init)
}

/// Reads an integer parameter given as a number or a numeric string.
private func integer(_ value: Any?) -> Int? {
    guard let value = value.flatMap(ValueBridge.unwrap) else { return nil }
    if let text = ValueBridge.string(value) { return Int(text) }
    if ValueBridge.boolean(value) != nil { return nil }
    return ValueBridge.number(value)?.numberValue.map(Int.init)
}

/// `SecKeyCreateRandomKey`: generates a new key pair and returns its private key (mirrors Apple's function).
///
/// Supports `kSecAttrKeyTypeECSECPrimeRandom` (256, 384, 521 bits) and `kSecAttrKeyTypeRSA` (2048, 3072,
/// 4096 bits). As on Apple platforms, optional attributes may sit at the top level (they apply to both keys)
/// or in `kSecPrivateKeyAttrs` / `kSecPublicKeyAttrs` (they apply to that key only, over the top level). A key
/// whose merged attributes hold `kSecAttrIsPermanent` true is stored with `SecItemAdd` and `kSecValueRef`
/// together with those attributes (tag, label, access group, accessibility ...): the private key first, then
/// the public key (docs/apple-semantics.md §1.9). When storing fails, no key is returned and nothing stays stored.
///
/// Known difference from Apple: `kSecAttrTokenID` (Secure Enclave) is not supported.
///
/// - Parameters:
///   - parameters: `kSecAttrKeyType`, `kSecAttrKeySizeInBits`, optional `kSecAttrIsPermanent`,
///     `kSecAttrApplicationTag`, `kSecAttrLabel`, `kSecPrivateKeyAttrs`, `kSecPublicKeyAttrs`,
///     `kSecAttrAccessGroup` ...
///   - error: Receives a `CFError` (domain `NSOSStatusErrorDomain`, code an `OSStatus`) on failure.
/// - Returns: The private key, or `nil` on failure.
public func SecKeyCreateRandomKey(
    _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    var common: [String: Any] = [:]
    for (key, value) in parameters {
        if let key = ValueBridge.string(key) { common[key] = value }
    }
    let privateParameters = KeyGenerationParameters.merged(common, "private")
    let publicParameters = KeyGenerationParameters.merged(common, "public")
    guard let type = keyTypeNumber(privateParameters["type"]) else {
        SecKeyError(errSecParam, "kSecAttrKeyType is missing or not a key type.").report(to: error)
        return nil
    }
    guard let size = integer(privateParameters["bsiz"]) else {
        SecKeyError(errSecParam, "kSecAttrKeySizeInBits is missing or not a number.").report(to: error)
        return nil
    }
    let key: SecKey
    do {
        key = try SecKey.generate(type: type, size: size)
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return nil
    } catch {
        return nil
    }
    let permanent = [(key, privateParameters), (key.publicKey, publicParameters)]
        .filter { KeyGenerationParameters.isPermanent($0.1) }
    if !permanent.isEmpty {
        // Both keys are stored by the core in one transaction: all or nothing.
        let status = SecItemCalls.run {
            try KeyGenerationParameters.storeTogether(
                permanent.map { KeyGenerationParameters.addDictionary($0.0, $0.1) }
            )
        }
        guard status == errSecSuccess else {
            SecKeyError(status, "Storing the new key failed (OSStatus \(status)); nothing was stored.").report(
                to: error
            )
            return nil
        }
    }
    return key
}

/// How `SecKeyCreateRandomKey` splits its parameters between the private and the public key.
enum KeyGenerationParameters {
    /// The top-level parameters with the `kSecPrivateKeyAttrs` (`"private"`) or `kSecPublicKeyAttrs`
    /// (`"public"`) dictionary merged over them.
    static func merged(_ common: [String: Any], _ part: String) -> [String: Any] {
        var merged = common
        merged["private"] = nil
        merged["public"] = nil
        for (key, value) in common[part].flatMap(ValueBridge.unwrap) as? NSDictionary ?? [:] {
            if let key = ValueBridge.string(key) { merged[key] = value }
        }
        return merged
    }

    /// Adds the keys of `dictionaries` (each a `SecItemAdd` dictionary) in one core transaction.
    static func storeTogether(_ dictionaries: [NSDictionary]) throws -> OSStatus {
        var items: [NewItem] = []
        var service: (any KeychainService)?
        for dictionary in dictionaries {
            let request = ItemRequest.parse(dictionary, for: .add)
            service = try SecItemCalls.prepare(request)
            guard let itemClass = request.itemClass else { return errSecParam }
            var values = request.attributes
            if request.synchronizableAny { values[.synchronizable] = nil }
            items.append(NewItem(itemClass, attributes: values, data: request.secret.map { SecretData($0) }))
        }
        _ = try service?.perform(.addAll(items, tolerateExisting: false))
        return errSecSuccess
    }

    /// Whether `kSecAttrIsPermanent` is true.
    static func isPermanent(_ parameters: [String: Any]) -> Bool {
        parameters["perm"].flatMap(ValueBridge.unwrap).flatMap(ValueBridge.boolean) ?? false
    }

    /// The `SecItemAdd` dictionary storing `key` with the caller's attributes.
    static func addDictionary(_ key: SecKey, _ parameters: [String: Any]) -> NSDictionary {
        var item = parameters
        for attribute in ["type", "bsiz", "perm", "kcls"] { item[attribute] = nil }
        item["class"] = "keys"
        item["v_Ref"] = key
        return item as NSDictionary
    }
}

/// `SecKeyCopyPublicKey`: the public key of a key (mirrors Apple's function).
///
/// - Parameter key: A private or public key.
/// - Returns: The public key; for a public key, the key itself.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    key.publicKey
}

/// `SecKeyCopyExternalRepresentation`: the key's bytes in Apple's format (mirrors Apple's function).
///
/// EC public keys: ANSI X9.63 `04‖X‖Y`; EC private keys `04‖X‖Y‖K`; RSA keys: PKCS#1 DER.
///
/// - Parameters:
///   - key: The key.
///   - error: Not written: software keys are always extractable.
/// - Returns: The external representation.
public func SecKeyCopyExternalRepresentation(
    _ key: SecKey,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    NSData(data: key.externalRepresentation)
}

/// `SecKeyCreateWithData`: rebuilds a key from its external representation (mirrors Apple's function).
///
/// - Parameters:
///   - keyData: Bytes in the format `SecKeyCopyExternalRepresentation` gives.
///   - attributes: `kSecAttrKeyType`, `kSecAttrKeyClass` (public or private), optional `kSecAttrKeySizeInBits`
///     (checked against the data).
///   - error: Receives a `CFError` with `errSecParam` for malformed data or unsupported attributes.
/// - Returns: The key, or `nil` on failure.
public func SecKeyCreateWithData(
    _ keyData: CFData,
    _ attributes: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    guard let type = keyTypeNumber(attributes["type"]) else {
        SecKeyError(errSecParam, "kSecAttrKeyType is missing or not a key type.").report(to: error)
        return nil
    }
    guard let keyClass = integer(attributes["kcls"]), keyClass == 0 || keyClass == 1 else {
        SecKeyError(errSecParam, "kSecAttrKeyClass must be kSecAttrKeyClassPublic or kSecAttrKeyClassPrivate.")
            .report(to: error)
        return nil
    }
    do {
        return try SecKey.make(
            type: type,
            isPrivate: keyClass == 1,
            size: integer(attributes["bsiz"]),
            data: Data(referencing: keyData)
        )
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return nil
    } catch {
        return nil
    }
}

/// `SecKeyCopyAttributes`: the key's attribute dictionary with Apple's short keys (mirrors Apple's function).
///
/// `kcls` and `type` are Apple's string constants (`"0"`/`"1"`, `"42"`/`"73"`), `klbl` is the SHA-1 of the
/// public key bytes, `v_Data` the external representation, and the `kSecAttrCan*` flags follow
/// docs/apple-semantics.md §1.8.
///
/// - Parameter key: The key.
/// - Returns: The attributes.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    var attributes = key.attributeDictionary
    attributes["v_Data"] = key.externalRepresentation
    return attributes as NSDictionary
}

/// `SecKeyGetBlockSize`: the key's block size in bytes (mirrors Apple's function).
///
/// RSA: the modulus size; EC: the field size (32, 48, 66).
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
    key.blockSize
}

/// `SecKeyIsAlgorithmSupported`: whether `key` can run `algorithm` for `operation` (mirrors Apple's function).
///
/// Signing (private keys) and verification (public and private keys) with every `kSecKeyAlgorithm*Signature*`
/// constant defined here (ECDSA X9.62 and RFC 4754; RSA PKCS#1 v1.5, PSS and raw; SHA-1 to SHA-512, MD5
/// excluded), EC algorithms on EC keys and RSA algorithms on RSA keys; encryption (public and private keys) and
/// decryption (private keys) with the RSA and ECIES algorithms; key exchange (EC private keys) with the ECDH
/// algorithms.
public func SecKeyIsAlgorithmSupported(
    _ key: SecKey,
    _ operation: SecKeyOperationType,
    _ algorithm: SecKeyAlgorithm
) -> Bool {
    switch operation {
    case .sign, .verify:
        guard let parsed = SignatureAlgorithm(algorithm), parsed.fits(key) else { return false }
        return operation == .verify || key.isPrivate
    case .encrypt, .decrypt:
        guard let parsed = EncryptionAlgorithm(algorithm), parsed.fits(key) else { return false }
        return operation == .encrypt || key.isPrivate
    case .keyExchange:
        return KeyExchangeAlgorithm(algorithm) != nil && !key.isRSA && key.isPrivate
    }
}

/// `SecKeyCreateSignature`: signs `dataToSign` with a private key (mirrors Apple's function).
///
/// ECDSA signatures are DER (X9.62), or `r ‖ s` each padded to the key's block size for
/// `kSecKeyAlgorithmECDSASignatureRFC4754`; RSA signatures are one block of `SecKeyGetBlockSize(key)` bytes.
/// What `dataToSign` holds depends on the algorithm:
/// - `…Message…`: the message, hashed here (SHA-224 by this module's own implementation);
/// - `…Digest…SHA*`: the caller's digest, exactly as long as that hash's output;
/// - `kSecKeyAlgorithmECDSASignatureDigestX962` / `…RFC4754`: a digest of any length (X9.62 truncation);
/// - `kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw`: bytes padded as PKCS#1 v1.5 without a DigestInfo (at most
///   block size − 11);
/// - `kSecKeyAlgorithmRSASignatureRaw`: a big-endian number below the modulus, signed with no padding.
///
/// RSA PKCS#1 v1.5 and PSS over SHA-1/256/384/512 messages run in swift-crypto (BoringSSL); SHA-224, the
/// `Digest` variants and the raw algorithms use EMSA encodings implemented here over the raw RSA operation.
///
/// Known difference from Apple: `kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA*` checks the digest length
/// (Apple signs a DigestInfo around bytes of any length) (`SecKeySignatureAlgorithmTests`).
///
/// - Parameters:
///   - key: A private key.
///   - algorithm: One of the `kSecKeyAlgorithm*Signature*` constants defined here.
///   - dataToSign: The message, the digest or the raw input, as the algorithm says.
///   - error: Receives a `CFError` (`errSecParam`) for a public key, an algorithm the key cannot run, a wrong
///     digest length, input too long for the key, or raw input not below the modulus.
/// - Returns: The signature, or `nil` on failure.
public func SecKeyCreateSignature(
    _ key: SecKey,
    _ algorithm: SecKeyAlgorithm,
    _ dataToSign: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let parsed = SignatureAlgorithm(algorithm), parsed.fits(key) else {
        SecKeyError(errSecParam, "Algorithm \(algorithm) is not supported by this key.").report(to: error)
        return nil
    }
    do {
        return NSData(data: try key.sign(parsed, Data(referencing: dataToSign)))
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return nil
    } catch {
        return nil
    }
}

/// `SecKeyVerifySignature`: checks a signature with a public key (mirrors Apple's function).
///
/// A private key verifies with its public half. `signedData` is what `SecKeyCreateSignature` signed (message,
/// digest or raw input). A malformed signature (not DER, wrong length, not below the modulus) is reported as a
/// wrong signature. For `kSecKeyAlgorithmRSASignatureRaw` the signature is valid when `s^e mod n` equals
/// `signedData` read as a number.
///
/// Known difference from Apple: for `kSecKeyAlgorithmRSASignatureRaw`, leading zero bytes of `signedData` do
/// not count (Apple compares them as bytes) (`SecKeySignatureAlgorithmTests`).
///
/// - Parameters:
///   - key: The public key.
///   - algorithm: The algorithm the signature was made with.
///   - signedData: The message, the digest or the raw input, as the algorithm says.
///   - signature: The signature.
///   - error: Receives a `CFError`: `errSecVerifyFailed` for a wrong signature, `errSecParam` for an algorithm
///     the key cannot run or a digest of the wrong length.
/// - Returns: `true` when the signature is valid.
public func SecKeyVerifySignature(
    _ key: SecKey,
    _ algorithm: SecKeyAlgorithm,
    _ signedData: CFData,
    _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    guard let parsed = SignatureAlgorithm(algorithm), parsed.fits(key) else {
        SecKeyError(errSecParam, "Algorithm \(algorithm) is not supported by this key.").report(to: error)
        return false
    }
    do {
        if try key.verify(parsed, Data(referencing: signedData), Data(referencing: signature)) { return true }
        SecKeyError(errSecVerifyFailed, "The signature does not match.").report(to: error)
        return false
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return false
    } catch {
        return false
    }
}
#endif
