import Crypto
import Foundation

/// A hash function chosen at run time: SHA-1 (for interoperability with legacy formats only) or SHA-2.
///
/// swift-crypto computes SHA-1, SHA-256, SHA-384 and SHA-512 and HMAC over each; SHA-224, which swift-crypto
/// lacks, is `SHA224`, a `HashFunction` of this module, so HMAC and the X9.63 KDF run over it unchanged.
package enum HashAlgorithm: Sendable, Hashable, CaseIterable {
    /// SHA-1 (FIPS 180-4); collision-broken, kept for formats that name it.
    case sha1
    /// SHA-224 (FIPS 180-4), computed by `SHA224`.
    case sha224
    /// SHA-256 (FIPS 180-4).
    case sha256
    /// SHA-384 (FIPS 180-4).
    case sha384
    /// SHA-512 (FIPS 180-4).
    case sha512

    /// The digest length in bytes.
    package var byteCount: Int {
        switch self {
        case .sha1: Insecure.SHA1.Digest.byteCount
        case .sha224: SHA224.Digest.byteCount
        case .sha256: SHA256.Digest.byteCount
        case .sha384: SHA384.Digest.byteCount
        case .sha512: SHA512.Digest.byteCount
        }
    }

    /// The digest of the concatenation of `parts`.
    package func digest(_ parts: [UInt8]...) -> [UInt8] {
        digest(of: parts)
    }

    /// The digest of the concatenation of `parts`.
    package func digest(of parts: [[UInt8]]) -> [UInt8] {
        switch self {
        case .sha1: Self.digest(Insecure.SHA1.self, parts)
        case .sha224: Self.digest(SHA224.self, parts)
        case .sha256: Self.digest(SHA256.self, parts)
        case .sha384: Self.digest(SHA384.self, parts)
        case .sha512: Self.digest(SHA512.self, parts)
        }
    }

    /// HMAC (RFC 2104) of `data` under `key`.
    package func authenticationCode(for data: some DataProtocol, using key: SymmetricKey) -> [UInt8] {
        switch self {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: key))
        case .sha224: Array(HMAC<SHA224>.authenticationCode(for: data, using: key))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: data, using: key))
        case .sha384: Array(HMAC<SHA384>.authenticationCode(for: data, using: key))
        case .sha512: Array(HMAC<SHA512>.authenticationCode(for: data, using: key))
        }
    }

    private static func digest<H: HashFunction>(_ function: H.Type, _ parts: [[UInt8]]) -> [UInt8] {
        var hasher = H()
        for part in parts { hasher.update(data: part) }
        return Array(hasher.finalize())
    }
}
