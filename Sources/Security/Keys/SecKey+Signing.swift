#if !canImport(Darwin)
import Crypto
import Foundation
import _CryptoExtras

/// The length of a caller-supplied digest.
protocol DigestLength: Sendable {
    static var count: Int { get }
}

enum DigestLength32: DigestLength { static var count: Int { 32 } }
enum DigestLength48: DigestLength { static var count: Int { 48 } }
enum DigestLength64: DigestLength { static var count: Int { 64 } }

/// Digest bytes computed elsewhere (by the caller for the `Digest` algorithms), as a swift-crypto `Digest`.
struct RawDigest<Length: DigestLength>: Digest {
    let bytes: [UInt8]

    static var byteCount: Int { Length.count }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    var description: String { "RawDigest(\(bytes.count) bytes)" }
}

extension SignatureAlgorithm {
    var scheme: Scheme {
        switch self {
        case .algorithm(let scheme, _): scheme
        }
    }

    var hash: Hash {
        switch self {
        case .algorithm(_, let hash): hash
        }
    }

    var digestLength: Int {
        switch hash {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// Whether `key` can run this algorithm (EC schemes on EC keys, RSA schemes on RSA keys).
    func fits(_ key: SecKey) -> Bool {
        switch scheme {
        case .ecdsaMessage, .ecdsaDigest: !key.isRSA
        case .rsaPKCS1, .rsaPSS: key.isRSA
        }
    }

    /// The digest the signature covers: of the message, or the caller's digest (checked for length).
    func digest(of input: Data) throws -> [UInt8] {
        if scheme == .ecdsaDigest {
            guard input.count == digestLength else {
                throw SecKeyError(errSecParam, "The digest must be \(digestLength) bytes long, not \(input.count).")
            }
            return [UInt8](input)
        }
        switch hash {
        case .sha256: return Array(SHA256.hash(data: input))
        case .sha384: return Array(SHA384.hash(data: input))
        case .sha512: return Array(SHA512.hash(data: input))
        }
    }
}

extension SecKey {
    /// Signs with the private key.
    func sign(_ algorithm: SignatureAlgorithm, _ input: Data) throws -> Data {
        let digest = try algorithm.digest(of: input)
        do {
            switch material {
            case .p256Private(let key):
                return try Self.withDigest(digest) { try key.signature(for: $0).derRepresentation }
            case .p384Private(let key):
                return try Self.withDigest(digest) { try key.signature(for: $0).derRepresentation }
            case .p521Private(let key):
                return try Self.withDigest(digest) { try key.signature(for: $0).derRepresentation }
            case .rsaPrivate(let key):
                // RSA needs swift-crypto's own digest types: they name the hash in the PKCS#1 DigestInfo.
                let padding: _RSA.Signing.Padding = algorithm.scheme == .rsaPSS ? .PSS : .insecurePKCS1v1_5
                return switch algorithm.hash {
                case .sha256: try key.signature(for: SHA256.hash(data: input), padding: padding).rawRepresentation
                case .sha384: try key.signature(for: SHA384.hash(data: input), padding: padding).rawRepresentation
                case .sha512: try key.signature(for: SHA512.hash(data: input), padding: padding).rawRepresentation
                }
            case .p256Public, .p384Public, .p521Public, .rsaPublic:
                throw SecKeyError(errSecParam, "A public key cannot sign; use the private key.")
            }
        } catch let error as SecKeyError {
            throw error
        } catch {
            throw SecKeyError(errSecInternal, "Signing failed.")
        }
    }

    /// Verifies a signature with the public key (or the public half of a private key).
    func verify(_ algorithm: SignatureAlgorithm, _ input: Data, _ signature: Data) throws -> Bool {
        let digest = try algorithm.digest(of: input)
        switch publicKey.material {
        case .p256Public(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return Self.withDigest(digest) { key.isValidSignature(parsed, for: $0) }
        case .p384Public(let key):
            guard let parsed = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return Self.withDigest(digest) { key.isValidSignature(parsed, for: $0) }
        case .p521Public(let key):
            guard let parsed = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return Self.withDigest(digest) { key.isValidSignature(parsed, for: $0) }
        case .rsaPublic(let key):
            let padding: _RSA.Signing.Padding = algorithm.scheme == .rsaPSS ? .PSS : .insecurePKCS1v1_5
            let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return switch algorithm.hash {
            case .sha256: key.isValidSignature(parsed, for: SHA256.hash(data: input), padding: padding)
            case .sha384: key.isValidSignature(parsed, for: SHA384.hash(data: input), padding: padding)
            case .sha512: key.isValidSignature(parsed, for: SHA512.hash(data: input), padding: padding)
            }
        case .p256Private, .p384Private, .p521Private, .rsaPrivate:
            return false  // unreachable: publicKey is public
        }
    }

    /// Runs `body` with the digest bytes typed by their length.
    private static func withDigest<R>(_ bytes: [UInt8], _ body: (any Digest) throws -> R) rethrows -> R {
        switch bytes.count {
        case 32: try body(RawDigest<DigestLength32>(bytes: bytes))
        case 48: try body(RawDigest<DigestLength48>(bytes: bytes))
        default: try body(RawDigest<DigestLength64>(bytes: bytes))
        }
    }
}
#endif
