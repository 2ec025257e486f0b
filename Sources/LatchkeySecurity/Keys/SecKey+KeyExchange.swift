#if !canImport(Darwin)
import Crypto
import Foundation
import LatchkeyCrypto

/// `SecKeyCopyKeyExchangeResult`: Diffie-Hellman between a private and a public EC key (mirrors Apple's function).
///
/// `kSecKeyAlgorithmECDHKeyExchangeStandard` / `…Cofactor` give the raw shared secret, the x-coordinate of the
/// shared point (field size: 32, 48 or 66 bytes), as Apple and `openssl pkeyutl -derive` do. The `…X963SHA*`
/// algorithms feed it to the ANSI X9.63 KDF with `kSecKeyKeyExchangeParameterSharedInfo` (optional `CFData`)
/// and return `kSecKeyKeyExchangeParameterRequestedSize` bytes (required, a `CFNumber`). The Cofactor
/// variants equal the Standard ones: P-256, P-384 and P-521 have cofactor 1. ECDH and the KDF are
/// `LatchkeyCrypto.ECDHPrivateKey` and `LatchkeyCrypto.X963KDF` (swift-crypto).
///
/// Known differences from Apple: a private key passed as `publicKey` is used through its public half;
/// requested sizes above 16 MiB are rejected (pinned by `SecKeyKeyExchangeTests`).
///
/// - Parameters:
///   - privateKey: The EC private key.
///   - algorithm: A `kSecKeyAlgorithmECDHKeyExchange*` constant.
///   - publicKey: The peer's EC public key, on the same curve.
///   - parameters: `kSecKeyKeyExchangeParameterRequestedSize` and `kSecKeyKeyExchangeParameterSharedInfo`.
///   - error: Receives a `CFError` with `errSecParam` for an RSA or public `privateKey`, keys on different
///     curves, an unknown algorithm, or a missing or malformed parameter.
/// - Returns: The shared secret or derived key, or `nil` on failure.
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey,
    _ algorithm: SecKeyAlgorithm,
    _ publicKey: SecKey,
    _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let parsed = KeyExchangeAlgorithm(algorithm), !privateKey.isRSA, privateKey.isPrivate else {
        SecKeyError(errSecParam, "Algorithm \(algorithm) is not supported by this key for key exchange.")
            .report(to: error)
        return nil
    }
    do {
        guard !publicKey.isRSA, publicKey.sizeInBits == privateKey.sizeInBits else {
            throw SecKeyError(errSecParam, "The public key must be an EC key on the same curve as the private key.")
        }
        let secret = try privateKey.sharedSecret(with: publicKey.publicKey.externalRepresentation)
        guard let hash = parsed.kdf else { return NSData(data: secret.withUnsafeBytes { Data($0) }) }
        let requestedSize = parameters[kSecKeyKeyExchangeParameterRequestedSize as String]
            .flatMap(ValueBridge.unwrap)
            .flatMap { ValueBridge.boolean($0) == nil ? ValueBridge.number($0)?.numberValue : nil }
        guard let requestedSize else {
            throw SecKeyError(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is missing or not a number.")
        }
        var sharedInfo: [UInt8] = []
        if let value = parameters[kSecKeyKeyExchangeParameterSharedInfo as String].flatMap(ValueBridge.unwrap) {
            guard let data = ValueBridge.data(value) else {
                throw SecKeyError(errSecParam, "kSecKeyKeyExchangeParameterSharedInfo must be CFData.")
            }
            sharedInfo = [UInt8](data)
        }
        guard requestedSize > 0, requestedSize <= Int64(X963KDF.maximumOutputByteCount) else {
            throw SecKeyError(
                errSecParam,
                "kSecKeyKeyExchangeParameterRequestedSize must be between 1 and \(X963KDF.maximumOutputByteCount)."
            )
        }
        let derived: SymmetricKey
        do throws(LatchkeyCrypto.CryptoError) {
            derived = try X963KDF.deriveKey(
                hash: hash,
                secret: secret,
                sharedInfo: sharedInfo,
                outputByteCount: Int(requestedSize)
            )
        } catch {
            throw SecKeyError(error, failure: "Key derivation failed.")
        }
        return NSData(data: derived.withUnsafeBytes { Data($0) })
    } catch let failure as SecKeyError {
        failure.report(to: error)
        return nil
    } catch _ {
        SecKeyError(errSecInternal, "Key exchange failed.").report(to: error)
        return nil
    }
}

extension SecKey {
    /// The ECDH shared secret, the x-coordinate of `d·Q`, of this EC private key with the peer public key given
    /// as an X9.63 uncompressed point `04‖X‖Y`.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) for a public or RSA key, or a peer point that is malformed, on
    ///   another curve, or not on the curve.
    func sharedSecret(with peer: Data) throws -> SharedSecret {
        guard !isRSA, isPrivate else { throw SecKeyError(errSecParam, "Key exchange needs an EC private key.") }
        do throws(LatchkeyCrypto.CryptoError) {
            return try ECDHPrivateKey(x963Representation: externalRepresentation).sharedSecret(with: peer)
        } catch {
            throw SecKeyError(error, failure: "Key exchange failed.")
        }
    }
}
#endif
