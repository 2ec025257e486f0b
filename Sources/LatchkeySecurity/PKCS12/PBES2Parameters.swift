#if !canImport(Darwin)
import Foundation
import LatchkeyCrypto
import SwiftASN1

/// The `AlgorithmIdentifier` of a PKCS#12 encryption (RFC 8018 §A.4 `PBES2-params`), read for
/// `LatchkeyCrypto.PBES2`, which decrypts: PBKDF2 with an HMAC-SHA PRF, then AES-CBC.
///
/// The passphrase enters PBKDF2 as its UTF-8 bytes, as OpenSSL 3 writes it. Legacy PKCS#12 PBE schemes
/// (`openssl pkcs12 -legacy`: RC2, 3DES, RC4) and other ciphers are rejected as unsupported.
struct PBES2Parameters {
    /// The PBKDF2 parameters.
    let kdf: PBKDF2Parameters
    /// The AES key length: 16, 24 or 32.
    let keyByteCount: Int
    /// The AES-CBC IV.
    let iv: [UInt8]

    /// Reads the parameters of an encryption `AlgorithmIdentifier`.
    ///
    /// - Throws: `PKCS12Error.unsupported` for schemes other than PBES2/PBKDF2/AES-CBC,
    ///   `PKCS12Error.malformed` for bad parameters.
    init(_ algorithm: AlgorithmIdentifier) throws {
        if algorithm.oid.oidComponents.starts(with: PKCS12OID.pkcs12PBEArc) {
            throw PKCS12Error.unsupported("Legacy PKCS#12 PBE encryption (RC2/3DES/RC4) is not supported.")
        }
        guard algorithm.oid == PKCS12OID.pbes2, let parameters = algorithm.parameters else {
            throw PKCS12Error.unsupported("Only PBES2 encryption is supported.")
        }
        let parts = try parameters.sequence()
        guard parts.count == 2 else { throw PKCS12Error.malformed("Bad PBES2 parameters.") }
        kdf = try PBKDF2Parameters(AlgorithmIdentifier(parts[0]))
        let scheme = try AlgorithmIdentifier(parts[1])
        switch scheme.oid {
        case PKCS12OID.aes128CBC: keyByteCount = 16
        case PKCS12OID.aes192CBC: keyByteCount = 24
        case PKCS12OID.aes256CBC: keyByteCount = 32
        default: throw PKCS12Error.unsupported("Only AES-CBC is supported as PBES2 encryption scheme.")
        }
        iv = try scheme.parameters?.octets() ?? []
        guard iv.count == PBES2.ivByteCount else { throw PKCS12Error.malformed("Bad AES-CBC IV.") }
        if let keyLength = kdf.keyLength, keyLength != keyByteCount {
            throw PKCS12Error.malformed("PBKDF2 key length mismatch.")
        }
    }

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
        let parameters = try PBES2Parameters(algorithm)
        var password = Array(passphrase.utf8)
        defer { wipe(&password) }
        do throws(LatchkeyCrypto.CryptoError) {
            return try PBES2.decrypt(
                ciphertext,
                password: password,
                salt: parameters.kdf.salt,
                iterations: parameters.kdf.iterations,
                prf: parameters.kdf.hash,
                keyByteCount: parameters.keyByteCount,
                iv: parameters.iv
            )
        } catch {
            switch error {
            case .authenticationFailure: throw PKCS12Error.decryptionFailed(macVerified: macVerified)
            case .malformedCiphertext:
                throw PKCS12Error.malformed("AES-CBC ciphertext is not a whole number of blocks.")
            case .invalidParameters, .backendFailure: throw PKCS12Error.malformed("Bad PBES2 parameters.")
            }
        }
    }
}
#endif
