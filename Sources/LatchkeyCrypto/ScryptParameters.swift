import Crypto
import Foundation
import _CryptoExtras

/// The cost and salt of a passphrase unlock slot, stored beside the slot in the keychain file.
///
/// The default cost is N = 2^17, r = 8, p = 1 (about 128 MiB and a few hundred milliseconds), the
/// interactive-login strength recommended for scrypt. A lower cost must be asked for explicitly, e.g. by
/// tests through `ScryptParameters.testing`.
package struct ScryptParameters: Sendable, Equatable {
    /// log2 of the CPU/memory cost N.
    package var logN: UInt8
    /// The block size r.
    package var blockSize: UInt32
    /// The parallelism p.
    package var parallelism: UInt32
    /// 32 random bytes, unique per slot.
    package var salt: Data

    /// The production cost: N = 2^17, r = 8, p = 1.
    package static func standard() -> ScryptParameters {
        ScryptParameters(logN: 17, blockSize: 8, parallelism: 1, salt: SecureRandom.bytes(32))
    }

    /// A deliberately cheap cost (N = 2^10) for tests and benchmarks; never a default.
    package static func testing() -> ScryptParameters {
        ScryptParameters(logN: 10, blockSize: 8, parallelism: 1, salt: SecureRandom.bytes(32))
    }

    package init(logN: UInt8, blockSize: UInt32, parallelism: UInt32, salt: Data) {
        self.logN = logN
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
    }

    /// Bytes of memory the derivation needs (128 · N · r · p).
    package var memoryBytes: Int { 128 * (1 << Int(logN)) * Int(blockSize) * Int(parallelism) }

    /// Rejects costs that a damaged or hostile file could use to exhaust memory or time.
    package func validate() throws(CryptoError) {
        guard (1...22).contains(logN) else { throw .invalidParameters("log2(N) = \(logN) outside 1...22") }
        guard (1...32).contains(blockSize) else { throw .invalidParameters("r = \(blockSize) outside 1...32") }
        guard (1...16).contains(parallelism) else { throw .invalidParameters("p = \(parallelism) outside 1...16") }
        guard memoryBytes <= 1 << 30 else { throw .invalidParameters("needs more than 1 GiB") }
        guard salt.count >= 16 else { throw .invalidParameters("salt shorter than 16 bytes") }
    }

    /// Derives a 256-bit key-encryption key from `passphrase`.
    ///
    /// - Throws: `CryptoError.invalidParameters` for out-of-range costs.
    package func deriveKey(from passphrase: SecretData) throws(CryptoError) -> SymmetricKey {
        try validate()
        do {
            return try passphrase.withUnsafeBytes { bytes in
                try KDF.Scrypt.deriveKey(
                    from: bytes,
                    salt: salt,
                    outputByteCount: 32,
                    rounds: 1 << Int(logN),
                    blockSize: Int(blockSize),
                    parallelism: Int(parallelism),
                    maxMemory: memoryBytes + (1 << 20)
                )
            }
        } catch {
            throw .backendFailure("scrypt")
        }
    }

    /// A fixed-size encoding: `logN(1) ‖ r(4, BE) ‖ p(4, BE) ‖ salt`.
    package var encoded: Data {
        var out = Data([logN])
        withUnsafeBytes(of: blockSize.bigEndian) { out.append(contentsOf: $0) }
        withUnsafeBytes(of: parallelism.bigEndian) { out.append(contentsOf: $0) }
        out.append(salt)
        return out
    }

    /// Parses `encoded`.
    ///
    /// - Throws: `CryptoError.invalidParameters` when the bytes are too short or out of range.
    package init(encoded: Data) throws(CryptoError) {
        let bytes = [UInt8](encoded)
        guard bytes.count >= 9 + 16 else { throw .invalidParameters("truncated scrypt parameters") }
        func word(at offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { ($0 << 8) | UInt32($1) }
        }
        self.init(logN: bytes[0], blockSize: word(at: 1), parallelism: word(at: 5), salt: Data(bytes[9...]))
        try validate()
    }
}
