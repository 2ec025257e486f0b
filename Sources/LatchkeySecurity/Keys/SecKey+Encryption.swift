#if !canImport(Darwin)
import Crypto
import Foundation
import LatchkeyCrypto
import _CryptoExtras

/// `SecKeyCreateEncryptedData`: encrypts `plaintext` with a public key (mirrors Apple's function).
///
/// A private key encrypts with its public half, as on Apple platforms. Output formats:
/// - RSA `PKCS1` / `OAEP:*` / `raw`: one block of `SecKeyGetBlockSize(key)` bytes; the plaintext is at most
///   `k − 11` (PKCS#1), `k − 2·hLen − 2` (OAEP) or `k` bytes and below the modulus (raw);
/// - RSA `OAEP:*:AESGCM`: a random AES key (16 bytes, 32 for keys of 4096 bits or more) wrapped with OAEP,
///   then the AES-GCM ciphertext (16 zero-byte IV, the key's PKCS#1 public key as additional data), then the
///   16-byte tag, as Apple's `SecKeyRSAAESGCMCopyEncryptedData`;
/// - ECIES: see `LatchkeyCrypto.ECIES` (ephemeral point ‖ ciphertext ‖ tag).
///
/// Known differences from Apple: RSA OAEP with SHA-224/SHA-384/SHA-512 and the raw public operation are
/// `LatchkeyCrypto`'s own code over swift-crypto, not a vetted library (known-answer tests in
/// `LatchkeyCryptoTests`, pinned against `openssl` by `SecKeyEncryptionTests`).
///
/// - Parameters:
///   - key: A public key, or a private key (its public half encrypts).
///   - algorithm: A `kSecKeyAlgorithmRSAEncryption*` or `kSecKeyAlgorithmECIESEncryption*` constant.
///   - plaintext: The data to encrypt.
///   - error: Receives a `CFError` with `errSecParam` for an algorithm the key cannot run or a plaintext that
///     is too long.
/// - Returns: The ciphertext, or `nil` on failure.
public func SecKeyCreateEncryptedData(
    _ key: SecKey,
    _ algorithm: SecKeyAlgorithm,
    _ plaintext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let parsed = EncryptionAlgorithm(algorithm), parsed.fits(key) else {
        SecKeyError(errSecParam, "Algorithm \(algorithm) is not supported by this key for encryption.")
            .report(to: error)
        return nil
    }
    do {
        return NSData(data: try key.publicKey.encrypt(parsed, Data(referencing: plaintext)))
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return nil
    } catch _ {
        SecKeyError(errSecInternal, "Encryption failed.").report(to: error)
        return nil
    }
}

/// `SecKeyCreateDecryptedData`: decrypts `ciphertext` with a private key (mirrors Apple's function).
///
/// Every RSA padding failure reports the same `errSecParam` “RSA decryption failed.”, whichever check failed.
///
/// - Parameters:
///   - key: The private key.
///   - algorithm: The algorithm the data was encrypted with.
///   - ciphertext: The encrypted data.
///   - error: Receives a `CFError` with `errSecParam` for a public key, an algorithm the key cannot run, or
///     ciphertext that is malformed, tampered with or made for another key.
/// - Returns: The plaintext, or `nil` on failure.
public func SecKeyCreateDecryptedData(
    _ key: SecKey,
    _ algorithm: SecKeyAlgorithm,
    _ ciphertext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let parsed = EncryptionAlgorithm(algorithm), parsed.fits(key) else {
        SecKeyError(errSecParam, "Algorithm \(algorithm) is not supported by this key for decryption.")
            .report(to: error)
        return nil
    }
    guard key.isPrivate else {
        SecKeyError(errSecParam, "A public key cannot decrypt; use the private key.").report(to: error)
        return nil
    }
    do {
        return NSData(data: try key.decrypt(parsed, Data(referencing: ciphertext)))
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return nil
    } catch _ {
        SecKeyError(errSecInternal, "Decryption failed.").report(to: error)
        return nil
    }
}

extension SecKeyError {
    /// The error a `SecKey*` function reports for a `LatchkeyCrypto` failure: `errSecParam` with the reason
    /// for bad input, `errSecParam` with `failure` for a ciphertext that does not decrypt, `errSecInternal`
    /// when the library fails.
    init(_ error: LatchkeyCrypto.CryptoError, failure: String) {
        switch error {
        case .invalidParameters(let reason): self.init(errSecParam, reason)
        case .authenticationFailure, .malformedCiphertext: self.init(errSecParam, failure)
        case .backendFailure: self.init(errSecInternal, "The cryptographic library failed.")
        }
    }

