/// Why a cryptographic operation failed; mapped once to `KeychainError` at the `Latchkey` boundary.
package enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An authenticated ciphertext did not verify: wrong key, tampered bytes or a blob moved to another row.
    case authenticationFailure
    /// A ciphertext or wrapped key is shorter than its fixed overhead or otherwise malformed.
    case malformedCiphertext
    /// Key-derivation parameters are outside the accepted range (a damaged or hostile file).
    case invalidParameters(String)
    /// The system random generator or the crypto library failed.
    case backendFailure(String)

    package var description: String {
        switch self {
        case .authenticationFailure: "authentication of encrypted data failed"
        case .malformedCiphertext: "encrypted data is malformed"
        case .invalidParameters(let why): "invalid key-derivation parameters: \(why)"
        case .backendFailure(let why): "crypto backend failure: \(why)"
        }
    }
}
