#if !canImport(Darwin)
import Crypto
import Foundation
import SwiftASN1
import _CryptoExtras

/// `SecKey`: an asymmetric key (mirrors Apple's `SecKeyRef`).
///
/// Wraps a swift-crypto P-256, P-384 or P-521 ECDSA key or an `_RSA.Signing` key, private or public.
/// Keys are values: two `SecKey`s are equal when their class and external representation are equal.
///
/// Encryption (`SecKeyCreateEncryptedData`: RSA PKCS#1, OAEP, OAEP-AES-GCM and raw; ECIES) and ECDH key
/// exchange (`SecKeyCopyKeyExchangeResult`) are supported alongside signing.
///
/// Known differences from Apple: only software keys exist (no Secure Enclave, no `kSecAttrTokenID`);
/// symmetric keys are not supported.
public final class SecKey: Hashable, Sendable, CustomStringConvertible {
    /// The key material.
    enum Material: Sendable {
        case p256Private(P256.Signing.PrivateKey)
        case p256Public(P256.Signing.PublicKey)
        case p384Private(P384.Signing.PrivateKey)
        case p384Public(P384.Signing.PublicKey)
        case p521Private(P521.Signing.PrivateKey)
        case p521Public(P521.Signing.PublicKey)
        case rsaPrivate(_RSA.Signing.PrivateKey)
        case rsaPublic(_RSA.Signing.PublicKey)
    }

    let material: Material

    init(_ material: Material) {
        self.material = material
    }

    /// Whether this is a private key.
    var isPrivate: Bool {
        switch material {
        case .p256Private, .p384Private, .p521Private, .rsaPrivate: true
        case .p256Public, .p384Public, .p521Public, .rsaPublic: false
        }
    }

    /// Whether this is an RSA key.
    var isRSA: Bool {
        switch material {
        case .rsaPrivate, .rsaPublic: true
        default: false
        }
    }

    /// The key size in bits (256, 384, 521 or the RSA modulus size).
    var sizeInBits: Int {
        switch material {
        case .p256Private, .p256Public: 256
        case .p384Private, .p384Public: 384
        case .p521Private, .p521Public: 521
        case .rsaPrivate(let key): key.keySizeInBits
        case .rsaPublic(let key): key.keySizeInBits
        }
    }

    /// `kSecAttrKeyType` as Apple's number: 42 RSA, 73 EC.
    var typeNumber: Int { isRSA ? 42 : 73 }

    /// The public key of this key (itself for a public key).
    var publicKey: SecKey {
        switch material {
        case .p256Private(let key): SecKey(.p256Public(key.publicKey))
        case .p384Private(let key): SecKey(.p384Public(key.publicKey))
        case .p521Private(let key): SecKey(.p521Public(key.publicKey))
        case .rsaPrivate(let key): SecKey(.rsaPublic(key.publicKey))
        case .p256Public, .p384Public, .p521Public, .rsaPublic: self
        }
    }

    /// Apple's external representation (docs/apple-semantics.md §1.9): EC public `04‖X‖Y`, EC private `04‖X‖Y‖K`,
    /// RSA PKCS#1 `RSAPublicKey` / `RSAPrivateKey` DER.
    var externalRepresentation: Data {
        switch material {
        case .p256Private(let key): key.x963Representation
        case .p256Public(let key): key.x963Representation
        case .p384Private(let key): key.x963Representation
        case .p384Public(let key): key.x963Representation
        case .p521Private(let key): key.x963Representation
        case .p521Public(let key): key.x963Representation
        case .rsaPrivate(let key): key.derRepresentation
        case .rsaPublic(let key): key.pkcs1DERRepresentation
        }
    }

    /// `kSecAttrApplicationLabel`: SHA-1 of the public key bytes (docs/apple-semantics.md §1.9).
    var applicationLabel: Data {
        Data(Insecure.SHA1.hash(data: publicKey.externalRepresentation))
    }

    /// The block size in bytes: the RSA modulus size or the EC field size.
    var blockSize: Int { (sizeInBits + 7) / 8 }

