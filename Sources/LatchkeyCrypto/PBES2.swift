import Crypto
import Foundation
import _CryptoExtras

/// PBES2 decryption (RFC 8018 §6.2.2) with AES-CBC: PBKDF2 derives the AES key from the password, then
/// AES-CBC with PKCS#7 padding decrypts. Both are swift-crypto's (`KDF.Insecure.PBKDF2`, `AES._CBC`).
///
/// The algorithm identifiers are read by the caller (PKCS#12 in `Security`); this type takes their values.
package enum PBES2 {
    /// The AES-CBC IV length.
    package static let ivByteCount = 16

    /// Decrypts `ciphertext` under `password`.
    ///
    /// - Parameters:
    ///   - password: The password bytes as the writer fed them to PBKDF2 (UTF-8 for OpenSSL 3).
    ///   - salt: The PBKDF2 salt.
    ///   - iterations: The PBKDF2 iteration count.
    ///   - prf: The hash of PBKDF2's HMAC PRF.
    ///   - keyByteCount: The AES key length: 16, 24 or 32.
    ///   - iv: The 16-byte CBC IV.
    /// - Returns: The plaintext without padding.
    /// - Throws: `CryptoError.invalidParameters` for a bad key length, IV or PBKDF2 parameters;
    ///   `.malformedCiphertext` when the ciphertext is not a non-empty whole number of blocks;
    ///   `.authenticationFailure` when the padding is invalid (most often a wrong password).
    package static func decrypt(
        _ ciphertext: [UInt8],
        password: [UInt8],
        salt: [UInt8],
        iterations: Int,
        prf: HashAlgorithm,
        keyByteCount: Int,
        iv: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard [16, 24, 32].contains(keyByteCount) else {
            throw .invalidParameters("AES key length \(keyByteCount) is not 16, 24 or 32")
        }
        guard iv.count == ivByteCount, let cbcIV = try? AES._CBC.IV(ivBytes: iv) else {
            throw .invalidParameters("The AES-CBC IV is not 16 bytes long.")
        }
        guard !ciphertext.isEmpty, ciphertext.count.isMultiple(of: 16) else { throw .malformedCiphertext }
        let key = try PBKDF2.deriveKey(
            from: password,
            salt: salt,
            hash: prf,
            iterations: iterations,
            outputByteCount: keyByteCount
        )
        var plaintext: Data
        do {
            plaintext = try AES._CBC.decrypt(ciphertext, using: key, iv: cbcIV)
        } catch {
            throw .authenticationFailure
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }
        return Array(plaintext)
    }
}