    /// The one error every RSA decryption failure reports.
    static let rsaDecryptionFailed = SecKeyError(errSecParam, "RSA decryption failed.")
}

extension SecKey {
    /// Encrypts with this public key.
    func encrypt(_ algorithm: EncryptionAlgorithm, _ plaintext: Data) throws -> Data {
        switch algorithm {
        case .ecies(let scheme):
            guard !isRSA else { throw SecKeyError(errSecParam, "ECIES needs an EC key.") }
            do throws(LatchkeyCrypto.CryptoError) {
                return try scheme.encrypt(plaintext, to: publicKey.externalRepresentation)
            } catch {
                throw SecKeyError(error, failure: "ECIES encryption failed.")
            }
        case .rsaRaw:
            do throws(LatchkeyCrypto.CryptoError) {
                return Data(try rawPublicOperation().apply([UInt8](plaintext)))
            } catch {
                throw SecKeyError(error, failure: "RSA encryption failed.")
            }
        case .rsaPKCS1:
            return try rsaEncrypt(plaintext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5, maximum: blockSize - 11)
        case .rsaOAEP(let hash):
            return try rsaOAEPEncrypt(plaintext, hash: hash)
        case .rsaOAEPAESGCM(let hash):
            let sessionKey = SymmetricKey(size: sizeInBits >= 4096 ? .bits256 : .bits128)
            let wrapped = try sessionKey.withUnsafeBytes { try rsaOAEPEncrypt(Data($0), hash: hash) }
            do {
                let sealed = try AES.GCM.seal(
                    plaintext,
                    using: sessionKey,
                    nonce: try AES.GCM.Nonce(data: Self.rsaAESGCMNonce),
                    authenticating: externalRepresentation
                )
                return wrapped + sealed.ciphertext + sealed.tag
            } catch {
                throw SecKeyError(errSecParam, "RSA-OAEP-AES-GCM: AES-GCM encryption failed.")
            }
        }
    }