    /// Builds a key from Apple's external representation.
    ///
    /// - Throws: `SecKeyError` when the bytes do not form a key of this type, class and size.
    static func make(type: Int, isPrivate: Bool, size: Int?, data: Data) throws -> SecKey {
        do {
            switch (type, isPrivate) {
            case (73, _):
                let fieldBytes = isPrivate ? (data.count - 1) / 3 : (data.count - 1) / 2
                if let size, (size + 7) / 8 != fieldBytes {
                    throw SecKeyError(errSecParam, "The EC key data does not match kSecAttrKeySizeInBits \(size).")
                }
                switch (fieldBytes, isPrivate) {
                case (32, true): return SecKey(.p256Private(try .init(x963Representation: data)))
                case (32, false): return SecKey(.p256Public(try .init(x963Representation: data)))
                case (48, true): return SecKey(.p384Private(try .init(x963Representation: data)))
                case (48, false): return SecKey(.p384Public(try .init(x963Representation: data)))
                case (66, true): return SecKey(.p521Private(try .init(x963Representation: data)))
                case (66, false): return SecKey(.p521Public(try .init(x963Representation: data)))
                default:
                    throw SecKeyError(errSecParam, "The EC key data has an unsupported length (\(data.count) bytes).")
                }
            case (42, true):
                let key = SecKey(.rsaPrivate(try .init(derRepresentation: data)))
                // The backend's parser stops after the key's SEQUENCE and accepts some encodings it would never
                // write (found by fuzzing: 9 bytes after a private key loaded and were dropped). A key loads only
                // from the exact bytes it exports, so nothing the caller gave is silently ignored.
                guard key.externalRepresentation == data else {
                    throw SecKeyError(errSecParam, "The RSA key data is not one canonical PKCS#1 RSAPrivateKey.")
                }
                if let size, size != key.sizeInBits {
                    throw SecKeyError(errSecParam, "The RSA key data does not match kSecAttrKeySizeInBits \(size).")
                }
                return key
            case (42, false):
                // The backend's parser stops after the key's SEQUENCE; bytes after it are not a key (found by
                // fuzzing). swift-asn1's DER.parse takes exactly one element and refuses trailing bytes, and the
                // key must export the very bytes it was read from.
                guard (try? DER.parse([UInt8](data)))?.identifier == .sequence else {
                    throw SecKeyError(errSecParam, "The RSA key data is not a single DER SEQUENCE.")
                }
                let key = SecKey(.rsaPublic(try .init(derRepresentation: data)))
                guard key.externalRepresentation == data else {
                    throw SecKeyError(errSecParam, "The RSA key data is not one canonical PKCS#1 RSAPublicKey.")
                }
                if let size, size != key.sizeInBits {
                    throw SecKeyError(errSecParam, "The RSA key data does not match kSecAttrKeySizeInBits \(size).")
                }
                return key
            default:
                throw SecKeyError(
                    errSecParam,
                    "Unsupported key type \(type); use kSecAttrKeyTypeECSECPrimeRandom or RSA."
                )
            }
        } catch let error as SecKeyError {
            throw error
        } catch {
            throw SecKeyError(errSecParam, "The data is not a valid external representation of this key type.")
        }
    }

    /// Generates a private key.
    static func generate(type: Int, size: Int) throws -> SecKey {
        switch (type, size) {
        case (73, 256): return SecKey(.p256Private(P256.Signing.PrivateKey()))
        case (73, 384): return SecKey(.p384Private(P384.Signing.PrivateKey()))
        case (73, 521): return SecKey(.p521Private(P521.Signing.PrivateKey()))
        case (42, 2048), (42, 3072), (42, 4096):
            do {
                return SecKey(.rsaPrivate(try _RSA.Signing.PrivateKey(keySize: .init(bitCount: size))))
            } catch {
                throw SecKeyError(errSecInternal, "RSA key generation failed.")
            }
        case (73, _), (42, _):
            throw SecKeyError(errSecParam, "Unsupported key size \(size) for key type \(type).")
        default:
            throw SecKeyError(errSecParam, "Unsupported key type \(type); use kSecAttrKeyTypeECSECPrimeRandom or RSA.")
        }
    }

    /// The attributes Apple's `SecKeyCopyAttributes` gives (docs/apple-semantics.md §1.8), with short keys.
    var attributeDictionary: [String: Any] {
        let priv = isPrivate
        return [
            "kcls": priv ? "1" : "0",
            "type": String(typeNumber),
            "bsiz": sizeInBits,
            "esiz": sizeInBits,
            "klbl": applicationLabel,
            "perm": true,
            "priv": true,
            "modi": true,
            "sens": false,
            "asen": false,
            "extr": true,
            "next": false,
            "encr": !priv,
            "decr": priv || isRSA,
            "drve": !isRSA && priv,
            "sign": priv,
            "vrfy": !priv,
            "snrc": false,
            "vyrc": false,
            "wrap": !priv,
            "unwp": priv,
        ]
    }

    /// Equal when class, type and external representation are equal.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.isPrivate == rhs.isPrivate && lhs.externalRepresentation == rhs.externalRepresentation
    }

    /// Hashes the application label and class (never the private bytes themselves).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isPrivate)
        hasher.combine(applicationLabel)
    }

    /// A description without key material, e.g. `<SecKey EC private, 256 bits>`.
    public var description: String {
        "<SecKey \(isRSA ? "RSA" : "EC") \(isPrivate ? "private" : "public"), \(sizeInBits) bits>"
    }
}

/// An error of a `SecKey*` function, handed to callers as an `NSError` in `NSOSStatusErrorDomain`.
struct SecKeyError: Error {
    let status: OSStatus
    let message: String

    init(_ status: OSStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The `CFError` Apple's functions return.
    var cfError: CFError {
        NSError(
            domain: "NSOSStatusErrorDomain",
            code: Int(status),
            userInfo: [NSLocalizedDescriptionKey: message]
        )
    }

    /// Stores this error in an Apple-style out-parameter.
    func report(to error: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
        error?.pointee = Unmanaged.passRetained(cfError)
    }
}
#endif
