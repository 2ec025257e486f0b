#if !canImport(Darwin)
import Crypto
import Foundation

/// A hash named in a signature, encryption or key-exchange algorithm (`SHA1` … `SHA512` in Apple's names).
enum AlgorithmHash: Sendable, Equatable {
    case sha1, sha224, sha256, sha384, sha512

    init?(_ name: Substring) {
        switch name {
        case "SHA1": self = .sha1
        case "SHA224": self = .sha224
        case "SHA256": self = .sha256
        case "SHA384": self = .sha384
        case "SHA512": self = .sha512
        default: return nil
        }
    }

    /// The digest length in bytes.
    var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
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

    /// The digest of the concatenation of `parts`.
    func digest(_ parts: [UInt8]...) -> [UInt8] {
        switch self {
        case .sha1: Self.run(Insecure.SHA1(), parts)
        case .sha224: SHA224.hash(parts.flatMap { $0 })
        case .sha256: Self.run(SHA256(), parts)
        case .sha384: Self.run(SHA384(), parts)
        case .sha512: Self.run(SHA512(), parts)
        }
    }

    private static func run<H: HashFunction>(_ hasher: H, _ parts: [[UInt8]]) -> [UInt8] {
        var hasher = hasher
        for part in parts { hasher.update(data: part) }
        return Array(hasher.finalize())
    }
}
#endif
