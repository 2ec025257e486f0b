import Foundation
import Latchkey
import LatchkeySecurity

/// Public-key operations through Apple's `SecKey*` functions, beside what `openssl speed` measures on the same
/// machine (docs/benchmarks.md): `key-p256-sign` / `key-p256-verify` (ECDSA over a 32-byte SHA-256 digest,
/// as `openssl speed ecdsap256`), `key-rsa2048-sign` / `key-rsa2048-verify` (PKCS#1 v1.5 SHA-256, as
/// `openssl speed rsa2048`), `key-p256-generate` and `key-rsa2048-generate` (`SecKeyCreateRandomKey`, not
/// stored), and `key-returnref-lookup`: `SecItemCopyMatching` of a stored P-256 key by application tag with
/// `kSecReturnRef`, among the filled keychain's items.
enum KeyBenchmarks: BenchmarkSuite {
    static let name = "keys"
    static let warmUp = 50
    /// RSA key generation takes around a hundred milliseconds: fewer samples.
    static let rsaGenerationSamples = 20

    static func run(_ context: inout BenchmarkContext, on keychain: FilledKeychain) throws {
        LatchkeySecurity.useStore(keychain.store)
        defer { LatchkeySecurity.useStore(nil) }
        let samples = context.options.samples
        let digest = Data(repeating: 0xA5, count: 32) as CFData
        let ecKey = try generate(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let rsaKey = try generate(kSecAttrKeyTypeRSA, 2048)
        for (op, key, algorithm) in [
            ("key-p256", ecKey, kSecKeyAlgorithmECDSASignatureDigestX962SHA256),
            ("key-rsa2048", rsaKey, kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256),
        ] {
            let publicKey = try require(SecKeyCopyPublicKey(key), "SecKeyCopyPublicKey")
            let signature = try require(SecKeyCreateSignature(key, algorithm, digest, nil), "SecKeyCreateSignature")
            if context.options.includes(op + "-sign") {
                context.progress("\(name): \(op)-sign")
                for _ in 0..<warmUp { _ = SecKeyCreateSignature(key, algorithm, digest, nil) }
                let measurement = try context.measure(samples) { _ in
                    _ = try require(SecKeyCreateSignature(key, algorithm, digest, nil), "SecKeyCreateSignature")
                }
                context.report.add(op + "-sign", items: keychain.items, measurement)
            }
            if context.options.includes(op + "-verify") {
                context.progress("\(name): \(op)-verify")
                let measurement = try context.measure(samples) { _ in
                    guard SecKeyVerifySignature(publicKey, algorithm, digest, signature, nil) else {
                        throw BenchmarkFailure("SecKeyVerifySignature rejected a valid signature")
                    }
                }
                context.report.add(op + "-verify", items: keychain.items, measurement)
            }
        }
        for (op, type, size, count) in [
            ("key-p256-generate", kSecAttrKeyTypeECSECPrimeRandom, 256, samples),
            ("key-rsa2048-generate", kSecAttrKeyTypeRSA, 2048, min(samples, rsaGenerationSamples)),
        ] where context.options.includes(op) {
            context.progress("\(name): \(op)")
            let measurement = try context.measure(count) { _ in _ = try generate(type, size) }
            context.report.add(op, items: keychain.items, measurement)
        }
        if context.options.includes("key-returnref-lookup") {
            context.progress("\(name): key-returnref-lookup")
            let tag = Data("bench.key.lookup".utf8)
            let stored: [String: Any] = [
                kSecValueRef as String: ecKey, kSecAttrApplicationTag as String: tag,
            ]
            let status = SecItemAdd(stored as CFDictionary, nil)
            guard status == errSecSuccess || status == errSecDuplicateItem else {
                throw BenchmarkFailure("SecItemAdd of the key returned OSStatus \(status)")
            }
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecReturnRef as String: true,
            ]
            func lookup() throws {
                var result: CFTypeRef?
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                guard status == errSecSuccess, result is SecKey else {
                    throw BenchmarkFailure("SecItemCopyMatching(kSecReturnRef) returned OSStatus \(status)")
                }
            }
            for _ in 0..<warmUp { try lookup() }
            let measurement = try context.measure(samples) { _ in try lookup() }
            context.report.add("key-returnref-lookup", items: keychain.items, measurement)
            SecItemDelete([kSecValueRef as String: ecKey] as CFDictionary)
        }
    }

    private static func generate(_ type: CFString, _ size: Int) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: type, kSecAttrKeySizeInBits as String: size]
        guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
            throw BenchmarkFailure("SecKeyCreateRandomKey failed: \(String(describing: error?.takeRetainedValue()))")
        }
        return key
    }

    private static func require<T>(_ value: T?, _ call: String) throws -> T {
        guard let value else { throw BenchmarkFailure("\(call) returned nil") }
        return value
    }
}
