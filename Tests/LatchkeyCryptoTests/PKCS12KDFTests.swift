import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `PKCS12KDF` (RFC 7292 Appendix B).
///
/// The SHA-1 "smeg"/"queeg" vectors are the classic ones shared by the OpenSSL, Bouncy Castle and PyCryptodome
/// test suites. The others come from OpenSSL 3.0's own implementation, called through Python `ctypes`:
/// ```python
/// lib = ctypes.CDLL("libcrypto.so.3")
/// password = text.encode("utf-16-be") + b"\0\0"   # or b"" for a NULL password
/// out = ctypes.create_string_buffer(n)
/// lib.PKCS12_key_gen_uni(password, len(password), salt, len(salt), id, iterations, n, out, lib.EVP_sha256())
/// ```
struct PKCS12KDFTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let hash: HashAlgorithm
        let password: [UInt8]
        let salt: [UInt8]
        let purpose: PKCS12KDF.Purpose
        let iterations: Int
        let expected: [UInt8]
        var testDescription: String { "\(hash) ID \(purpose.rawValue), \(iterations) rounds, \(expected.count) bytes" }
    }

    static let cases = [
        Case(
            hash: .sha1,
            password: PKCS12KDF.bmpPassword("smeg"),
            salt: hex("0A58CF64530D823F"),
            purpose: .encryptionKey,
            iterations: 1,
            expected: hex("8aaae6297b6cb04642ab5b077851284eb7128f1a2a7fbca3")
        ),
        Case(
            hash: .sha1,
            password: PKCS12KDF.bmpPassword("smeg"),
            salt: hex("0A58CF64530D823F"),
            purpose: .iv,
            iterations: 1,
            expected: hex("79993dfe048d3b76")
        ),
        Case(
            hash: .sha1,
            password: PKCS12KDF.bmpPassword("queeg"),
            salt: hex("1682C0FC5B3F7EC5"),
            purpose: .encryptionKey,
            iterations: 1000,
            expected: hex("483dd6e919d7de2e8e648ba8f862f3fbfbdc2bcb2c02957f")
        ),
        Case(
            hash: .sha256,
            password: PKCS12KDF.bmpPassword("Ünïcode ✓"),
            salt: hex("f00dfeedf00dfeed"),
            purpose: .macKey,
            iterations: 2048,
            expected: hex("5ff3df0fa9c6baa0419d63bda092b51df82ba6a68ca79a2feae47301c0788ee7")
        ),
        Case(
            hash: .sha512,
            password: PKCS12KDF.bmpPassword("queeg"),
            salt: hex("1682C0FC5B3F7EC5"),
            purpose: .encryptionKey,
            iterations: 3,
            expected: hex(
                """
                84d0a96b0aecc491b5ea34bbf70d3c6086a87d0cf3092d0fe107b4e984e3b2eb55bea7fe896c8851736241a3d2fdb0f6
                887118b4238069e134f33d9f74ae5e2756ea2109f11b21b768f77a27864816c2397375f831f469abbf7ddfff7a02f4db
                d55411ee
                """
            )
        ),
        Case(
            hash: .sha224,
            password: PKCS12KDF.bmpPassword(""),
            salt: [0x01],
            purpose: .iv,
            iterations: 1,
            expected: hex("843125cb497013d2fd48b5ce0aa088781207c4a72cd4a7199aeb9549672c09c0eebccf4678323849")
        ),
        Case(
            hash: .sha1,
            password: [],
            salt: hex("0102030405060708"),
            purpose: .macKey,
            iterations: 1,
            expected: hex("f75f1048aeb05671b6c6265883b42c0dedbf93d8")
        ),
    ]

    @Test(arguments: cases)
    func derivesTheOpenSSLValues(_ test: Case) {
        let derived = PKCS12KDF.derive(
            hash: test.hash,
            password: test.password,
            salt: test.salt,
            iterations: test.iterations,
            purpose: test.purpose,
            count: test.expected.count
        )
        #expect(derived == test.expected)
    }

    @Test func passwordsAreNulTerminatedBigEndianUTF16() {
        #expect(PKCS12KDF.bmpPassword("") == [0, 0])
        #expect(PKCS12KDF.bmpPassword("smeg") == [0, 0x73, 0, 0x6d, 0, 0x65, 0, 0x67, 0, 0])
        #expect(PKCS12KDF.bmpPassword("é✓") == [0, 0xe9, 0x27, 0x13, 0, 0])
        // Outside the BMP: a surrogate pair, as Java and OpenSSL write it.
        #expect(PKCS12KDF.bmpPassword("🔑") == [0xd8, 0x3d, 0xdd, 0x11, 0, 0])
    }
}
