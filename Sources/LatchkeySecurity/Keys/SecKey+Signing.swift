#if !canImport(Darwin)
import Crypto
import Foundation
import LatchkeyCrypto
import _CryptoExtras

/// The length of a digest handed to swift-crypto's ECDSA.
protocol DigestLength: Sendable {
    static var count: Int { get }
}

enum DigestLength32: DigestLength { static var count: Int { 32 } }
enum DigestLength48: DigestLength { static var count: Int { 48 } }
enum DigestLength65: DigestLength { static var count: Int { 65 } }
enum DigestLength66: DigestLength { static var count: Int { 66 } }

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
    /// Whether `key` can run this algorithm (EC schemes on EC keys, RSA schemes on RSA keys).
    func fits(_ key: SecKey) -> Bool {
        switch scheme {
        case .ecdsaX962, .ecdsaRFC4754: !key.isRSA
        case .rsaPKCS1v15, .rsaPSS, .rsaRaw: key.isRSA
        }
    }

    /// The bytes the scheme signs: the message's digest, the caller's digest (checked for length), or the
    /// caller's bytes as they are.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) for a digest of the wrong length.
    func signedBytes(_ input: Data) throws -> [UInt8] {
        switch self.input {
        case .message(let hash):
            return hash.digest([UInt8](input))
        case .digest(let hash):
            guard input.count == hash.byteCount else {
                throw SecKeyError(
                    errSecParam,
                    "The digest for this algorithm must be \(hash.byteCount) bytes long, not \(input.count)."
                )
            }
            return [UInt8](input)
        case .raw:
            return [UInt8](input)
        }
    }
}

extension SecKey {
    /// Signs with the private key.
    ///
    /// - Throws: `SecKeyError`: `errSecParam` for a public key, a wrong digest length or input the key cannot
    ///   sign; `errSecInternal` when the underlying library fails.
    func sign(_ algorithm: SignatureAlgorithm, _ input: Data) throws -> Data {
        guard isPrivate else { throw SecKeyError(errSecParam, "A public key cannot sign; use the private key.") }
        do {
            if isRSA { return try rsaSign(algorithm, input) }
            let bytes = try algorithm.signedBytes(input)
            let rfc4754 = algorithm.scheme == .ecdsaRFC4754
            switch material {
            case .p256Private(let key):
                let signature = try Self.withECDSADigest(bytes, curveBits: 256) { try key.signature(for: $0) }
                return rfc4754 ? signature.rawRepresentation : signature.derRepresentation
            case .p384Private(let key):
                let signature = try Self.withECDSADigest(bytes, curveBits: 384) { try key.signature(for: $0) }
                return rfc4754 ? signature.rawRepresentation : signature.derRepresentation
            case .p521Private(let key):
                let signature = try Self.withECDSADigest(bytes, curveBits: 521) { try key.signature(for: $0) }
                return rfc4754 ? signature.rawRepresentation : signature.derRepresentation
            case .p256Public, .p384Public, .p521Public, .rsaPrivate, .rsaPublic:
                throw SecKeyError(errSecParam, "This key cannot sign with this algorithm.")
            }
        } catch let error as SecKeyError {
            throw error
        } catch {
            throw SecKeyError(errSecInternal, "Signing failed.")
        }
    }

    /// Verifies a signature with the public key (or the public half of a private key).
    ///
    /// - Returns: Whether the signature is valid; malformed signatures are simply invalid.
    /// - Throws: `SecKeyError` (`errSecParam`) for a digest of the wrong length.
    func verify(_ algorithm: SignatureAlgorithm, _ input: Data, _ signature: Data) throws -> Bool {
        if isRSA { return try rsaVerify(algorithm, input, signature) }
        let bytes = try algorithm.signedBytes(input)
        let rfc4754 = algorithm.scheme == .ecdsaRFC4754
        switch publicKey.material {
        case .p256Public(let key):
            let parsed =
                rfc4754
                ? try? P256.Signing.ECDSASignature(rawRepresentation: signature)
                : try? P256.Signing.ECDSASignature(derRepresentation: signature)
            guard let parsed else { return false }
            return Self.withECDSADigest(bytes, curveBits: 256) { key.isValidSignature(parsed, for: $0) }
        case .p384Public(let key):
            let parsed =
                rfc4754
                ? try? P384.Signing.ECDSASignature(rawRepresentation: signature)
                : try? P384.Signing.ECDSASignature(derRepresentation: signature)
            guard let parsed else { return false }
            return Self.withECDSADigest(bytes, curveBits: 384) { key.isValidSignature(parsed, for: $0) }
        case .p521Public(let key):
            let parsed =
                rfc4754
                ? try? P521.Signing.ECDSASignature(rawRepresentation: signature)
                : try? P521.Signing.ECDSASignature(derRepresentation: signature)
            guard let parsed else { return false }
            return Self.withECDSADigest(bytes, curveBits: 521) { key.isValidSignature(parsed, for: $0) }
        case .p256Private, .p384Private, .p521Private, .rsaPrivate, .rsaPublic:
            return false  // unreachable: publicKey is public, and RSA returned above
        }
    }

