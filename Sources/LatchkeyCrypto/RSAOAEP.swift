/// EME-OAEP encoding and decoding (RFC 8017 §7.1.1 step 2 and §7.1.2 step 3) with MGF1 over the same hash and
/// an empty label, over the raw RSA operations.
///
/// swift-crypto's `_RSA.Encryption` covers OAEP with SHA-1 and SHA-256 only; this is the OAEP of SHA-224,
/// SHA-384 and SHA-512 (it computes the others identically, which `RSAOAEPTests` checks).
///
/// Decoding checks every condition without an early exit and reports all failures as one error, so that
/// neither the error nor the control flow tells a caller which check failed (Manger's attack).
package enum RSAOAEP {
    /// The longest message OAEP with `hash` fits in a `byteCount`-byte block: `k − 2·hLen − 2`.
    package static func maximumMessageLength(hash: HashAlgorithm, byteCount: Int) -> Int {
        byteCount - 2 * hash.byteCount - 2
    }

    /// RSAES-OAEP-ENCRYPT: encodes `message` and applies the public operation.
    ///
    /// - Parameter seed: The `hLen`-byte seed; `nil` (the only choice outside tests) draws a random one.
    /// - Throws: `CryptoError.invalidParameters` when the message is too long for the key.
    package static func encrypt(
        _ message: [UInt8],
        with key: RSARawPublicOperation,
        hash: HashAlgorithm,
        seed: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        try key.apply(encode(message, hash: hash, byteCount: key.byteCount, seed: seed))
    }

    /// RSAES-OAEP-DECRYPT: applies the private operation and decodes.
    ///
    /// - Throws: `CryptoError.authenticationFailure` for every malformed ciphertext or block, whatever the
    ///   cause.
    package static func decrypt(
        _ ciphertext: [UInt8],
        with key: RSARawPrivateOperation,
        hash: HashAlgorithm
    ) throws(CryptoError) -> [UInt8] {
        guard ciphertext.count == key.byteCount, let encoded = try? key.apply(ciphertext) else {
            throw .authenticationFailure
        }
        return try decode(encoded, hash: hash, byteCount: key.byteCount)
    }

    /// Encodes `message` into the `byteCount`-byte block `00 ‖ maskedSeed ‖ maskedDB`.
    ///
    /// - Parameter seed: The `hLen`-byte seed; `nil` draws a random one.
    /// - Throws: `CryptoError.invalidParameters` when the message is longer than `maximumMessageLength` or the
    ///   seed is not `hLen` bytes long.
    package static func encode(
        _ message: [UInt8],
        hash: HashAlgorithm,
        byteCount: Int,
        seed: [UInt8]? = nil
    ) throws(CryptoError) -> [UInt8] {
        let hashLength = hash.byteCount
        let maximum = maximumMessageLength(hash: hash, byteCount: byteCount)
        guard message.count <= maximum else {
            throw .invalidParameters(
                "The plaintext is too long for this RSA-OAEP key: at most \(max(maximum, 0)) bytes, got \(message.count)."
            )
        }
        guard seed == nil || seed?.count == hashLength else {
            throw .invalidParameters("The OAEP seed must be \(hashLength) bytes long.")
        }
        // DB = lHash ‖ PS ‖ 0x01 ‖ M
        var block = hash.digest([])
        block += [UInt8](repeating: 0, count: maximum - message.count)
        block.append(0x01)
        block += message
        var maskedSeed = seed ?? [UInt8](SecureRandom.bytes(hashLength))
        MGF1.apply(MGF1.mask(maskedSeed, length: block.count, hash: hash), to: &block)
        MGF1.apply(MGF1.mask(block, length: hashLength, hash: hash), to: &maskedSeed)
        return [0] + maskedSeed + block
    }

    /// Decodes a `byteCount`-byte block produced by `encode`.
    ///
    /// - Throws: `CryptoError.authenticationFailure` for any malformed block.
    package static func decode(_ encoded: [UInt8], hash: HashAlgorithm, byteCount: Int) throws(CryptoError) -> [UInt8] {
        let hashLength = hash.byteCount
        guard encoded.count == byteCount, byteCount >= 2 * hashLength + 2 else { throw .authenticationFailure }
        var seed = Array(encoded[1...hashLength])
        var block = Array(encoded[(hashLength + 1)...])
        MGF1.apply(MGF1.mask(block, length: hashLength, hash: hash), to: &seed)
        MGF1.apply(MGF1.mask(seed, length: block.count, hash: hash), to: &block)

        var bad = encoded[0]
        for (expected, actual) in zip(hash.digest([]), block) { bad |= expected ^ actual }
        // Find the 0x01 after the zero padding without branching on the bytes.
        var found: UInt8 = 0  // 0xFF once the separator is seen
        var separator = 0
        for index in hashLength..<block.count {
            let isOne = equalMask(block[index], 0x01)
            let isZero = equalMask(block[index], 0x00)
            let first = ~found & isOne
            separator = select(first, index, separator)
            bad |= ~found & ~isZero & ~isOne
            found |= isOne
        }
        bad |= ~found
        guard bad == 0 else { throw .authenticationFailure }
        return Array(block[(separator + 1)...])
    }

    /// 0xFF when `a == b`, else 0, without a branch.
    private static func equalMask(_ a: UInt8, _ b: UInt8) -> UInt8 {
        let difference = UInt32(a ^ b)
        // difference - 1 has bit 31 set only when difference == 0.
        return UInt8(truncatingIfNeeded: 0 &- ((difference &- 1) >> 31))
    }

    /// `a` when `mask` is 0xFF, `b` when it is 0.
    private static func select(_ mask: UInt8, _ a: Int, _ b: Int) -> Int {
        let wide = Int(Int8(bitPattern: mask))  // 0xFF → -1 (all ones), 0 → 0
        return (a & wide) | (b & ~wide)
    }
}
