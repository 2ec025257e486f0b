import Crypto
import Foundation

/// A NIST P-256, P-384 or P-521 private key for Diffie-Hellman, read and written in Apple's X9.63 formats
/// (`04 ‖ X ‖ Y ‖ K` for the private key, `04 ‖ X ‖ Y` for a public key).
///
/// ECDH is swift-crypto's; this type chooses the curve from the key's length so that callers holding bytes
/// need not.
package struct ECDHPrivateKey: Sendable {
    /// A curve, by its field size.
    package enum Curve: Sendable, Equatable, CaseIterable {
        /// NIST P-256 (secp256r1).
        case p256
        /// NIST P-384 (secp384r1).
        case p384
        /// NIST P-521 (secp521r1).
        case p521

        /// The field element length in bytes: 32, 48 or 66.
        package var fieldByteCount: Int {
            switch self {
            case .p256: 32
            case .p384: 48
            case .p521: 66
            }
        }

        /// The length of an uncompressed X9.63 public key `04 ‖ X ‖ Y`.
        package var publicKeyByteCount: Int { 1 + 2 * fieldByteCount }

        /// The length of an X9.63 private key `04 ‖ X ‖ Y ‖ K`.
        package var privateKeyByteCount: Int { 1 + 3 * fieldByteCount }

        /// The curve whose uncompressed public keys are `count` bytes long, if any.
        package init?(publicKeyByteCount count: Int) {
            guard let curve = Self.allCases.first(where: { $0.publicKeyByteCount == count }) else { return nil }
            self = curve
        }
    }

    private enum Backing: Sendable {
        case p256(P256.KeyAgreement.PrivateKey)
        case p384(P384.KeyAgreement.PrivateKey)
        case p521(P521.KeyAgreement.PrivateKey)
    }

    private let backing: Backing

    /// A fresh random key on `curve`.
    package init(curve: Curve) {
        switch curve {
        case .p256: backing = .p256(P256.KeyAgreement.PrivateKey())
        case .p384: backing = .p384(P384.KeyAgreement.PrivateKey())
        case .p521: backing = .p521(P521.KeyAgreement.PrivateKey())
        }
    }

    /// Reads an X9.63 private key `04 ‖ X ‖ Y ‖ K`; the length selects the curve.
    ///
    /// - Throws: `CryptoError.invalidParameters` when the bytes are not a private key on a supported curve.
    package init(x963Representation bytes: some ContiguousBytes) throws(CryptoError) {
        let count = bytes.withUnsafeBytes { $0.count }
        do {
            switch count {
            case Curve.p256.privateKeyByteCount: backing = .p256(try .init(x963Representation: bytes))
            case Curve.p384.privateKeyByteCount: backing = .p384(try .init(x963Representation: bytes))
            case Curve.p521.privateKeyByteCount: backing = .p521(try .init(x963Representation: bytes))
            default: throw CryptoError.invalidParameters("unsupported EC private key length")
            }
        } catch {
            throw .invalidParameters("The data is not an X9.63 EC private key on P-256, P-384 or P-521.")
        }
    }

    /// The curve of this key.
    package var curve: Curve {
        switch backing {
        case .p256: .p256
        case .p384: .p384
        case .p521: .p521
        }
    }

    /// The public key, `04 ‖ X ‖ Y`.
    package var publicKeyX963Representation: Data {
        switch backing {
        case .p256(let key): key.publicKey.x963Representation
        case .p384(let key): key.publicKey.x963Representation
        case .p521(let key): key.publicKey.x963Representation
        }
    }

    /// The shared secret with the peer public key `04 ‖ X ‖ Y`: the x-coordinate of `d·Q`, as Apple and
    /// `openssl pkeyutl -derive` give it (32, 48 or 66 bytes).
    ///
    /// - Throws: `CryptoError.invalidParameters` when the peer key is malformed, on another curve, or not on the
    ///   curve.
    package func sharedSecret(with peer: some ContiguousBytes) throws(CryptoError) -> SharedSecret {
        let invalidPeer = CryptoError.invalidParameters("The peer public key is not a point on this key's curve.")
        guard peer.withUnsafeBytes({ $0.count }) == curve.publicKeyByteCount else { throw invalidPeer }
        do {
            switch backing {
            case .p256(let key): return try key.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
            case .p384(let key): return try key.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
            case .p521(let key): return try key.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
            }
        } catch {
            throw invalidPeer
        }
    }
}
