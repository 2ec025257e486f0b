#if !canImport(Darwin)
/// Why a PKCS#12 import failed: a kind, which gives the `OSStatus` `SecPKCS12Import` returns, and a fixed reason
/// for debugging.
///
/// Reasons name the structure or algorithm that failed, never passphrases, key bytes or attribute values.
struct PKCS12Error: Error, CustomStringConvertible {
    /// The kinds of failure.
    enum Kind {
        /// Malformed or truncated input.
        case malformed
        /// A well-formed file using an algorithm or structure this implementation does not support.
        case unsupported
        /// The passphrase is wrong.
        case authentication
    }

    /// The kind of failure.
    let kind: Kind
    /// A fixed description of the failure.
    let reason: String

    /// The status Apple's `SecPKCS12Import` returns for this kind: `errSecDecode` for malformed and unsupported
    /// input (Apple's `p12_decodeErr`, which also covers algorithms it cannot decrypt), `errSecAuthFailed`
    /// for a wrong passphrase (Apple's `p12_passwordErr`).
    var status: OSStatus {
        switch kind {
        case .malformed, .unsupported: errSecDecode
        case .authentication: errSecAuthFailed
        }
    }

    /// Malformed or truncated input.
    static func malformed(_ reason: String) -> PKCS12Error {
        PKCS12Error(kind: .malformed, reason: reason)
    }

    /// A well-formed file using an algorithm or structure this implementation does not support.
    static func unsupported(_ reason: String) -> PKCS12Error {
        PKCS12Error(kind: .unsupported, reason: reason)
    }

    /// The MAC does not verify with the passphrase.
    static let wrongPassphrase = PKCS12Error(kind: .authentication, reason: "The MAC does not verify.")

    /// Decryption produced invalid padding or an invalid structure. Without a verified MAC the likely cause
    /// is a wrong passphrase (`errSecAuthFailed`); after a verified MAC, corrupt content (`errSecDecode`).
    static func decryptionFailed(macVerified: Bool) -> PKCS12Error {
        macVerified
            ? .malformed("Decrypted content is not valid although the MAC verified.")
            : PKCS12Error(kind: .authentication, reason: "Decryption failed; the passphrase is probably wrong.")
    }

    /// The kind and reason.
    var description: String { "PKCS12Error(\(kind)): \(reason)" }
}
#endif
