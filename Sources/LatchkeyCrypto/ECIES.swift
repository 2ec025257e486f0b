import Crypto
import Foundation

/// Apple's ECIES (`kSecKeyAlgorithmECIESEncryption*X963SHA*AESGCM`), byte-compatible with
/// `SecKeyCreateEncryptedData` / `SecKeyCreateDecryptedData`.
///
/// Confirmed against Apple's `SecKeyAdaptors.m` (apple-oss-distributions/Security:
/// `SecKeyECIESCopyEncryptedData`, `SecKeyECIESKeyExchangeKDFX963CopyResult`, `SecKeyECIESEncryptAESGCMCopyResult`)
/// and the independent ports jedda/ECIES (Go) and O2-Czech-Republic/BC-ECIES-for-iOS (Java):
/// - a fresh ephemeral key on the recipient's curve; the output is its X9.63 point `04‖X‖Y`, then the
///   AES-GCM ciphertext, then the 16-byte tag;
/// - the shared secret is the ECDH x-coordinate (ephemeral private × recipient public);
/// - the key is the ANSI X9.63 KDF with the named hash and SharedInfo = the ephemeral public key bytes
///   (Apple appends `kSecKeyKeyExchangeParameterSharedInfo` when given, which only its private
///   `…WithParameters` API can pass);
/// - the AES key is 16 bytes when `(len(recipient point) − 1) / 2 · 8 ≤ 256` (P-256), else 32 (P-384, P-521);
/// - Standard (fixed-IV) variants: KDF output = key length, IV = 16 zero bytes; VariableIV variants: KDF
///   output = key length + 16, IV = its last 16 bytes;
/// - AES-GCM with that 16-byte IV, no additional data, 16-byte tag.
///
/// The Cofactor variants equal the Standard ones: P-256, P-384 and P-521 have cofactor 1. ECDH, the KDF and
/// AES-GCM are swift-crypto's; `ECIESTests` decrypts ciphertext made by an independent Python implementation.
package struct ECIES: Sendable, Equatable {
    /// The IV length Apple uses (the GCM nonce is 16 bytes, not the usual 12).
    package static let ivByteCount = 16
    /// The GCM tag length.
    package static let tagByteCount = 16

    /// The X9.63 KDF hash.
    package let hash: HashAlgorithm
    /// Whether the IV comes from the KDF (`AESGCM-KDFIV`) rather than being all zero.
    package let variableIV: Bool

    /// The scheme with KDF hash `hash`, fixed zero IV or KDF-derived IV.
    package init(hash: HashAlgorithm, variableIV: Bool) {
        self.hash = hash
        self.variableIV = variableIV
    }

    /// Encrypts `plaintext` to the recipient public key `04 ‖ X ‖ Y`.
    ///
    /// - Parameters:
    ///   - ephemeralKey: The ephemeral key; `nil` (the only choice outside tests) makes a fresh random one.
    /// - Returns: `ephemeral point ‖ ciphertext ‖ tag`.
    /// - Throws: `CryptoError.invalidParameters` for a recipient key that is not a point on P-256, P-384 or
    ///   P-521, or an ephemeral key on another curve; `.backendFailure` if AES-GCM fails.
    package func encrypt(
        _ plaintext: some DataProtocol,
        to recipientPublicKey: some DataProtocol,
        ephemeralKey: ECDHPrivateKey? = nil
    ) throws(CryptoError) -> Data {
        let recipientPoint = Data(recipientPublicKey)
        guard let curve = ECDHPrivateKey.Curve(publicKeyByteCount: recipientPoint.count) else {
            throw .invalidParameters("The recipient public key is not an X9.63 point on P-256, P-384 or P-521.")
        }
        let ephemeral = ephemeralKey ?? ECDHPrivateKey(curve: curve)
        guard ephemeral.curve == curve else {
            throw .invalidParameters("The ephemeral key is not on the recipient's curve.")
        }
        let ephemeralPoint = ephemeral.publicKeyX963Representation
        let secret = try ephemeral.sharedSecret(with: recipientPoint)
        let (key, nonce) = try keyAndNonce(secret: secret, ephemeralPoint: ephemeralPoint, curve: curve)
        do {
            let sealed = try AES.GCM.seal(plaintext, using: key, nonce: nonce)
            return ephemeralPoint + sealed.ciphertext + sealed.tag
        } catch {
            throw .backendFailure("ECIES: AES-GCM seal")
        }
    }

    /// Decrypts `ciphertext` (`ephemeral point ‖ ciphertext ‖ tag`) with the recipient's private key.
    ///
    /// - Throws: `CryptoError.malformedCiphertext` when the input is too short to hold the point and the tag;
    ///   `.invalidParameters` when the ephemeral point is not on the recipient's curve;
    ///   `.authenticationFailure` when AES-GCM authentication fails (wrong key or tampered data).
    package func decrypt(_ ciphertext: some DataProtocol, with recipient: ECDHPrivateKey) throws(CryptoError) -> Data {
        let bytes = [UInt8](ciphertext)
        let pointLength = recipient.curve.publicKeyByteCount
        guard bytes.count >= pointLength + Self.tagByteCount else { throw .malformedCiphertext }
        let ephemeralPoint = Data(bytes[..<pointLength])
        let secret = try recipient.sharedSecret(with: ephemeralPoint)
        let (key, nonce) = try keyAndNonce(secret: secret, ephemeralPoint: ephemeralPoint, curve: recipient.curve)
        do {
            let box = try AES.GCM.SealedBox(
                nonce: nonce,
                ciphertext: bytes[pointLength..<(bytes.count - Self.tagByteCount)],
                tag: bytes[(bytes.count - Self.tagByteCount)...]
            )
            return try AES.GCM.open(box, using: key)
        } catch {
            throw .authenticationFailure
        }
    }

    /// The AES key and GCM nonce from the shared secret, as Apple's `SecKeyECIESKeyExchangeKDFX963CopyResult`.
    private func keyAndNonce(
        secret: SharedSecret,
        ephemeralPoint: Data,
        curve: ECDHPrivateKey.Curve
    ) throws(CryptoError) -> (SymmetricKey, AES.GCM.Nonce) {
        let keyByteCount = curve.fieldByteCount * 8 > 256 ? 32 : 16
        let derived = try X963KDF.deriveKey(
            hash: hash,
            secret: secret,
            sharedInfo: ephemeralPoint,
            outputByteCount: keyByteCount + (variableIV ? Self.ivByteCount : 0)
        )
        let (key, iv) = derived.withUnsafeBytes { bytes in
            (
                SymmetricKey(data: UnsafeRawBufferPointer(rebasing: bytes[..<keyByteCount])),
                variableIV ? Array(bytes[keyByteCount...]) : [UInt8](repeating: 0, count: Self.ivByteCount)
            )
        }
        do {
            return (key, try AES.GCM.Nonce(data: iv))
        } catch {
            throw .backendFailure("ECIES: AES-GCM nonce")
        }
    }
}
