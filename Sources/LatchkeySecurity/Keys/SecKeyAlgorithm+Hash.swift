#if !canImport(Darwin)
import LatchkeyCrypto

extension HashAlgorithm {
    /// The hash an Apple algorithm name spells `SHA1`, `SHA224`, `SHA256`, `SHA384` or `SHA512`.
    init?(appleName name: Substring) {
        switch name {
        case "SHA1": self = .sha1
        case "SHA224": self = .sha224
        case "SHA256": self = .sha256
        case "SHA384": self = .sha384
        case "SHA512": self = .sha512
        default: return nil
        }
    }

    /// The last field of Apple's PSS names: the salt length, except SHA-224's `24` (Apple's spelling; the
    /// salt is 28 bytes).
    var pssNameSuffix: Substring {
        switch self {
        case .sha224: "24"
        default: Substring(String(byteCount))
        }
    }
}
#endif