    /// Runs `body` with `digest` reduced to what ECDSA signs (X9.62 / SEC 1 §4.1.3 step 5: the leftmost
    /// `curveBits` bits), typed by length for swift-crypto.
    ///
    /// A digest at least as long as the order keeps its first `⌈curveBits/8⌉` bytes (BoringSSL shifts away the
    /// extra bits of P-521's 66th byte); a shorter one is left-padded with zeros to `⌊curveBits/8⌋` bytes, which
    /// keeps its value and needs no shift.
    private static func withECDSADigest<R>(
        _ digest: [UInt8],
        curveBits: Int,
        _ body: (any Digest) throws -> R
    ) rethrows -> R {
        let orderBytes = (curveBits + 7) / 8
        let bytes =
            digest.count >= orderBytes
            ? Array(digest.prefix(orderBytes))
            : [UInt8](repeating: 0, count: curveBits / 8 - digest.count) + digest
        switch bytes.count {
        case 32: return try body(RawDigest<DigestLength32>(bytes: bytes))
        case 48: return try body(RawDigest<DigestLength48>(bytes: bytes))
        case 65: return try body(RawDigest<DigestLength65>(bytes: bytes))
        default: return try body(RawDigest<DigestLength66>(bytes: bytes))
        }
    }

    // MARK: RSA

    /// RSA signing: swift-crypto (BoringSSL) for message algorithms over SHA-1/256/384/512, the encodings
    /// `LatchkeyCrypto.EMSAPSS` and `EMSAPKCS1v15` over the raw private operation otherwise (caller-supplied
    /// digests, SHA-224, PKCS#1 v1.5 without DigestInfo, raw).
    private func rsaSign(_ algorithm: SignatureAlgorithm, _ input: Data) throws -> Data {
        guard case .rsaPrivate(let key) = material else { throw SecKeyError(errSecParam, "Not an RSA private key.") }
        if case .message(let hash) = algorithm.input,
            let signature = try Self.swiftCryptoSignature(key, hash, input, algorithm.scheme == .rsaPSS)
        {
            return signature
        }
        let bytes = try algorithm.signedBytes(input)
        let block: [UInt8]
        if algorithm.scheme == .rsaRaw {
            guard bytes.count <= blockSize else {
                throw SecKeyError(errSecParam, "The input is longer than the RSA modulus (\(blockSize) bytes).")
            }
            block = [UInt8](repeating: 0, count: blockSize - bytes.count) + bytes
            guard block.lexicographicallyPrecedes(try rsaModulus()) else {
                throw SecKeyError(errSecParam, "The input must be a number below the RSA modulus.")
            }
        } else {
            block = try rsaEncoding(algorithm, bytes)
        }
        do throws(LatchkeyCrypto.CryptoError) {
            return Data(try rawPrivateOperation().apply(block))
        } catch {
            throw SecKeyError(errSecParam, "The RSA private-key operation failed.")
        }
    }

    /// The PKCS#1 v1.5 or PSS block for a digest (`bytes` is the digest: of the message, or the caller's).
    private func rsaEncoding(_ algorithm: SignatureAlgorithm, _ bytes: [UInt8]) throws -> [UInt8] {
        do throws(LatchkeyCrypto.CryptoError) {
            switch (algorithm.scheme, algorithm.input) {
            case (.rsaPSS, .message(let hash)), (.rsaPSS, .digest(let hash)):
                return try EMSAPSS.encode(bytes, hash: hash, modulusBits: sizeInBits, byteCount: blockSize)
            case (.rsaPKCS1v15, .message(let hash)), (.rsaPKCS1v15, .digest(let hash)):
                return try EMSAPKCS1v15.encode(bytes, hash: hash, byteCount: blockSize)
            case (.rsaPKCS1v15, .raw):
                return try EMSAPKCS1v15.encode(bytes, hash: nil, byteCount: blockSize)
            default:
                throw LatchkeyCrypto.CryptoError.invalidParameters("This key cannot sign with this algorithm.")
            }
        } catch {
            throw SecKeyError(error, failure: "RSA signature encoding failed.")
        }
    }

