import Crypto
import Foundation

/// The PKCS#12 key derivation function (RFC 7292 Appendix B.2), used for the password MAC (ID 3).
///
/// swift-crypto has no PKCS#12 KDF; the hashing is swift-crypto's (or `SHA224`).
package enum PKCS12KDF {
    /// The diversifier ID: what the derived bytes are for.
    package enum Purpose: UInt8, Sendable {
        /// ID 1: an encryption key.
        case encryptionKey = 1
        /// ID 2: an IV.
        case iv = 2
        /// ID 3: a MAC key.
        case macKey = 3
    }

    /// The passphrase as RFC 7292 Appendix B.1 wants it: a BMPString (UTF-16BE) with a two-byte NUL terminator;
    /// the empty passphrase is the terminator alone (as OpenSSL).
    package static func bmpPassword(_ passphrase: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(passphrase.utf16.count * 2 + 2)
        for unit in passphrase.utf16 {
            bytes.append(UInt8(unit >> 8))
            bytes.append(UInt8(unit & 0xFF))
        }
        return bytes + [0, 0]
    }

    /// Derives `count` bytes from `password` (already in the form of `bmpPassword`, or empty for a NULL
    /// password) and `salt` with `iterations` rounds of `hash` (at least one round).
    package static func derive(
        hash: HashAlgorithm,
        password: [UInt8],
        salt: [UInt8],
        iterations: Int,
        purpose: Purpose,
        count: Int
    ) -> [UInt8] {
        switch hash {
        case .sha1: derive(Insecure.SHA1.self, password, salt, iterations, purpose, count)
        case .sha224: derive(SHA224.self, password, salt, iterations, purpose, count)
        case .sha256: derive(SHA256.self, password, salt, iterations, purpose, count)
        case .sha384: derive(SHA384.self, password, salt, iterations, purpose, count)
        case .sha512: derive(SHA512.self, password, salt, iterations, purpose, count)
        }
    }

    private static func derive<Hash: HashFunction>(
        _ hash: Hash.Type,
        _ password: [UInt8],
        _ salt: [UInt8],
        _ iterations: Int,
        _ purpose: Purpose,
        _ count: Int
    ) -> [UInt8] {
        let v = Hash.blockByteCount
        let diversifier = [UInt8](repeating: purpose.rawValue, count: v)
        var input = stretched(salt, to: v) + stretched(password, to: v)
        defer { wipe(&input) }
        var output: [UInt8] = []
        output.reserveCapacity(count)
        while output.count < count {
            var hasher = Hash()
            hasher.update(data: diversifier)
            hasher.update(data: input)
            var block = Array(hasher.finalize())
            for _ in 1..<max(iterations, 1) { block = Array(Hash.hash(data: block)) }
            output += block.prefix(count - output.count)
            guard output.count < count else {
                wipe(&block)
                break
            }
            // I_j = (I_j + B + 1) mod 2^(8v) for each v-byte block I_j of I, B = block repeated to v bytes.
            var b = stretched(block, to: v, exactly: true)
            for start in stride(from: 0, to: input.count, by: v) {
                var carry = 1
                for offset in stride(from: v - 1, through: 0, by: -1) {
                    let sum = Int(input[start + offset]) + Int(b[offset]) + carry
                    input[start + offset] = UInt8(sum & 0xFF)
                    carry = sum >> 8
                }
            }
            wipe(&b)
            wipe(&block)
        }
        return output
    }

    /// `bytes` repeated to fill `v * ceil(count / v)` bytes (or exactly `v` bytes); empty stays empty.
    private static func stretched(_ bytes: [UInt8], to v: Int, exactly: Bool = false) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        let length = exactly ? v : v * ((bytes.count + v - 1) / v)
        return (0..<length).map { bytes[$0 % bytes.count] }
    }
}
