import Crypto
import Foundation
import LatchkeyCrypto
import Testing
import _CryptoExtras

struct ScryptParametersTests {
    /// RFC 7914 §12, second vector: P = "password", S = "NaCl", N = 1024, r = 8, p = 16, dkLen = 64.
    static let rfc7914Vector2 = Data(
        hex: "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
            + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
    )

    @Test func scryptBackendMatchesRFC7914Vector() throws {
        let derived = try KDF.Scrypt.deriveKey(
            from: Data("password".utf8),
            salt: Data("NaCl".utf8),
            outputByteCount: 64,
            rounds: 1024,
            blockSize: 8,
            parallelism: 16
        )
        #expect(derived.withUnsafeBytes { Data($0) } == Self.rfc7914Vector2)
    }

    /// The RFC's salts are shorter than the 16 bytes a slot requires, so the slot KDF itself is pinned by
    /// vectors computed with an independent implementation (OpenSSL's scrypt via Python's `hashlib.scrypt`).
    @Test(
        arguments: [
            (
                "password", "NaClNaClNaClNaCl", UInt32(16),
                "aee7e5612afb24ac1cc8fe2d68580f04923b9ea9b0455be3a27b6141bd8c4822"
            ),
            (
                "pleaseletmein", "SodiumChloride-16", UInt32(1),
                "188f05344f3d65aaaabf90e978b4601e4298d56a2b97a0744648b8fc02187349"
            ),
        ]
    )
    func deriveKeyMatchesKnownAnswer(passphrase: String, salt: String, parallelism: UInt32, expectedHex: String) throws
    {
        let parameters = ScryptParameters(logN: 10, blockSize: 8, parallelism: parallelism, salt: Data(salt.utf8))
        let key = try parameters.deriveKey(from: SecretData(string: passphrase))
        #expect(key.withUnsafeBytes { Data($0) } == Data(hex: expectedHex))
    }

    @Test func deriveKeyIsTheFirst32BytesOfTheScryptOutput() throws {
        let salt = Data("NaClNaClNaClNaCl".utf8)
        let long = try KDF.Scrypt.deriveKey(
            from: Data("password".utf8),
            salt: salt,
            outputByteCount: 64,
            rounds: 1024,
            blockSize: 8,
            parallelism: 16
        )
        let key = try ScryptParameters(logN: 10, blockSize: 8, parallelism: 16, salt: salt)
            .deriveKey(from: SecretData(string: "password"))
        #expect(key.bitCount == 256)
        #expect(key.withUnsafeBytes { Data($0) } == long.withUnsafeBytes { Data($0.prefix(32)) })
    }

    @Test func differentSaltsGiveDifferentKeys() throws {
        let passphrase = SecretData(string: "correct horse")
        let first = try ScryptParameters.testing().deriveKey(from: passphrase)
        let second = try ScryptParameters.testing().deriveKey(from: passphrase)
        #expect(first != second)
    }

    @Test func rfcSaltShorterThan16BytesIsRejected() {
        let parameters = ScryptParameters(logN: 10, blockSize: 8, parallelism: 16, salt: Data("NaCl".utf8))
        #expect(throws: LatchkeyCrypto.CryptoError.self) {
            try parameters.deriveKey(from: SecretData(string: "password"))
        }
    }

    @Test func encodingIsLogNThenBigEndianBlockSizeAndParallelismThenSalt() {
        let salt = Data((0..<32).map { UInt8($0) })
        let parameters = ScryptParameters(logN: 17, blockSize: 8, parallelism: 1, salt: salt)
        #expect(parameters.encoded == Data([17, 0, 0, 0, 8, 0, 0, 0, 1]) + salt)
    }

    @Test(arguments: [ScryptParameters.standard(), ScryptParameters.testing()])
    func encodeThenDecodeRoundTrips(parameters: ScryptParameters) throws {
        #expect(try ScryptParameters(encoded: parameters.encoded) == parameters)
    }

    @Test func standardCostIsTheInteractiveLoginStrength() {
        let standard = ScryptParameters.standard()
        #expect(standard.logN == 17)
        #expect(standard.blockSize == 8)
        #expect(standard.parallelism == 1)
        #expect(standard.salt.count == 32)
        #expect(standard.memoryBytes == 128 << 20)
    }

    /// Parameters a damaged or hostile file could carry; each must be refused before any work is done.
    @Test(
        arguments: [
            ("log2(N) = 40", UInt8(40), UInt32(8), UInt32(1), 32),
            ("log2(N) = 0", UInt8(0), UInt32(8), UInt32(1), 32),
            ("log2(N) = 255", UInt8(255), UInt32(8), UInt32(1), 32),
            ("r = 0", UInt8(10), UInt32(0), UInt32(1), 32),
            ("r = 2^32 - 1", UInt8(10), UInt32.max, UInt32(1), 32),
            ("p = 0", UInt8(10), UInt32(8), UInt32(0), 32),
            ("p = 17", UInt8(10), UInt32(8), UInt32(17), 32),
            ("4 GiB of memory", UInt8(22), UInt32(8), UInt32(1), 32),
            ("2 GiB of memory", UInt8(15), UInt32(32), UInt32(16), 32),
            ("short salt", UInt8(10), UInt32(8), UInt32(1), 15),
        ]
    )
    func hostileParametersAreRejected(
        _ name: String,
        logN: UInt8,
        blockSize: UInt32,
        parallelism: UInt32,
        saltLength: Int
    ) {
        let parameters = ScryptParameters(
            logN: logN,
            blockSize: blockSize,
            parallelism: parallelism,
            salt: Data(repeating: 7, count: saltLength)
        )
        #expect(throws: LatchkeyCrypto.CryptoError.self, "\(name) passes validation") { try parameters.validate() }
        #expect(throws: LatchkeyCrypto.CryptoError.self, "\(name) decodes") {
            try ScryptParameters(encoded: parameters.encoded)
        }
        #expect(throws: LatchkeyCrypto.CryptoError.self, "\(name) derives a key") {
            try parameters.deriveKey(from: SecretData(string: "password"))
        }
    }

    @Test func hostileErrorIsInvalidParametersNamingTheBound() {
        let parameters = ScryptParameters(logN: 40, blockSize: 8, parallelism: 1, salt: Data(repeating: 0, count: 32))
        #expect(throws: LatchkeyCrypto.CryptoError.invalidParameters("log2(N) = 40 outside 1...22")) {
            try parameters.validate()
        }
    }

    @Test(arguments: [0, 1, 9, 24])
    func truncatedEncodingIsRejected(length: Int) {
        let encoded = ScryptParameters.testing().encoded.prefix(length)
        #expect(throws: LatchkeyCrypto.CryptoError.self) { try ScryptParameters(encoded: Data(encoded)) }
    }
}
