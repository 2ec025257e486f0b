#if !canImport(Darwin)
import Crypto
import Foundation
import _CryptoExtras

/// PBES2 decryption (RFC 8018 §6.2): PBKDF2 with an HMAC-SHA PRF, then AES-CBC with PKCS#7 padding.
///
/// The passphrase enters PBKDF2 as its UTF-8 bytes, as OpenSSL 3 writes it. Legacy PKCS#12 PBE schemes
/// (`openssl pkcs12 -legacy`: RC2, 3DES, RC4) and other ciphers are rejected as unsupported.
enum PBES2 {
    /// The most PBKDF2 or PKCS#12 KDF rounds accepted, so that hostile input cannot stall the caller.
    static let maximumIterations = 10_000_000

    /// Decrypts `ciphertext` encrypted with the scheme `algorithm` under `passphrase`.
    ///
    /// - Throws: `PKCS12Error.unsupported` for schemes other than PBES2/PBKDF2/AES-CBC,
    ///   `PKCS12Error.malformed` for bad parameters, `PKCS12Error.decryptionFailed` for bad padding.
    static func decrypt(
        _ ciphertext: [UInt8],
        algorithm: AlgorithmIdentifier,
        passphrase: String,
        macVerified: Bool
    ) throws -> [UInt8] {
        if algorithm.oid.starts(with: PKCS12OID.pkcs12PBEPrefix) {
            throw PKCS12Error.unsupported("Legacy PKCS#12 PBE encryption (RC2/3DES/RC4) is not supported.")
        }
        guard algorithm.oid == PKCS12OID.pbes2, let parameters = algorithm.parameters else {
            throw PKCS12Error.unsupported("Only PBES2 encryption is supported.")
        }
        let parts = try parameters.sequence()
        guard parts.count == 2 else { throw PKCS12Error.malformed("Bad PBES2 parameters.") }
        let kdf = try AlgorithmIdentifier(parts[0])
        let scheme = try AlgorithmIdentifier(parts[1])
        let keySize: Int
        switch scheme.oid {
        case PKCS12OID.aes128CBC: keySize = 16
        case PKCS12OID.aes192CBC: keySize = 24
        case PKCS12OID.aes256CBC: keySize = 32
        default: throw PKCS12Error.unsupported("Only AES-CBC is supported as PBES2 encryption scheme.")
        }
        let ivBytes = try scheme.parameters?.octets() ?? []
        guard ivBytes.count == 16, let iv = try? AES._CBC.IV(ivBytes: ivBytes) else {
            throw PKCS12Error.malformed("Bad AES-CBC IV.")
        }
        var password = Array(passphrase.utf8)
        defer { wipe(&password) }
        let key = try PBKDF2Parameters(kdf).deriveKey(password: password, defaultKeySize: keySize)
        guard key.bitCount == keySize * 8 else { throw PKCS12Error.malformed("PBKDF2 key length mismatch.") }
        guard ciphertext.count % 16 == 0, !ciphertext.isEmpty else {
            throw PKCS12Error.malformed("AES-CBC ciphertext is not a whole number of blocks.")
        }
        var plaintext: Data
        do {
            plaintext = try AES._CBC.decrypt(ciphertext, using: key, iv: iv)
        } catch {
            throw PKCS12Error.decryptionFailed(macVerified: macVerified)
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        return Array(plaintext)
    }
}

/// PBKDF2 parameters (RFC 8018 §A.2): salt, iteration count, optional key length and PRF (HMAC-SHA-1 when
/// absent).
struct PBKDF2Parameters {
    let salt: [UInt8]
    let iterations: Int
    let keyLength: Int?
    let hash: KDF.Insecure.PBKDF2.HashFunction

    /// Reads the parameters of a PBKDF2 `AlgorithmIdentifier`.
    init(_ algorithm: AlgorithmIdentifier) throws {
        guard algorithm.oid == PKCS12OID.pbkdf2, let parameters = algorithm.parameters else {
            throw PKCS12Error.unsupported("Only PBKDF2 is supported as PBES2 key derivation function.")
        }
        var parts = try parameters.sequence()[...]
        guard let saltElement = parts.popFirst(), saltElement.tag == 0x04 || saltElement.tag == 0x24 else {
            throw PKCS12Error.unsupported("Only specified PBKDF2 salts are supported.")
        }
        salt = try saltElement.octets()
        guard let count = try parts.popFirst()?.smallInteger(), count >= 1 else {
            throw PKCS12Error.malformed("Bad PBKDF2 iteration count.")
        }
        guard count <= PBES2.maximumIterations else { throw PKCS12Error.unsupported("Too many PBKDF2 rounds.") }
        iterations = count
        if parts.first?.tag == 0x02 {
            keyLength = try parts.popFirst()?.smallInteger()
        } else {
            keyLength = nil
        }
        var prf = PKCS12OID.hmacWithSHA1
        if let element = parts.popFirst() { prf = try AlgorithmIdentifier(element).oid }
        guard parts.isEmpty else { throw PKCS12Error.malformed("Bad PBKDF2 parameters.") }
        switch prf {
        case PKCS12OID.hmacWithSHA1: hash = .insecureSHA1
        case PKCS12OID.hmacWithSHA224: hash = .insecureSHA224
        case PKCS12OID.hmacWithSHA256: hash = .sha256
        case PKCS12OID.hmacWithSHA384: hash = .sha384
        case PKCS12OID.hmacWithSHA512: hash = .sha512
        default: throw PKCS12Error.unsupported("Unsupported PBKDF2 PRF.")
        }
    }

    /// Derives the key from `password`; `defaultKeySize` applies when the parameters give no key length.
    func deriveKey(password: [UInt8], defaultKeySize: Int) throws -> SymmetricKey {
        let size = keyLength ?? defaultKeySize
        guard size > 0, size <= 64 else { throw PKCS12Error.malformed("Bad PBKDF2 key length.") }
        do {
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: password,
                salt: salt,
                using: hash,
                outputByteCount: size,
                unsafeUncheckedRounds: iterations
            )
        } catch {
            throw PKCS12Error.malformed("PBKDF2 failed.")
        }
    }
}
#endif
