/// MGF1, the mask generation function of RFC 8017 §B.2.1, shared by EME-OAEP and EMSA-PSS.
package enum MGF1 {
    /// `Hash(seed ‖ C(0)) ‖ Hash(seed ‖ C(1)) ‖ …` truncated to `length` bytes, `C(i)` the 32-bit big-endian
    /// counter.
    package static func mask(_ seed: [UInt8], length: Int, hash: HashAlgorithm) -> [UInt8] {
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

    /// XORs `mask` into `target` (the mask is at least as long as the target).
    package static func apply(_ mask: [UInt8], to target: inout [UInt8]) {
        for index in target.indices { target[index] ^= mask[index] }
    }
}
