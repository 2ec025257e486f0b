/// The RSA signature encoding EMSA-PSS (RFC 8017 §9.1) with MGF1 over the signing hash and a salt as long as
/// the digest, for what swift-crypto's `_RSA.Signing` cannot sign: caller-supplied digests and SHA-224.
///
/// Signing applies `RSARawPrivateOperation` to `encode`'s block; verification runs `RSARawPublicOperation` and
/// checks the result with `isEncoding`.
package enum EMSAPSS {
    /// EMSA-PSS-ENCODE as a `byteCount`-byte block (left-padded with a zero byte when the modulus bit length is
    /// one more than a multiple of 8).
    ///
    /// - Parameters:
    ///   - digest: `mHash`, the digest of the message.
    ///   - modulusBits: The modulus length in bits; `emBits = modulusBits − 1`.
    ///   - salt: The `hLen`-byte salt; `nil` (the only choice outside tests) draws a random one.
    /// - Throws: `CryptoError.invalidParameters` when the key is too small for the hash, or the digest or salt
    ///   has the wrong length.
    package static func encode(
        _ digest: [UInt8],
        hash: HashAlgorithm,
        modulusBits: Int,
        byteCount: Int,
        salt: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        let hashLength = hash.byteCount
        let encodedBits = modulusBits - 1
        let encodedLength = (encodedBits + 7) / 8
        guard digest.count == hashLength, encodedLength >= 2 * hashLength + 2, encodedLength <= byteCount else {
            throw .invalidParameters("RSA-PSS with this hash needs a larger RSA key.")
        }
        guard salt == nil || salt?.count == hashLength else {
            throw .invalidParameters("The PSS salt must be \(hashLength) bytes long.")
        }
        let salt = salt ?? [UInt8](SecureRandom.bytes(hashLength))
        let h = hash.digest([UInt8](repeating: 0, count: 8), digest, salt)
        // DB = PS ‖ 0x01 ‖ salt, masked with MGF1(H).
        var block = [UInt8](repeating: 0, count: encodedLength - 2 * hashLength - 2) + [0x01] + salt
        MGF1.apply(MGF1.mask(h, length: block.count, hash: hash), to: &block)
        block[0] &= topByteMask(encodedLength: encodedLength, encodedBits: encodedBits)
        return [UInt8](repeating: 0, count: byteCount - encodedLength) + block + h + [0xBC]
    }

    /// EMSA-PSS-VERIFY on `encoded`, the big-endian result of the public operation (at least `emLen` bytes).
    ///
    /// - Returns: Whether `encoded` is a PSS encoding of `digest` with a salt of the digest's length.
    package static func isEncoding(
        _ encoded: [UInt8],
        of digest: [UInt8],
        hash: HashAlgorithm,
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
        MGF1.apply(MGF1.mask(h, length: maskedLength, hash: hash), to: &block)
        block[0] &= topMask
        let separator = maskedLength - hashLength - 1
        guard block[..<separator].allSatisfy({ $0 == 0 }), block[separator] == 0x01 else { return false }
        let salt = Array(block[(separator + 1)...])
        return constantTimeEquals(hash.digest([UInt8](repeating: 0, count: 8), digest, salt), h)
    }

    /// The mask clearing the `8·emLen − emBits` leftmost bits of the first byte.
    private static func topByteMask(encodedLength: Int, encodedBits: Int) -> UInt8 {
        0xFF >> UInt8(8 * encodedLength - encodedBits)
    }
}
