import Crypto
import Foundation
import _CryptoExtras

/// The raw RSA private operation `c^d mod n` (RFC 8017 §5.1.2 RSADP, §5.2.1 RSASP1) on a block-sized input.
///
/// swift-crypto exposes it only as the blind-signing primitive: BoringSSL's `RSA_sign_raw` without padding,
/// which is blinded, uses the CRT and verifies its result. The encodings of `RSAOAEP`, `EMSAPSS` and
/// `EMSAPKCS1v15` run through it where swift-crypto's own padding modes do not cover an algorithm.
package struct RSARawPrivateOperation: Sendable {
    private let key: _RSA.BlindSigning.PrivateKey<SHA384>

    /// The modulus length in bytes (the RSA block size `k`).
    package let byteCount: Int

    /// Prepares the operation for a private key in PKCS#1 `RSAPrivateKey` or PKCS#8 DER.
    ///
    /// - Throws: `CryptoError.invalidParameters` when the bytes are not an RSA private key of at least 2048
    ///   bits.
    package init(derRepresentation: some DataProtocol) throws(CryptoError) {
        do {
            key = try _RSA.BlindSigning.PrivateKey<SHA384>(derRepresentation: derRepresentation)
        } catch {
            throw .invalidParameters("The data is not an RSA private key of at least 2048 bits.")
        }
        byteCount = (key.keySizeInBits + 7) / 8
    }

    /// `block^d mod n`, `block` a big-endian integer of exactly `byteCount` bytes.
    ///
    /// - Returns: The result, big-endian, exactly `byteCount` bytes.
    /// - Throws: `CryptoError.invalidParameters` when `block` is not `byteCount` bytes long or not below the
    ///   modulus.
    package func apply(_ block: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard block.count == byteCount else {
            throw .invalidParameters("The input must be \(byteCount) bytes long for this RSA key.")
        }
        do {
            return [UInt8](try key.blindSignature(for: block).rawRepresentation)
        } catch {
            throw .invalidParameters("The input is not smaller than the RSA modulus.")
        }
    }
}
