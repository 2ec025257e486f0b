#if !canImport(Darwin)
import Foundation

/// EME-OAEP encoding and decoding (RFC 8017 §7.1.1 step 2 and §7.1.2 step 3) with MGF1 over the same hash and
/// an empty label, for the hashes swift-crypto's `_RSA.Encryption` does not offer (SHA-384, SHA-512).
///
/// Decoding checks every condition without an early exit and reports all failures as one error, so that
/// neither the error nor the control flow tells a caller which check failed (Manger's attack).
enum RSAOAEP {
    /// The longest message OAEP with `hash` fits in a `byteCount`-byte block: `k − 2·hLen − 2`.
    static func maximumMessageLength(hash: AlgorithmHash, byteCount: Int) -> Int {
        byteCount - 2 * hash.byteCount - 2
    }

    /// Encodes `message` into the `byteCount`-byte block `00 ‖ maskedSeed ‖ maskedDB`.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`) when the message is longer than `maximumMessageLength`.
    static func encode(_ message: [UInt8], hash: AlgorithmHash, byteCount: Int) throws -> [UInt8] {
        let hashLength = hash.byteCount
        let maximum = maximumMessageLength(hash: hash, byteCount: byteCount)
        guard message.count <= maximum else {
            throw SecKeyError(
                errSecParam,
                "The plaintext is too long for this RSA-OAEP key: at most \(max(maximum, 0)) bytes, got \(message.count)."
            )
        }
        // DB = lHash ‖ PS ‖ 0x01 ‖ M
        var block = hash.digest([])
        block += [UInt8](repeating: 0, count: maximum - message.count)
        block.append(0x01)
        block += message
        var seed = [UInt8](repeating: 0, count: hashLength)
        var generator = SystemRandomNumberGenerator()
        for index in seed.indices { seed[index] = generator.next() }
        xor(&block, mask(seed, length: block.count, hash: hash))
        xor(&seed, mask(block, length: hashLength, hash: hash))
        return [0] + seed + block
    }

    /// Decodes a `byteCount`-byte block produced by `encode`.
    ///
    /// - Throws: `SecKeyError` (`errSecParam`, “RSA decryption failed.”) for any malformed block.
    static func decode(_ encoded: [UInt8], hash: AlgorithmHash, byteCount: Int) throws -> [UInt8] {
        let hashLength = hash.byteCount
        guard encoded.count == byteCount, byteCount >= 2 * hashLength + 2 else { throw decryptionFailed }
        var seed = Array(encoded[1...hashLength])
        var block = Array(encoded[(hashLength + 1)...])
        xor(&seed, mask(block, length: hashLength, hash: hash))
        xor(&block, mask(seed, length: block.count, hash: hash))

        var bad = encoded[0]
        for (expected, actual) in zip(hash.digest([]), block) { bad |= expected ^ actual }
        // Find the 0x01 after the zero padding without branching on the bytes.
        var found: UInt8 = 0  // 0xFF once the separator is seen
        var separator = 0
        for index in hashLength..<block.count {
            let isOne = equalMask(block[index], 0x01)
            let isZero = equalMask(block[index], 0x00)
            let first = ~found & isOne
            separator = selectInt(first, index, separator)
            bad |= ~found & ~isZero & ~isOne
            found |= isOne
        }
        bad |= ~found
        guard bad == 0 else { throw decryptionFailed }
        return Array(block[(separator + 1)...])
    }

    /// The one error every decryption failure reports.
    static var decryptionFailed: SecKeyError { SecKeyError(errSecParam, "RSA decryption failed.") }

    /// MGF1 (RFC 8017 §B.2.1): `Hash(seed ‖ C(0)) ‖ Hash(seed ‖ C(1)) ‖ …`, truncated to `length`.
    static func mask(_ seed: [UInt8], length: Int, hash: AlgorithmHash) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(length + hash.byteCount)
        var counter: UInt32 = 0
        while output.count < length {
            let counterBytes: [UInt8] = [
                UInt8(truncatingIfNeeded: counter >> 24), UInt8(truncatingIfNeeded: counter >> 16),
                UInt8(truncatingIfNeeded: counter >> 8), UInt8(truncatingIfNeeded: counter),
            ]
            output += hash.digest(seed, counterBytes)
            counter += 1
        }
        return Array(output.prefix(length))
    }

    private static func xor(_ target: inout [UInt8], _ mask: [UInt8]) {
        for index in target.indices { target[index] ^= mask[index] }
    }

    /// 0xFF when `a == b`, else 0, without a branch.
    private static func equalMask(_ a: UInt8, _ b: UInt8) -> UInt8 {
        let difference = UInt32(a ^ b)
        // difference - 1 has bit 31 set only when difference == 0.
        return UInt8(truncatingIfNeeded: 0 &- ((difference &- 1) >> 31))
    }

    /// `a` when `mask` is 0xFF, `b` when it is 0.
    private static func selectInt(_ mask: UInt8, _ a: Int, _ b: Int) -> Int {
        let wide = Int(Int8(bitPattern: mask))  // 0xFF → -1 (all ones), 0 → 0
        return (a & wide) | (b & ~wide)
    }
}
#endif
