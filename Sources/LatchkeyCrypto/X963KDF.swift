import Crypto
import Foundation

/// The ANSI X9.63 key derivation function (SEC 1 v2 §3.6.1, RFC 8418 §2.1) over an ECDH shared secret, as
/// Apple's `ccansikdf_x963`: swift-crypto's `SharedSecret.x963DerivedSymmetricKey` with the hash chosen at run
/// time (SHA-224 through `SHA224`).
///
/// `K = Hash(Z ‖ 00000001 ‖ SharedInfo) ‖ Hash(Z ‖ 00000002 ‖ SharedInfo) ‖ …`, truncated to the requested
/// length; the counter is a 32-bit big-endian integer starting at 1. swift-crypto derives only from a
/// `SharedSecret` (its byte-level `ANSIKDFx963` is SPI), which is every use here: ECDH key exchange and ECIES.
package enum X963KDF {
    /// The largest output accepted (16 MiB): far above any key size, and small enough that a mistaken request
    /// cannot exhaust memory.
    package static let maximumOutputByteCount = 1 << 24

    /// Derives `outputByteCount` bytes from the shared secret `secret` (`Z`) and `sharedInfo`.
    ///
    /// - Throws: `CryptoError.invalidParameters` when `outputByteCount` is not in
    ///   `1...maximumOutputByteCount`.
    package static func deriveKey(
        hash: HashAlgorithm,
        secret: SharedSecret,
        sharedInfo: some DataProtocol,
        outputByteCount: Int
    ) throws(CryptoError) -> SymmetricKey {
        guard outputByteCount > 0, outputByteCount <= maximumOutputByteCount else {
            throw .invalidParameters(
                "The requested key size must be between 1 and \(maximumOutputByteCount) bytes, not \(outputByteCount)."
            )
        }
        return switch hash {
        case .sha1:
            secret.x963DerivedSymmetricKey(
                using: Insecure.SHA1.self,
                sharedInfo: sharedInfo,
                outputByteCount: outputByteCount
            )
        case .sha224:
            secret.x963DerivedSymmetricKey(using: SHA224.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        case .sha256:
            secret.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        case .sha384:
            secret.x963DerivedSymmetricKey(using: SHA384.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        case .sha512:
            secret.x963DerivedSymmetricKey(using: SHA512.self, sharedInfo: sharedInfo, outputByteCount: outputByteCount)
        }
    }
}
