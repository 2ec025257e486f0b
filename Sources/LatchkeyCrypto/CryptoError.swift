/// Why a cryptographic operation failed; mapped once to `KeychainError` at the `Latchkey` boundary (and to an
/// `OSStatus` by `Security` for its key and PKCS#12 functions).
package enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An authenticated ciphertext did not verify: wrong key, tampered bytes or a blob moved to another row.
    case authenticationFailure
    /// A ciphertext or wrapped key is shorter than its fixed overhead or otherwise malformed.
    case malformedCiphertext
    /// Parameters or inputs outside the accepted range: key-derivation costs from a damaged or hostile file, a
    /// key that is not one, a message too long for a key. The reason is fixed text and never holds secrets.
    case invalidParameters(String)
    /// The system random generator or the crypto library failed.
    case backendFailure(String)

    package var description: String {
        switch self {
        case .authenticationFailure: "authentication of encrypted data failed"
        case .malformedCiphertext: "encrypted data is malformed"
        case .invalidParameters(let why): "invalid parameters: \(why)"
        case .backendFailure(let why): "crypto backend failure: \(why)"
        }
    }
}
