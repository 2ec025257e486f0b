import Crypto
import Foundation

/// Wrapping one 256-bit key under another with AES-256-GCM, bound to a context string.
package enum KeyWrap {
    /// The length of a wrapped 256-bit key.
    package static let wrappedLength = 32 + AEAD.overhead

    /// A fresh random 256-bit key.
    package static func randomKey() -> SymmetricKey {
        SymmetricKey(size: .bits256)
    }

    /// Encrypts `key` under `wrappingKey`, authenticated with `context`.
    package static func wrap(
        _ key: SymmetricKey,
        with wrappingKey: SymmetricKey,
        context: some DataProtocol
    ) throws(CryptoError) -> Data {
        let raw = key.withUnsafeBytes { Data($0) }
        return try AEAD.seal(raw, key: wrappingKey, context: context)
    }

    /// Decrypts a key made by `wrap`.
    ///
    /// - Throws: `CryptoError.authenticationFailure` for a wrong wrapping key or tampered bytes.
    package static func unwrap(
        _ wrapped: some DataProtocol,
        with wrappingKey: SymmetricKey,
        context: some DataProtocol
    ) throws(CryptoError) -> SymmetricKey {
        guard wrapped.count == wrappedLength else { throw .malformedCiphertext }
        let raw = try AEAD.open(wrapped, key: wrappingKey, context: context)
        return SymmetricKey(data: raw)
    }

    /// Derives a purpose-bound subkey with HKDF-SHA256.
    ///
    /// - Parameters:
    ///   - inputKey: Key material (a master key, or a master key mixed with a device secret).
    ///   - salt: Per-file salt, so the same material yields different keys in different files.
    ///   - label: The purpose, e.g. `"class-key ak"`.
    package static func derive(from inputKey: SymmetricKey, salt: some DataProtocol, label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: inputKey,
            salt: salt,
            info: Data(label.utf8),
            outputByteCount: 32
        )
    }

    /// Concatenates two keys' bytes into new input key material (for keys bound to two secrets).
    package static func combine(_ first: SymmetricKey, _ second: SymmetricKey) -> SymmetricKey {
        var material = first.withUnsafeBytes { Data($0) }
        second.withUnsafeBytes { material.append(contentsOf: $0) }
        return SymmetricKey(data: material)
    }
}
