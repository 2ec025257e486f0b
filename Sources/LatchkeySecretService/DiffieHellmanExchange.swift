import CLatchkeyOpenSSL
import Crypto
import Foundation
import LatchkeyCrypto

/// The key agreement of the `dh-ietf1024-sha256-aes128-cbc-pkcs7` session algorithm: Diffie-Hellman in
/// RFC 2409's Second Oakley Group (1024 bits, generator 2), then HKDF-SHA256 (no salt, no info) to a 16-byte
/// AES key, as libsecret's `secret-session.c` and gnome-keyring do.
///
/// The modular exponentiations are OpenSSL's constant-time `BN_mod_exp_mont_consttime` (libcrypto), not
/// ours. The shared secret enters HKDF as big-endian bytes left-padded with zeros to the prime's length
/// (128 bytes), as libsecret's `egg_dh_gen_secret` writes it.
///
/// ```swift
/// let exchange = try DiffieHellmanExchange.respond(to: clientPublicKey)
/// // reply with exchange.publicKey; encrypt with exchange.key
/// ```
public struct DiffieHellmanExchange: Sendable {
    /// The service's public key, big-endian without leading zeros (as libsecret exports its own).
    public var publicKey: Data
    /// The derived AES-128 key.
    public var key: SymmetricKey

    /// RFC 2409 §6.2, the Second Oakley Group's prime (the prime of libsecret's `ietf-ike-grp-modp-1024`).
    public static let prime: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC9, 0x0F, 0xDA, 0xA2, 0x21, 0x68, 0xC2, 0x34,
        0xC4, 0xC6, 0x62, 0x8B, 0x80, 0xDC, 0x1C, 0xD1, 0x29, 0x02, 0x4E, 0x08, 0x8A, 0x67, 0xCC, 0x74,
        0x02, 0x0B, 0xBE, 0xA6, 0x3B, 0x13, 0x9B, 0x22, 0x51, 0x4A, 0x08, 0x79, 0x8E, 0x34, 0x04, 0xDD,
        0xEF, 0x95, 0x19, 0xB3, 0xCD, 0x3A, 0x43, 0x1B, 0x30, 0x2B, 0x0A, 0x6D, 0xF2, 0x5F, 0x14, 0x37,
        0x4F, 0xE1, 0x35, 0x6D, 0x6D, 0x51, 0xC2, 0x45, 0xE4, 0x85, 0xB5, 0x76, 0x62, 0x5E, 0x7E, 0xC6,
        0xF4, 0x4C, 0x42, 0xE9, 0xA6, 0x37, 0xED, 0x6B, 0x0B, 0xFF, 0x5C, 0xB6, 0xF4, 0x06, 0xB7, 0xED,
        0xEE, 0x38, 0x6B, 0xFB, 0x5A, 0x89, 0x9F, 0xA5, 0xAE, 0x9F, 0x24, 0x11, 0x7C, 0x4B, 0x1F, 0xE6,
        0x49, 0x28, 0x66, 0x51, 0xEC, 0xE6, 0x53, 0x81, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ]

    /// The group's generator.
    public static let generator: UInt = 2

    /// Answers a client's public key: a fresh private exponent, the service's public key, and the AES key
    /// both sides derive.
    ///
    /// - Parameters:
    ///   - peerPublicKey: The client's public key, big-endian.
    ///   - privateKey: The service's private exponent (big-endian); `nil` for 128 fresh random bytes. Tests
    ///     give a fixed one.
    /// - Throws: `SecretServiceError.invalidArguments` when the client's key is not in 2...p-2.
    public static func respond(
        to peerPublicKey: Data,
        privateKey: Data? = nil
    ) throws(SecretServiceError) -> DiffieHellmanExchange {
        let privateBytes = privateKey ?? SecureRandom.bytes(prime.count)
        let (publicKey, computed) = try compute(peer: peerPublicKey, privateBytes: privateBytes)
        var shared = computed
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: shared),
            info: Data(),
            outputByteCount: 16
        )
        wipe(&shared)
        return DiffieHellmanExchange(publicKey: publicKey, key: key)
    }

    /// `(g^x mod p, peer^x mod p)`: the public key (unpadded) and the shared secret padded to 128 bytes.
    static func compute(peer: Data, privateBytes: Data) throws(SecretServiceError) -> (Data, [UInt8]) {
        if let failure = latchkey_libcrypto_load_error() {
            throw .failed(
                "The dh-ietf1024 session needs libcrypto.so.3 (Debian: libssl3): \(String(cString: failure))."
            )
        }
        guard let context = BN_CTX_new() else { throw .failed("OpenSSL could not allocate a BN_CTX.") }
        defer { BN_CTX_free(context) }
        let primeNumber = prime.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        let peerNumber = peer.withUnsafeBytes {
            BN_bin2bn($0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count), nil)
        }
        let exponent = privateBytes.withUnsafeBytes {
            BN_bin2bn($0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count), nil)
        }
        let generatorNumber = BN_new()
        let publicNumber = BN_new()
        let sharedNumber = BN_new()
        let limit = BN_new()
        defer {
            BN_free(primeNumber)
            BN_free(peerNumber)
            BN_clear_free(exponent)
            BN_free(generatorNumber)
            BN_free(publicNumber)
            BN_clear_free(sharedNumber)
            BN_free(limit)
        }
        guard let primeNumber, let peerNumber, let exponent, let generatorNumber, let publicNumber,
            let sharedNumber, let limit, BN_set_word(generatorNumber, generator) == 1
        else { throw .failed("OpenSSL could not allocate a big number.") }
        BN_set_flags(exponent, BN_FLG_CONSTTIME)
        // The peer's key must be in 2...p-2 (1 and p-1 would force the shared secret).
        guard BN_copy(limit, primeNumber) != nil, BN_sub_word(limit, 1) == 1,
            BN_is_zero(peerNumber) == 0, BN_is_one(peerNumber) == 0, BN_cmp(peerNumber, limit) < 0
        else { throw .invalidArguments("The client's Diffie-Hellman public key is out of range.") }
        guard BN_mod_exp_mont_consttime(publicNumber, generatorNumber, exponent, primeNumber, context, nil) == 1,
            BN_mod_exp_mont_consttime(sharedNumber, peerNumber, exponent, primeNumber, context, nil) == 1
        else { throw .failed("OpenSSL's modular exponentiation failed.") }
        let publicLength = Int((BN_num_bits(publicNumber) + 7) / 8)
        var publicKey = Data(count: publicLength)
        publicKey.withUnsafeMutableBytes { _ = BN_bn2bin(publicNumber, $0.bindMemory(to: UInt8.self).baseAddress) }
        var shared = [UInt8](repeating: 0, count: prime.count)
        let written = shared.withUnsafeMutableBufferPointer {
            BN_bn2binpad(sharedNumber, $0.baseAddress, Int32(prime.count))
        }
        guard written == Int32(prime.count) else { throw .failed("OpenSSL could not write the shared secret.") }
        return (publicKey, shared)
    }
}
