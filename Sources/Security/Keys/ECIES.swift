#if !canImport(Darwin)
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
/// - AES-GCM with that 16-byte IV, no additional data, 16-byte tag;
/// - decryption fails with `errSecParam` when the input is shorter than the point, when less than a tag
///   remains, and when GCM authentication fails.
///
/// The Cofactor variants equal the Standard ones: P-256, P-384 and P-521 have cofactor 1. The Python
/// `cryptography` cross-check in `SecKeyEncryptionTests` decrypts this output independently.
struct ECIES: Sendable {
    /// The IV length Apple uses (the GCM nonce is 16 bytes, not the usual 12).
    static let ivByteCount = 16
    /// The GCM tag length.
    static let tagByteCount = 16

    /// The X9.63 KDF hash.
    let hash: AlgorithmHash
    /// Whether the IV comes from the KDF (`AESGCM-KDFIV`) rather than being all zero.
    let variableIV: Bool

    /// Encrypts `plaintext` to the EC public key `recipient`.
    ///
    /// - Throws: `SecKeyError` for an RSA key.
    func encrypt(_ plaintext: Data, to recipient: SecKey) throws -> Data {
        guard !recipient.isRSA else { throw SecKeyError(errSecParam, "ECIES needs an EC key.") }
        let recipientPoint = recipient.publicKey.externalRepresentation
        let ephemeral = try SecKey.generate(type: 73, size: recipient.sizeInBits)
        let ephemeralPoint = ephemeral.publicKey.externalRepresentation
        let secret = try ephemeral.sharedSecret(with: recipientPoint)
        let (key, iv) = try keyAndIV(secret: secret, ephemeralPoint: ephemeralPoint, recipientPoint: recipientPoint)
        do {
            let sealed = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: iv))
            return ephemeralPoint + sealed.ciphertext + sealed.tag
        } catch {
            throw SecKeyError(errSecParam, "ECIES: AES-GCM encryption failed.")
        }
    }

    /// Decrypts `ciphertext` with the EC private key `recipient`.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) for a short packet, an invalid ephemeral point, or a failed
    ///   authentication; the message says which, none of them depends on secret data.
    func decrypt(_ ciphertext: Data, with recipient: SecKey) throws -> Data {
        guard !recipient.isRSA, recipient.isPrivate else {
            throw SecKeyError(errSecParam, "ECIES decryption needs an EC private key.")
        }
        let bytes = [UInt8](ciphertext)
        let pointLength = 2 * recipient.blockSize + 1
        guard bytes.count >= pointLength else {
            throw SecKeyError(errSecParam, "ECIES: the input is too short to hold the ephemeral public key.")
        }
        guard bytes.count - pointLength >= Self.tagByteCount else {
            throw SecKeyError(errSecParam, "ECIES: the input is too short to hold the authentication tag.")
        }
        let ephemeralPoint = Data(bytes[..<pointLength])
        let secret = try recipient.sharedSecret(with: ephemeralPoint)
        let (key, iv) = try keyAndIV(
            secret: secret,
            ephemeralPoint: ephemeralPoint,
            recipientPoint: recipient.publicKey.externalRepresentation
        )
        do {
            let box = try AES.GCM.SealedBox(
                nonce: try AES.GCM.Nonce(data: iv),
                ciphertext: bytes[pointLength..<(bytes.count - Self.tagByteCount)],
                tag: bytes[(bytes.count - Self.tagByteCount)...]
            )
            return try AES.GCM.open(box, using: key)
        } catch {
            throw SecKeyError(errSecParam, "ECIES: AES-GCM decryption failed (wrong key or tampered data).")
        }
    }

    /// The AES key and IV from the shared secret, as Apple's `SecKeyECIESKeyExchangeKDFX963CopyResult`.
    private func keyAndIV(
        secret: [UInt8],
        ephemeralPoint: Data,
        recipientPoint: Data
    ) throws -> (SymmetricKey, [UInt8]) {
        let keyBits = ((recipientPoint.count - 1) / 2) * 8
        let keyByteCount = keyBits > 256 ? 32 : 16
        let derived = try X963KDF.derive(
            hash: hash,
            secret: secret,
            sharedInfo: [UInt8](ephemeralPoint),
            byteCount: keyByteCount + (variableIV ? Self.ivByteCount : 0)
        )
        let iv = variableIV ? Array(derived[keyByteCount...]) : [UInt8](repeating: 0, count: Self.ivByteCount)
        return (SymmetricKey(data: derived[..<keyByteCount]), iv)
    }
}
#endif
