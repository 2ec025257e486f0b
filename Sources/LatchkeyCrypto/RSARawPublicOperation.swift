import Foundation

/// The raw RSA public operation `m^e mod n` (RFC 8017 §5.1.1 RSAEP), which swift-crypto does not expose.
///
/// Montgomery multiplication (CIOS) over 64-bit limbs. The sequence of operations depends only on the public
/// modulus and exponent, never on the message: the final subtraction of each multiplication is a masked
/// select, not a branch. The modulus must be odd (every RSA modulus is).
package struct RSARawPublicOperation: Sendable {
    /// The modulus, little-endian 64-bit limbs.
    private let modulus: [UInt64]
    /// The public exponent, big-endian bytes without leading zeros.
    private let exponent: [UInt8]
    /// `-modulus⁻¹ mod 2⁶⁴`.
    private let inverse: UInt64
    /// `R² mod modulus` with `R = 2^(64·limbs)`.
    private let rSquared: [UInt64]
    /// The modulus length in bytes (the RSA block size `k`).
    package let byteCount: Int

    /// Prepares the operation for a modulus and public exponent given as big-endian bytes.
    ///
    /// - Throws: `CryptoError.invalidParameters` for an even or empty modulus or a zero exponent.
    package init(modulus modulusBytes: some DataProtocol, exponent exponentBytes: some DataProtocol) throws(CryptoError)
    {
        let trimmedModulus = Array(modulusBytes.drop { $0 == 0 })
        let trimmedExponent = Array(exponentBytes.drop { $0 == 0 })
        guard let last = trimmedModulus.last, last & 1 == 1, trimmedModulus.count > 1, !trimmedExponent.isEmpty else {
            throw .invalidParameters("The RSA public key is not usable.")
        }
        byteCount = trimmedModulus.count
        let limbs = Self.limbs(trimmedModulus, count: (trimmedModulus.count + 7) / 8)
        modulus = limbs
        exponent = trimmedExponent
        // Newton's iteration doubles the correct low bits each step: 1 → 2 → … → 64 (x₀ = n is right mod 8).
        var x = limbs[0]
        for _ in 0..<5 { x = x &* (2 &- limbs[0] &* x) }
        inverse = 0 &- x
        rSquared = Self.rSquared(limbs)
    }

    /// `message^e mod n`, `message` a big-endian integer of at most `byteCount` bytes.
    ///
    /// - Returns: The result, big-endian, exactly `byteCount` bytes.
    /// - Throws: `CryptoError.invalidParameters` when `message` is longer than the modulus or not below it.
    package func apply(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard message.count <= byteCount else {
            throw .invalidParameters("The input is longer than the RSA modulus.")
        }
        let m = Self.limbs(message, count: modulus.count)
        guard Self.isLess(m, modulus) else {
            throw .invalidParameters("The input is not smaller than the RSA modulus.")
        }
        let base = multiply(m, rSquared)
        var accumulator = base
        var started = false
        for byte in exponent {
            for bit in (0..<8).reversed() {
                let set = (byte >> UInt8(bit)) & 1 == 1
                if started {
                    accumulator = multiply(accumulator, accumulator)
                    if set { accumulator = multiply(accumulator, base) }
                } else if set {
                    started = true  // the leading 1 bit: accumulator already holds base
                }
            }
        }
        var one = [UInt64](repeating: 0, count: modulus.count)
        one[0] = 1
        return Self.bytes(multiply(accumulator, one), count: byteCount)
    }

    /// Montgomery product `a·b·R⁻¹ mod n` for `a, b < n` (CIOS, Koç et al. 1996).
    private func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        let count = modulus.count
        var t = [UInt64](repeating: 0, count: count + 2)
        for i in 0..<count {
            var carry: UInt64 = 0
            for j in 0..<count {
                (carry, t[j]) = Self.multiplyAdd(a[i], b[j], t[j], carry)
            }
            let (sum, overflow) = t[count].addingReportingOverflow(carry)
            t[count] = sum
            t[count + 1] = overflow ? 1 : 0
            let factor = t[0] &* inverse
            (carry, _) = Self.multiplyAdd(factor, modulus[0], t[0], 0)
            for j in 1..<count {
                (carry, t[j - 1]) = Self.multiplyAdd(factor, modulus[j], t[j], carry)
            }
            let (top, topOverflow) = t[count].addingReportingOverflow(carry)
            t[count - 1] = top
            t[count] = t[count + 1] &+ (topOverflow ? 1 : 0)
        }
        // t < 2n: subtract n, keep the difference unless it borrowed (and t had no extra top limb).
        var difference = [UInt64](repeating: 0, count: count)
        var borrow: UInt64 = 0
        for j in 0..<count {
            let (first, borrow1) = t[j].subtractingReportingOverflow(modulus[j])
            let (second, borrow2) = first.subtractingReportingOverflow(borrow)
            difference[j] = second
            borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
        }
        // Keep t when the subtraction borrowed out of the top limb: t[count] - borrow wraps.
        let keepT = 0 &- ((t[count] &- borrow) >> 63)
        var result = [UInt64](repeating: 0, count: count)
        for j in 0..<count {
            result[j] = (t[j] & keepT) | (difference[j] & ~keepT)
        }
        return result
    }

    /// `a·b + c + d` as (high, low) words; never overflows 128 bits.
    private static func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (UInt64, UInt64) {
        let product = a.multipliedFullWidth(by: b)
        let (low1, carry1) = product.low.addingReportingOverflow(c)
        let (low2, carry2) = low1.addingReportingOverflow(d)
        return (product.high &+ (carry1 ? 1 : 0) &+ (carry2 ? 1 : 0), low2)
    }

    /// `R² mod n` by doubling 1 `2·64·limbs` times (the modulus is public: branches are fine here).
    private static func rSquared(_ modulus: [UInt64]) -> [UInt64] {
        var x = [UInt64](repeating: 0, count: modulus.count)
        x[0] = 1
        for _ in 0..<(128 * modulus.count) {
            var carry: UInt64 = 0
            for j in 0..<x.count {
                let next = x[j] >> 63
                x[j] = (x[j] << 1) | carry
                carry = next
            }
            if carry == 1 || !isLess(x, modulus) {
                var borrow: UInt64 = 0
                for j in 0..<x.count {
                    let (first, borrow1) = x[j].subtractingReportingOverflow(modulus[j])
                    let (second, borrow2) = first.subtractingReportingOverflow(borrow)
                    x[j] = second
                    borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
                }
            }
        }
        return x
    }

    /// Whether `a < b` (equal limb counts). Runs over every limb.
    private static func isLess(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        var borrow: UInt64 = 0
        for j in 0..<a.count {
            let (first, borrow1) = a[j].subtractingReportingOverflow(b[j])
            let (_, borrow2) = first.subtractingReportingOverflow(borrow)
            borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
        }
        return borrow == 1
    }

    /// Big-endian bytes as `count` little-endian limbs (the bytes must fit).
    private static func limbs(_ bytes: [UInt8], count: Int) -> [UInt64] {
        var limbs = [UInt64](repeating: 0, count: count)
        for (index, byte) in bytes.reversed().enumerated() {
            limbs[index / 8] |= UInt64(byte) << UInt64(8 * (index % 8))
        }
        return limbs
    }

    /// Little-endian limbs as `count` big-endian bytes.
    private static func bytes(_ limbs: [UInt64], count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            bytes[count - 1 - index] = UInt8(truncatingIfNeeded: limbs[index / 8] >> UInt64(8 * (index % 8)))
        }
        return bytes
    }
}
