#if !canImport(Darwin)
import Crypto
import Foundation
import SwiftASN1
import _CryptoExtras

/// Private keys from PKCS#8 `PrivateKeyInfo` (RFC 5208): EC P-256, P-384, P-521 and RSA (2048 bits or more,
/// as `SecKey` elsewhere).
enum PKCS8 {
    /// The key `der` encodes.
    ///
    /// - Throws: `PKCS12Error.unsupported` for other key types (Ed25519, DSA, X25519, other curves) or RSA
    ///   keys under 2048 bits, `PKCS12Error.malformed` for encodings that do not parse.
    static func privateKey(_ der: [UInt8]) throws -> SecKey {
        let parts = try PKCS12ASN1.parse(der).sequence()
        guard parts.count >= 3 else { throw PKCS12Error.malformed("Bad PrivateKeyInfo.") }
        let version = try parts[0].smallInteger()
        guard version == 0 || version == 1 else { throw PKCS12Error.malformed("Bad PrivateKeyInfo version.") }
        let algorithm = try AlgorithmIdentifier(parts[1])
        do {
            switch algorithm.oid {
            case PKCS12OID.rsaEncryption:
                let key = try _RSA.Signing.PrivateKey(derRepresentation: der)
                return SecKey(.rsaPrivate(key))
            case PKCS12OID.ecPublicKey:
                guard let curve = try? algorithm.parameters?.objectIdentifier() else {
                    throw PKCS12Error.unsupported("EC keys need a named curve.")
                }
                switch curve {
                case PKCS12OID.prime256v1: return SecKey(.p256Private(try .init(derRepresentation: der)))
                case PKCS12OID.secp384r1: return SecKey(.p384Private(try .init(derRepresentation: der)))
                case PKCS12OID.secp521r1: return SecKey(.p521Private(try .init(derRepresentation: der)))
                default: throw PKCS12Error.unsupported("Only the P-256, P-384 and P-521 curves are supported.")
                }
            default:
                throw PKCS12Error.unsupported("Only EC and RSA private keys are supported.")
            }
        } catch let error as PKCS12Error {
            throw error
        } catch {
            throw PKCS12Error.unsupported("The private key does not parse (or is an RSA key under 2048 bits).")
        }
    }
}
#endif
