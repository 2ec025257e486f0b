#if !canImport(Darwin)
import Foundation

/// The ANSI X9.63 key derivation function (SEC 1 v2 §3.6.1, RFC 8418 §2.1), as Apple's `ccansikdf_x963`.
///
/// `K = Hash(Z ‖ 00000001 ‖ SharedInfo) ‖ Hash(Z ‖ 00000002 ‖ SharedInfo) ‖ …`, truncated to the requested
/// length; the counter is a 32-bit big-endian integer starting at 1. Checked against `openssl kdf … X963KDF`
/// by `SecKeyKeyExchangeTests`.
enum X963KDF {
    /// The largest output this implementation produces (16 MiB): far above any key size, and small enough
    /// that a mistaken `kSecKeyKeyExchangeParameterRequestedSize` cannot exhaust memory.
    static let maximumOutputByteCount = 1 << 24

    /// Derives `byteCount` bytes from the shared secret `secret`.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) when `byteCount` is not in `1...maximumOutputByteCount`.
    static func derive(
        hash: AlgorithmHash,
        secret: [UInt8],
        sharedInfo: [UInt8],
        byteCount: Int
    ) throws -> [UInt8] {
        guard byteCount > 0, byteCount <= maximumOutputByteCount else {
            throw SecKeyError(
                errSecParam,
                "The requested key size must be between 1 and \(maximumOutputByteCount) bytes, not \(byteCount)."
            )
        }
        var output: [UInt8] = []
        output.reserveCapacity(byteCount + hash.byteCount)
        var counter: UInt32 = 1
        while output.count < byteCount {
            let counterBytes: [UInt8] = [
                UInt8(truncatingIfNeeded: counter >> 24), UInt8(truncatingIfNeeded: counter >> 16),
                UInt8(truncatingIfNeeded: counter >> 8), UInt8(truncatingIfNeeded: counter),
            ]
            output += hash.digest(secret, counterBytes, sharedInfo)
            counter += 1
        }
        return Array(output.prefix(byteCount))
    }
}
#endif
