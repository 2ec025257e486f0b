#if !canImport(Darwin)
import Crypto
import Foundation

/// `SecKeyCopyKeyExchangeResult`: Diffie-Hellman between a private and a public EC key (mirrors Apple's function).
///
/// `kSecKeyAlgorithmECDHKeyExchangeStandard` / `…Cofactor` give the raw shared secret, the x-coordinate of the
/// shared point (field size: 32, 48 or 66 bytes), as Apple and `openssl pkeyutl -derive` do. The `…X963SHA*`
/// algorithms feed it to the ANSI X9.63 KDF with `kSecKeyKeyExchangeParameterSharedInfo` (optional `CFData`)
/// and return `kSecKeyKeyExchangeParameterRequestedSize` bytes (required, a `CFNumber`). The Cofactor
/// variants equal the Standard ones: P-256, P-384 and P-521 have cofactor 1.
///
/// Known differences from Apple: SHA-224 KDF variants are not implemented; a private key passed as `publicKey`
/// is used through its public half; requested sizes above 16 MiB are rejected (pinned by
/// `SecKeyKeyExchangeTests`).
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
        guard let hash = parsed.kdf else { return NSData(data: Data(secret)) }
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
        let derived = try X963KDF.derive(
            hash: hash,
            secret: secret,
            sharedInfo: sharedInfo,
            byteCount: Int(requestedSize)
        )
        return NSData(data: Data(derived))
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
    func sharedSecret(with peer: Data) throws -> [UInt8] {
        let invalidPeer = SecKeyError(errSecParam, "The peer public key is not a point on this key's curve.")
        guard peer.count == 2 * blockSize + 1 else { throw invalidPeer }
        do {
            let secret: SharedSecret
            switch material {
            case .p256Private(let key):
                secret = try P256.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                    .sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
            case .p384Private(let key):
                secret = try P384.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                    .sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
            case .p521Private(let key):
                secret = try P521.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                    .sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
            case .p256Public, .p384Public, .p521Public, .rsaPrivate, .rsaPublic:
                throw SecKeyError(errSecParam, "Key exchange needs an EC private key.")
            }
            return secret.withUnsafeBytes { Array($0) }
        } catch let error as SecKeyError {
            throw error
        } catch {
            throw invalidPeer
        }
    }
}
#endif