    /// A swift-crypto signature of `message`, or `nil` for SHA-224, which swift-crypto lacks.
    ///
    /// swift-crypto names the hash in the DigestInfo and the PSS parameters from the digest's type, so the
    /// message is hashed here with that type.
    private static func swiftCryptoSignature(
        _ key: _RSA.Signing.PrivateKey,
        _ hash: SignatureAlgorithm.Hash,
        _ message: Data,
        _ pss: Bool
    ) throws -> Data? {
        let padding: _RSA.Signing.Padding = pss ? .PSS : .insecurePKCS1v1_5
        return switch hash {
        case .sha1: try key.signature(for: Insecure.SHA1.hash(data: message), padding: padding).rawRepresentation
        case .sha224: nil
        case .sha256: try key.signature(for: SHA256.hash(data: message), padding: padding).rawRepresentation
        case .sha384: try key.signature(for: SHA384.hash(data: message), padding: padding).rawRepresentation
        case .sha512: try key.signature(for: SHA512.hash(data: message), padding: padding).rawRepresentation
        }
    }

    /// swift-crypto's verdict on a signature of `message`, or `nil` for SHA-224.
    private static func swiftCryptoVerdict(
        _ key: _RSA.Signing.PublicKey,
        _ hash: SignatureAlgorithm.Hash,
        _ message: Data,
        _ signature: Data,
        _ pss: Bool
    ) -> Bool? {
        let padding: _RSA.Signing.Padding = pss ? .PSS : .insecurePKCS1v1_5
        let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
        return switch hash {
        case .sha1: key.isValidSignature(parsed, for: Insecure.SHA1.hash(data: message), padding: padding)
        case .sha224: nil
        case .sha256: key.isValidSignature(parsed, for: SHA256.hash(data: message), padding: padding)
        case .sha384: key.isValidSignature(parsed, for: SHA384.hash(data: message), padding: padding)
        case .sha512: key.isValidSignature(parsed, for: SHA512.hash(data: message), padding: padding)
        }
    }

    /// RSA verification: swift-crypto where it can; otherwise the raw public operation, then a comparison with
    /// the expected block (PKCS#1 v1.5, raw) or EMSA-PSS-VERIFY.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) for a digest of the wrong length.
    private func rsaVerify(_ algorithm: SignatureAlgorithm, _ input: Data, _ signature: Data) throws -> Bool {
        guard case .rsaPublic(let key) = publicKey.material else { return false }
        if case .message(let hash) = algorithm.input,
            let verdict = Self.swiftCryptoVerdict(key, hash, input, signature, algorithm.scheme == .rsaPSS)
        {
            return verdict
        }
        let bytes = try algorithm.signedBytes(input)
        guard signature.count == blockSize,
            let recovered = try? rawPublicOperation().apply([UInt8](signature))
        else {
            return false
        }
        switch (algorithm.scheme, algorithm.input) {
        case (.rsaRaw, _):
            // m = s^e mod n must be the caller's number (leading zero bytes do not count).
            return constantTimeEquals(recovered.drop { $0 == 0 }, bytes.drop { $0 == 0 })
        case (.rsaPSS, .message(let hash)), (.rsaPSS, .digest(let hash)):
            return EMSAPSS.isEncoding(recovered, of: bytes, hash: hash, modulusBits: sizeInBits)
        default:
            guard let expected = try? rsaEncoding(algorithm, bytes) else { return false }
            return constantTimeEquals(recovered, expected)
        }
    }

    /// The RSA modulus, big-endian, `blockSize` bytes.
    private func rsaModulus() throws -> [UInt8] {
        guard case .rsaPublic(let key) = publicKey.material, let modulus = try? key.getKeyPrimitives().modulus else {
            throw SecKeyError(errSecParam, "The RSA public key is not usable.")
        }
        let trimmed = Array(modulus.drop { $0 == 0 })
        return [UInt8](repeating: 0, count: max(blockSize - trimmed.count, 0)) + trimmed
    }
}
#endif
