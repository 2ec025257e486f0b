import LatchkeyCrypto
import LatchkeyStorage

extension KeychainError {
    /// Maps a lower layer's error to a `KeychainError`, once, at the `Latchkey` boundary.
    static func from(_ error: any Error) -> KeychainError {
        switch error {
        case let error as KeychainError:
            return error
        case let error as StorageError:
            return from(storage: error)
        case let error as CryptoError:
            switch error {
            case .authenticationFailure, .malformedCiphertext:
                return KeychainError(
                    .decode,
                    "Stored data failed authentication (corrupt or tampered).",
                    underlying: error.description
                )
            case .invalidParameters:
                return KeychainError(
                    .decode,
                    "Key-derivation parameters in the keychain are damaged.",
                    underlying: error.description
                )
            case .backendFailure:
                return KeychainError(.internal, "The cryptographic backend failed.", underlying: error.description)
            }
        default:
            return KeychainError(
                .internal,
                "Unexpected internal error.",
                underlying: String(describing: type(of: error))
            )
        }
    }

    private static func from(storage error: StorageError) -> KeychainError {
        let cause = error.description
        switch error {
        case .notADatabase, .notAKeychain, .emptyFile:
            return KeychainError(.decode, cause, underlying: cause)
        case .unsupportedFormat:
            return KeychainError(.notAvailable, cause, underlying: cause)
        case .readOnly:
            return KeychainError(.readOnly, cause + "; nothing was written", underlying: cause)
        case .diskFull:
            return KeychainError(.io, "The disk is full; nothing was written.", underlying: cause)
        case .uniqueViolation:
            return KeychainError(
                .duplicateItem,
                "The specified item already exists in the keychain.",
                underlying: cause
            )
        case .corrupt:
            return KeychainError(.decode, "The keychain database is corrupt.", underlying: cause)
        case .busy:
            return KeychainError(
                .notAvailable,
                "The keychain stayed busy in another process past the timeout.",
                underlying: cause
            )
        case .io:
            return KeychainError(.io, cause, underlying: cause)
        case .sqlite:
            return KeychainError(.notAvailable, "The keychain database failed.", underlying: cause)
        }
    }
}

/// Runs `body` and maps anything it throws to `KeychainError`.
func mappingErrors<T>(_ body: () throws -> T) throws(KeychainError) -> T {
    do {
        return try body()
    } catch {
        throw KeychainError.from(error)
    }
}
