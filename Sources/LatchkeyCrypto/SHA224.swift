import Crypto
import Foundation

/// SHA-224 (FIPS 180-4 §6.3): the SHA-256 compression function from SHA-224's initial hash value, the result
/// truncated to 28 bytes, as a swift-crypto `HashFunction` (so `HMAC<SHA224>` and `ANSIKDFx963<SHA224>` work).
///
/// swift-crypto offers no SHA-224; Apple's `…SHA224` signature, OAEP, ECIES and ECDH algorithms need it. The
/// input is public (a message or a digest being signed, a KDF input hashed once more), so the implementation
/// does not try to be constant-time.
package struct SHA224: HashFunction {
    /// The SHA-256 block size in bytes.
    package static let blockByteCount = 64

    /// The digest type.
    package typealias Digest = SHA224Digest

    /// FIPS 180-4 §5.3.2.
    private static let initialHash: [UInt32] = [
        0xc105_9ed8, 0x367c_d507, 0x3070_dd17, 0xf70e_5939, 0xffc0_0b31, 0x6858_1511, 0x64f9_8fa7, 0xbefa_4fa4,
    ]

    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state = SHA224.initialHash
    /// Bytes not yet compressed (fewer than 64).
    private var pending: [UInt8] = []
    /// The total message length in bytes.
    private var length: UInt64 = 0

    /// A hasher with no input yet.
    package init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// Appends the bytes of `bufferPointer` to the message.
    package mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        length &+= UInt64(bufferPointer.count)
        var input = bufferPointer[...]
        if !pending.isEmpty {
            let taken = input.prefix(Self.blockByteCount - pending.count)
            pending += taken
            input = input.dropFirst(taken.count)
            guard pending.count == Self.blockByteCount else { return }
            let block = pending
            block.withUnsafeBytes { compress($0) }
            pending.removeAll(keepingCapacity: true)
        }
        while input.count >= Self.blockByteCount {
            compress(UnsafeRawBufferPointer(rebasing: input.prefix(Self.blockByteCount)))
            input = input.dropFirst(Self.blockByteCount)
        }
        pending += input
    }

    /// Pads the message (FIPS 180-4 §5.1.1) and returns the 28-byte digest.
    package func finalize() -> SHA224Digest {
        var copy = self
        let bitLength = length &* 8
        var padding: [UInt8] = [0x80]
        padding += [UInt8](repeating: 0, count: (119 - pending.count) % 64)
        padding += (0..<8).map { UInt8(truncatingIfNeeded: bitLength >> UInt64(56 - 8 * $0)) }
        padding.withUnsafeBytes { copy.update(bufferPointer: $0) }
        return SHA224Digest(
            bytes: copy.state.prefix(7).flatMap { word in
                (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - 8 * $0)) }
            }
        )
    }

    /// The SHA-256 compression function (FIPS 180-4 §6.2.2) over one 64-byte block.
    private mutating func compress(_ block: UnsafeRawBufferPointer) {
        var schedule = [UInt32](repeating: 0, count: 64)
        for index in 0..<16 {
            schedule[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
        for index in 16..<64 {
            let word15 = schedule[index - 15]
            let word2 = schedule[index - 2]
            let sigma0 = rotate(word15, 7) ^ rotate(word15, 18) ^ (word15 >> 3)
            let sigma1 = rotate(word2, 17) ^ rotate(word2, 19) ^ (word2 >> 10)
            schedule[index] = sigma1 &+ schedule[index - 7] &+ sigma0 &+ schedule[index - 16]
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choose = (e & f) ^ (~e & g)
            let temporary1 = h &+ sum1 &+ choose &+ Self.roundConstants[index] &+ schedule[index]
            let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temporary2 = sum0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temporary1, c, b, a, temporary1 &+ temporary2)
        }
        for (index, word) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= word }
    }

    private func rotate(_ word: UInt32, _ count: UInt32) -> UInt32 {
        (word >> count) | (word << (32 - count))
    }
}

/// A SHA-224 digest: 28 bytes, compared in constant time (swift-crypto's `Digest` equality).
package struct SHA224Digest: Digest {
    /// The digest length in bytes.
    package static let byteCount = 28

    private let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Calls `body` with the digest bytes.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// Hashes the digest bytes.
    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
