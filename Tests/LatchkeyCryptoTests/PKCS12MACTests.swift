import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `PKCS12MAC` over "authenticated safe bytes", password "secret", salt `5a5a5a5a5a5a5a5a`,
/// 2048 iterations. Expected values from Python: the classic MAC as `hmac.new(key, data, h)` with `key` from
/// OpenSSL's `PKCS12_key_gen_uni` (ID 3, see `PKCS12KDFTests`); PBMAC1 (RFC 9579) as
/// `hmac.new(hashlib.pbkdf2_hmac("sha256", b"secret", salt, 2048, 32), data, hashlib.sha512)`.
struct PKCS12MACTests {
    static let data = Array("authenticated safe bytes".utf8)
    static let salt = hex("5a5a5a5a5a5a5a5a")

    @Test(arguments: [
        (HashAlgorithm.sha1, hex("09229298d9541faa83b6150f1555aba975311f25")),
        (.sha256, hex("1b292dad4ea128a3458597fca24f1780745edb491963a7cd00db7027b45d8fb1")),
    ])
    func classicMACMatchesOpenSSLsKeyAndHMAC(_ hash: HashAlgorithm, _ expected: [UInt8]) {
        let password = PKCS12KDF.bmpPassword("secret")
        let mac = PKCS12MAC.authenticationCode(
            for: Self.data,
            hash: hash,
            password: password,
            salt: Self.salt,
            iterations: 2048
        )
        #expect(mac == expected)
        #expect(
            PKCS12MAC.isValid(
                expected,
                for: Self.data,
                hash: hash,
                password: password,
                salt: Self.salt,
                iterations: 2048
            )
        )
        let wrong = PKCS12KDF.bmpPassword("Secret")
        #expect(
            !PKCS12MAC.isValid(expected, for: Self.data, hash: hash, password: wrong, salt: Self.salt, iterations: 2048)
        )
        #expect(
            !PKCS12MAC.isValid(
                expected,
                for: Self.data,
                hash: hash,
                password: password,
                salt: Self.salt,
                iterations: 2047
            )
        )
        #expect(
            !PKCS12MAC.isValid(
                Array(expected.dropLast()),
                for: Self.data,
                hash: hash,
                password: password,
                salt: Self.salt,
                iterations: 2048
            )
        )
    }

    @Test func pbmac1MatchesPBKDF2ThenHMAC() throws {
        let expected = hex(
            """
            96587cd0ee588305c5e5477178a47bda4ac587c0586b72596f01a0287c27d11f92aed742e002b155da961faf26c5f2c2
            a6c7bbe43f5cdad6c422c8f9ff287803
            """
        )
        let password = Array("secret".utf8)
        let mac = try PKCS12MAC.pbmac1AuthenticationCode(
            for: Self.data,
            password: password,
            salt: Self.salt,
            iterations: 2048,
            kdfHash: .sha256,
            keyByteCount: 32,
            macHash: .sha512
        )
        #expect(mac == expected)
        #expect(
            try PKCS12MAC.isValidPBMAC1(
                expected,
                for: Self.data,
                password: password,
                salt: Self.salt,
                iterations: 2048,
                kdfHash: .sha256,
                keyByteCount: 32,
                macHash: .sha512
            )
        )
        #expect(
            try !PKCS12MAC.isValidPBMAC1(
                expected,
                for: Self.data + [0],
                password: password,
                salt: Self.salt,
                iterations: 2048,
                kdfHash: .sha256,
                keyByteCount: 32,
                macHash: .sha512
            )
        )
        expectInvalidParameters {
            try PKCS12MAC.pbmac1AuthenticationCode(
                for: Self.data,
                password: password,
                salt: Self.salt,
                iterations: 0,
                kdfHash: .sha256,
                keyByteCount: 32,
                macHash: .sha512
            )
        }
    }
}
