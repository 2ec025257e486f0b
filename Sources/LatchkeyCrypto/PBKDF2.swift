import Crypto
import Foundation
import _CryptoExtras

/// PBKDF2 (RFC 8018 §5.2) with an HMAC PRF: swift-crypto's `KDF.Insecure.PBKDF2` over a `HashAlgorithm`.
///
/// For reading files other programs wrote (PKCS#12's PBES2 and PBMAC1); Latchkey's own passphrase slots use
/// scrypt (`ScryptParameters`).
package enum PBKDF2 {
    /// The most rounds accepted, so that a hostile file cannot stall the caller (OpenSSL 3 writes 2048).
    package static let maximumIterations = 10_000_000

    /// The longest output accepted.
    package static let maximumOutputByteCount = 1024

    /// Derives `outputByteCount` bytes from `password` and `salt` with `iterations` rounds of HMAC over `hash`.
    ///
    /// - Throws: `CryptoError.invalidParameters` when `iterations` is not in `1...maximumIterations` or
    ///   `outputByteCount` not in `1...maximumOutputByteCount`; `.backendFailure` if the library fails.
    package static func deriveKey(
        from password: some DataProtocol,
        salt: some DataProtocol,
        hash: HashAlgorithm,
        iterations: Int,
        outputByteCount: Int
    ) throws(CryptoError) -> SymmetricKey {
        guard iterations >= 1, iterations <= maximumIterations else {
            throw .invalidParameters("PBKDF2 iteration count \(iterations) outside 1...\(maximumIterations)")
        }
        guard outputByteCount >= 1, outputByteCount <= maximumOutputByteCount else {
            throw .invalidParameters("PBKDF2 key length \(outputByteCount) outside 1...\(maximumOutputByteCount)")
        }
        let function: KDF.Insecure.PBKDF2.HashFunction =
            switch hash {
            case .sha1: .insecureSHA1
            case .sha224: .insecureSHA224
            case .sha256: .sha256
            case .sha384: .sha384
            case .sha512: .sha512
            }
        do {
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: password,
                salt: salt,
                using: function,
                outputByteCount: outputByteCount,
                unsafeUncheckedRounds: iterations
            )
        } catch {
            throw .backendFailure("PBKDF2")
        }
    }
}
