import Crypto
import Foundation

/// The password MACs of a PKCS#12 file's `MacData` (RFC 7292 §4): HMAC keyed by the PKCS#12 KDF (ID 3, the
/// classic scheme) or by PBKDF2 (PBMAC1, RFC 9579).
///
/// HMAC and PBKDF2 are swift-crypto's; verification compares in constant time.
package enum PKCS12MAC {
    /// The classic MAC: HMAC over `hash`, its key the `hLen` bytes of the PKCS#12 KDF (ID 3) of `password`.
    ///
    /// - Parameters:
    ///   - password: The password as `PKCS12KDF.bmpPassword` gives it (or empty for a NULL password).
    package static func authenticationCode(
        for data: [UInt8],
        hash: HashAlgorithm,
        password: [UInt8],
        salt: [UInt8],
        iterations: Int
    ) -> [UInt8] {
        var keyBytes = PKCS12KDF.derive(
            hash: hash,
            password: password,
            salt: salt,
            iterations: iterations,
            purpose: .macKey,
            count: hash.byteCount
        )
        defer { wipe(&keyBytes) }
        return hash.authenticationCode(for: data, using: SymmetricKey(data: keyBytes))
    }

    /// Whether `mac` is the classic MAC of `data` (constant-time comparison).
    package static func isValid(
        _ mac: [UInt8],
        for data: [UInt8],
        hash: HashAlgorithm,
        password: [UInt8],
        salt: [UInt8],
        iterations: Int
    ) -> Bool {
        guard mac.count == hash.byteCount else { return false }
        let expected = authenticationCode(for: data, hash: hash, password: password, salt: salt, iterations: iterations)
        return constantTimeEquals(expected, mac)
    }

    /// PBMAC1 (RFC 9579): HMAC over `macHash`, its key PBKDF2 of `password` (UTF-8 bytes) with the given
    /// parameters.
    ///
    /// - Throws: `CryptoError.invalidParameters` for PBKDF2 parameters out of range.
    package static func pbmac1AuthenticationCode(
        for data: [UInt8],
        password: [UInt8],
        salt: [UInt8],
        iterations: Int,
        kdfHash: HashAlgorithm,
        keyByteCount: Int,
        macHash: HashAlgorithm
    ) throws(CryptoError) -> [UInt8] {
        let key = try PBKDF2.deriveKey(
            from: password,
            salt: salt,
            hash: kdfHash,
            iterations: iterations,
            outputByteCount: keyByteCount
        )
        return macHash.authenticationCode(for: data, using: key)
    }

    /// Whether `mac` is the PBMAC1 MAC of `data` (constant-time comparison).
    ///
    /// - Throws: `CryptoError.invalidParameters` for PBKDF2 parameters out of range.
    package static func isValidPBMAC1(
        _ mac: [UInt8],
        for data: [UInt8],
        password: [UInt8],
        salt: [UInt8],
        iterations: Int,
        kdfHash: HashAlgorithm,
        keyByteCount: Int,
        macHash: HashAlgorithm
    ) throws(CryptoError) -> Bool {
        let expected = try pbmac1AuthenticationCode(
            for: data,
            password: password,
            salt: salt,
            iterations: iterations,
            kdfHash: kdfHash,
            keyByteCount: keyByteCount,
            macHash: macHash
        )
        return constantTimeEquals(expected, mac)
    }
}