    /// Decrypts with this private key.
    func decrypt(_ algorithm: EncryptionAlgorithm, _ ciphertext: Data) throws -> Data {
        switch algorithm {
        case .ecies(let scheme):
            do throws(LatchkeyCrypto.CryptoError) {
                let recipient = try ECDHPrivateKey(x963Representation: externalRepresentation)
                return try scheme.decrypt(ciphertext, with: recipient)
            } catch {
                throw SecKeyError(error, failure: "ECIES decryption failed (wrong key, or data short or tampered).")
            }
        case .rsaRaw:
            guard ciphertext.count <= blockSize else { throw wrongCiphertextLength }
            let padded = [UInt8](repeating: 0, count: blockSize - ciphertext.count) + ciphertext
            do {
                return Data(try rawPrivateOperation().apply(padded))
            } catch {
                throw SecKeyError.rsaDecryptionFailed
            }
        case .rsaPKCS1:
            return try rsaDecrypt(ciphertext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        case .rsaOAEP(let hash):
            return try rsaOAEPDecrypt(ciphertext, hash: hash)
        case .rsaOAEPAESGCM(let hash):
            let tagByteCount = 16
            guard ciphertext.count >= blockSize + tagByteCount else {
                throw SecKeyError(errSecParam, "RSA-OAEP-AES-GCM: the input is too short.")
            }
            let bytes = [UInt8](ciphertext)
            let sessionKey = try rsaOAEPDecrypt(Data(bytes[..<blockSize]), hash: hash)
            guard sessionKey.count == (sizeInBits >= 4096 ? 32 : 16) else { throw SecKeyError.rsaDecryptionFailed }
            do {
                let box = try AES.GCM.SealedBox(
                    nonce: try AES.GCM.Nonce(data: Self.rsaAESGCMNonce),
                    ciphertext: bytes[blockSize..<(bytes.count - tagByteCount)],
                    tag: bytes[(bytes.count - tagByteCount)...]
                )
                return try AES.GCM.open(
                    box,
                    using: SymmetricKey(data: sessionKey),
                    authenticating: publicKey.externalRepresentation
                )
            } catch {
                throw SecKeyError(errSecParam, "RSA-OAEP-AES-GCM: AES-GCM decryption failed.")
            }
        }
    }

    /// The GCM nonce of Apple's RSA-OAEP-AES-GCM: 16 zero bytes (the session key is used once).
    private static let rsaAESGCMNonce = [UInt8](repeating: 0, count: 16)

    private var wrongCiphertextLength: SecKeyError {
        SecKeyError(errSecParam, "The ciphertext must be \(blockSize) bytes long for this RSA key.")
    }

    /// RSA-OAEP: swift-crypto (BoringSSL) for SHA-1 and SHA-256, `LatchkeyCrypto.RSAOAEP` over the raw
    /// operations for SHA-224, SHA-384 and SHA-512, which swift-crypto lacks.
    private func rsaOAEPEncrypt(_ plaintext: Data, hash: HashAlgorithm) throws -> Data {
        let maximum = RSAOAEP.maximumMessageLength(hash: hash, byteCount: blockSize)
        switch hash {
        case .sha1: return try rsaEncrypt(plaintext, padding: .PKCS1_OAEP, maximum: maximum)
        case .sha256: return try rsaEncrypt(plaintext, padding: .PKCS1_OAEP_SHA256, maximum: maximum)
        case .sha224, .sha384, .sha512:
            do throws(LatchkeyCrypto.CryptoError) {
                return Data(try RSAOAEP.encrypt([UInt8](plaintext), with: rawPublicOperation(), hash: hash))
            } catch {
                throw SecKeyError(error, failure: "RSA encryption failed.")
            }
        }
    }

    private func rsaOAEPDecrypt(_ ciphertext: Data, hash: HashAlgorithm) throws -> Data {
        switch hash {
        case .sha1: return try rsaDecrypt(ciphertext, padding: .PKCS1_OAEP)
        case .sha256: return try rsaDecrypt(ciphertext, padding: .PKCS1_OAEP_SHA256)
        case .sha224, .sha384, .sha512:
            guard ciphertext.count == blockSize else { throw wrongCiphertextLength }
            do {
                return Data(try RSAOAEP.decrypt([UInt8](ciphertext), with: rawPrivateOperation(), hash: hash))
            } catch {
                throw SecKeyError.rsaDecryptionFailed
            }
        }
    }

    /// Encrypts with swift-crypto's `_RSA.Encryption` after checking the length against `maximum`.
    private func rsaEncrypt(_ plaintext: Data, padding: _RSA.Encryption.Padding, maximum: Int) throws -> Data {
        guard plaintext.count <= maximum else {
            throw SecKeyError(
                errSecParam,
                "The plaintext is too long for this RSA key and padding: at most \(max(maximum, 0)) bytes, "
                    + "got \(plaintext.count)."
            )
        }
        guard case .rsaPublic(let key) = material else { throw SecKeyError(errSecParam, "Not an RSA public key.") }
        do {
            return try _RSA.Encryption.PublicKey(derRepresentation: key.pkcs1DERRepresentation)
                .encrypt(plaintext, padding: padding)
        } catch {
            throw SecKeyError(errSecParam, "RSA encryption failed.")
        }
    }

    /// Decrypts with swift-crypto's `_RSA.Encryption`; every failure is the one generic error.
    private func rsaDecrypt(_ ciphertext: Data, padding: _RSA.Encryption.Padding) throws -> Data {
        guard ciphertext.count == blockSize else { throw wrongCiphertextLength }
        guard case .rsaPrivate(let key) = material else { throw SecKeyError(errSecParam, "Not an RSA private key.") }
        do {
            return try _RSA.Encryption.PrivateKey(derRepresentation: key.derRepresentation)
                .decrypt(ciphertext, padding: padding)
        } catch {
            throw SecKeyError.rsaDecryptionFailed
        }
    }

    /// The raw public operation `m^e mod n` of this RSA key (or of its public half).
    func rawPublicOperation() throws(LatchkeyCrypto.CryptoError) -> RSARawPublicOperation {
        guard case .rsaPublic(let key) = publicKey.material, let primitives = try? key.getKeyPrimitives() else {
            throw .invalidParameters("Not a usable RSA key.")
        }
        return try RSARawPublicOperation(modulus: primitives.modulus, exponent: primitives.publicExponent)
    }

    /// The raw private operation `c^d mod n` of this RSA private key.
    func rawPrivateOperation() throws(LatchkeyCrypto.CryptoError) -> RSARawPrivateOperation {
        guard case .rsaPrivate(let key) = material else { throw .invalidParameters("Not an RSA private key.") }
        return try RSARawPrivateOperation(derRepresentation: key.derRepresentation)
    }
}
#endif
