import Crypto
import Foundation

/// AES-256-GCM with a random 96-bit nonce; the sealed form is `nonce ‖ ciphertext ‖ tag`.
package enum AEAD {
    /// Bytes a sealed box adds to its plaintext (12-byte nonce + 16-byte tag).
    package static let overhead = 28

    /// Encrypts and authenticates `plaintext`, binding it to `context` (additional authenticated data).
    ///
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    /// - Throws: `CryptoError.backendFailure` if the crypto library fails.
    package static func seal(
        _ plaintext: some DataProtocol,
        key: SymmetricKey,
        context: some DataProtocol
    ) throws(CryptoError) -> Data {
        do {
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: context)
            guard let combined = box.combined else { throw CryptoError.backendFailure("no combined form") }
            return combined
        } catch let error as CryptoError {
            throw error
        } catch {
            throw .backendFailure("AES-GCM seal")
        }
    }

    /// The same as `seal(_:key:context:)` for bytes in the caller's buffers (the item write path, which
    /// assembles plaintexts and contexts on the stack).
    ///
    /// - Returns: `nonce ‖ ciphertext ‖ tag`.
    /// - Throws: `CryptoError.backendFailure` if the crypto library fails.
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer,
        key: SymmetricKey,
        context: UnsafeRawBufferPointer
    ) throws(CryptoError) -> Data {
        do {
            let box = try AES.GCM.seal(plaintext, using: key, authenticating: context)
            guard let combined = box.combined else { throw CryptoError.backendFailure("no combined form") }
            return combined
        } catch let error as CryptoError {
            throw error
        } catch {
            throw .backendFailure("AES-GCM seal")
        }
    }

    /// Verifies and decrypts a box made by `seal` with the same key and context: the entry point of the
    /// read path, with concrete types so that swift-crypto's inlinable parts are specialised for `Data`.
    ///
    /// - Throws: `CryptoError.malformedCiphertext` when too short, `.authenticationFailure` when it does not verify.
    package static func open(_ sealed: Data, key: SymmetricKey, context: Data) throws(CryptoError) -> Data {
        try openBox(sealed, key: key, context: context)
    }

    /// The same as `open(_:key:context:)`, with the context in a caller's buffer (assembled on the stack
    /// by the read path instead of in a new `Data`).
    ///
    /// - Throws: `CryptoError.malformedCiphertext` when too short, `.authenticationFailure` when it does not verify.
    package static func open(
        _ sealed: Data,
        key: SymmetricKey,
        context: UnsafeRawBufferPointer
    ) throws(CryptoError) -> Data {
        try openBox(sealed, key: key, context: context)
    }

    /// Verifies and decrypts a box made by `seal` with the same key and context.
    ///
    /// - Throws: `CryptoError.malformedCiphertext` when too short, `.authenticationFailure` when it does not verify.
    package static func open(
        _ sealed: some DataProtocol,
        key: SymmetricKey,
        context: some DataProtocol
    ) throws(CryptoError) -> Data {
        try openBox(sealed, key: key, context: context)
    }

    /// The one body of the `open` overloads, inlined into each so that swift-crypto's generic code is
    /// specialised for the caller's concrete types.
    @inline(__always)
    private static func openBox(
        _ sealed: some DataProtocol,
        key: SymmetricKey,
        context: some DataProtocol
    ) throws(CryptoError) -> Data {
        guard sealed.count >= overhead else { throw .malformedCiphertext }
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(combined: sealed)
        } catch {
            throw .malformedCiphertext
        }
        do {
            return try AES.GCM.open(box, using: key, authenticating: context)
        } catch {
            throw .authenticationFailure
        }
    }
}
