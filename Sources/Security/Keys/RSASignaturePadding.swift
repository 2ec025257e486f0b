#if !canImport(Darwin)
import Foundation

/// The RSA signature encodings EMSA-PKCS1-v1_5 (RFC 8017 §9.2) and EMSA-PSS (RFC 8017 §9.1, MGF1 with the same
/// hash, salt as long as the digest), for the cases swift-crypto cannot sign: caller-supplied digests, SHA-224,
/// and PKCS#1 v1.5 without a DigestInfo. The result goes through the raw RSA private operation; verification
/// runs the raw public operation and checks the block here.
enum RSASignaturePadding {
    /// The DER `DigestInfo` header (RFC 8017 §9.2 note 1) that precedes a digest of `hash`.
    static func digestInfoPrefix(_ hash: SignatureAlgorithm.Hash) -> [UInt8] {
        switch hash {
        case .sha1: [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00, 0x04, 0x14]
        case .sha224: sha2Prefix(0x2D, 0x04, 0x1C)
        case .sha256: sha2Prefix(0x31, 0x01, 0x20)
        case .sha384: sha2Prefix(0x41, 0x02, 0x30)
        case .sha512: sha2Prefix(0x51, 0x03, 0x40)
        }
    }

    /// `SEQUENCE { SEQUENCE { OID 2.16.840.1.101.3.4.2.<arc>, NULL }, OCTET STRING (length) }` header.
    private static func sha2Prefix(_ sequenceLength: UInt8, _ arc: UInt8, _ length: UInt8) -> [UInt8] {
        [0x30, sequenceLength, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, arc, 0x05, 0x00]
            + [0x04, length]
    }

    /// EMSA-PKCS1-v1_5: `00 01 FF…FF 00 ‖ T` in `byteCount` bytes, `T` the DigestInfo of `digest` (or `digest`
    /// itself when `hash` is `nil`).
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) when `T` leaves fewer than 8 bytes of `FF` padding.
    static func pkcs1v15(_ digest: [UInt8], hash: SignatureAlgorithm.Hash?, byteCount: Int) throws -> [UInt8] {
        let payload = (hash.map(digestInfoPrefix) ?? []) + digest
        guard payload.count + 11 <= byteCount else {
            throw SecKeyError(
                errSecParam,
                "The data to sign is too long for this RSA key: at most \(max(byteCount - 11, 0)) bytes"
                    + (hash == nil ? "" : " of DigestInfo") + ", got \(payload.count)."
            )
        }
        return [0x00, 0x01] + [UInt8](repeating: 0xFF, count: byteCount - payload.count - 3) + [0x00] + payload
    }

    /// EMSA-PSS-ENCODE with a random salt of the digest's length, as a `byteCount`-byte block (left-padded with a
    /// zero byte when the modulus bit length is one more than a multiple of 8).
    ///
    /// - Parameters:
    ///   - digest: `mHash`, the digest of the message.
    ///   - modulusBits: The modulus length in bits; `emBits = modulusBits − 1`.
    /// - Throws: `SecKeyError` (`errSecParam`) when the key is too small for the hash.
    static func pss(
        _ digest: [UInt8],
        hash: SignatureAlgorithm.Hash,
        modulusBits: Int,
        byteCount: Int
    ) throws -> [UInt8] {
        let hashLength = hash.byteCount
        let encodedBits = modulusBits - 1
        let encodedLength = (encodedBits + 7) / 8
        guard digest.count == hashLength, encodedLength >= 2 * hashLength + 2, encodedLength <= byteCount else {
            throw SecKeyError(errSecParam, "RSA-PSS with this hash needs a larger RSA key.")
        }
        var salt = [UInt8](repeating: 0, count: hashLength)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let h = hash.digest([UInt8](repeating: 0, count: 8), digest, salt)
        // DB = PS ‖ 0x01 ‖ salt, masked with MGF1(H).
        var block = [UInt8](repeating: 0, count: encodedLength - 2 * hashLength - 2) + [0x01] + salt
        for (index, byte) in mask(h, length: block.count, hash: hash).enumerated() { block[index] ^= byte }
        block[0] &= topByteMask(encodedLength: encodedLength, encodedBits: encodedBits)
        return [UInt8](repeating: 0, count: byteCount - encodedLength) + block + h + [0xBC]
    }

    /// EMSA-PSS-VERIFY on the `byteCount`-byte result `m` of the public operation.
    ///
    /// - Returns: Whether `encoded` is a PSS encoding of `digest` with a salt of the digest's length.
    static func isPSSEncoding(
        _ encoded: [UInt8],
        of digest: [UInt8],
        hash: SignatureAlgorithm.Hash,
        modulusBits: Int
    ) -> Bool {
        let hashLength = hash.byteCount
        let encodedBits = modulusBits - 1
        let encodedLength = (encodedBits + 7) / 8
        guard digest.count == hashLength, encodedLength >= 2 * hashLength + 2, encodedLength <= encoded.count else {
            return false
        }
        // I2OSP(m, emLen) fails when m has more significant bytes than emLen.
        guard encoded.prefix(encoded.count - encodedLength).allSatisfy({ $0 == 0 }) else { return false }
        let em = Array(encoded.suffix(encodedLength))
        let topMask = topByteMask(encodedLength: encodedLength, encodedBits: encodedBits)
        guard em[encodedLength - 1] == 0xBC, em[0] & ~topMask == 0 else { return false }
        let maskedLength = encodedLength - hashLength - 1
        let h = Array(em[maskedLength..<(encodedLength - 1)])
        var block = Array(em[..<maskedLength])
        for (index, byte) in mask(h, length: maskedLength, hash: hash).enumerated() { block[index] ^= byte }
        block[0] &= topMask
        let separator = maskedLength - hashLength - 1
        guard block[..<separator].allSatisfy({ $0 == 0 }), block[separator] == 0x01 else { return false }
        let salt = Array(block[(separator + 1)...])
        return constantTimeEqual(hash.digest([UInt8](repeating: 0, count: 8), digest, salt), h)
    }

    /// Whether two byte strings are equal, comparing every byte (no early exit).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// The mask clearing the `8·emLen − emBits` leftmost bits of the first byte.
    private static func topByteMask(encodedLength: Int, encodedBits: Int) -> UInt8 {
        0xFF >> UInt8(8 * encodedLength - encodedBits)
    }

    /// MGF1 (RFC 8017 §B.2.1) over `hash`: `Hash(seed ‖ C(0)) ‖ Hash(seed ‖ C(1)) ‖ …`, truncated to
    /// `length`. (`RSAOAEP.mask` is the same function over the encryption hashes, which lack SHA-224.)
    private static func mask(_ seed: [UInt8], length: Int, hash: SignatureAlgorithm.Hash) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(length + hash.byteCount)
        var counter: UInt32 = 0
        while output.count < length {
            output += hash.digest(seed, (0..<4).map { UInt8(truncatingIfNeeded: counter >> UInt32(24 - 8 * $0)) })
            counter += 1
        }
        return Array(output.prefix(length))
    }
}
#endif
