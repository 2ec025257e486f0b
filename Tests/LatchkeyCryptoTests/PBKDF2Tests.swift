import Crypto
import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `PBKDF2`: RFC 7914 §11 (PBKDF2-HMAC-SHA256), RFC 6070 §2 (PBKDF2-HMAC-SHA1), and for
/// SHA-224/384/512 Python's `hashlib.pbkdf2_hmac(h, b"passwd", b"salt", 1000, 40)`.
struct PBKDF2Tests {
    @Test func derivesTheRFC7914Vectors() throws {
        let first = try PBKDF2.deriveKey(
            from: Array("passwd".utf8),
            salt: Array("salt".utf8),
            hash: .sha256,
            iterations: 1,
            outputByteCount: 64
        )
        #expect(
            bytes(first)
                == hex(
                    "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                        + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
                )
        )
        let second = try PBKDF2.deriveKey(
            from: Array("Password".utf8),
            salt: Array("NaCl".utf8),
            hash: .sha256,
            iterations: 80_000,
            outputByteCount: 64
        )
        #expect(
            bytes(second)
                == hex(
                    "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                        + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
                )
        )
    }

    @Test func derivesTheRFC6070Vectors() throws {
        for (iterations, expected) in [
            (1, "0c60c80f961f0e71f3a9b524af6012062fe037a6"), (4096, "4b007901b765489abead49d926f721d065a429c1"),
        ] {
            let key = try PBKDF2.deriveKey(
                from: Array("password".utf8),
                salt: Array("salt".utf8),
                hash: .sha1,
                iterations: iterations,
                outputByteCount: 20
            )
            #expect(bytes(key) == hex(expected))
        }
    }

    @Test(arguments: [
        (HashAlgorithm.sha224, hex("ec4f2f9f9311dd577d9a570953e0f157129fc4d4db9a357097c5088bb1bb576be04719bdec4b342f")),
        (.sha384, hex("940ed57d440f285dbfbb7fd1bdd63c154af960c2167ad3f2aeefadbc01ea3a2568a27316193dbbdc")),
        (.sha512, hex("9b24b69e88dfa45d31e06a6dd20bc963268c0a94924677f76d4b2f02e5a105a7f65fca857a354cb2")),
    ])
    func derivesTheHashlibVectorsForTheOtherHashes(_ hash: HashAlgorithm, _ expected: [UInt8]) throws {
        let key = try PBKDF2.deriveKey(
            from: Array("passwd".utf8),
            salt: Array("salt".utf8),
            hash: hash,
            iterations: 1000,
            outputByteCount: 40
        )
        #expect(bytes(key) == expected)
    }

    @Test func rejectsIterationCountsAndLengthsOutOfRange() {
        let password = Array("password".utf8)
        for (iterations, length) in [(0, 32), (-1, 32), (PBKDF2.maximumIterations + 1, 32), (1, 0), (1, 1025)] {
            expectInvalidParameters {
                try PBKDF2.deriveKey(
                    from: password,
                    salt: [1],
                    hash: .sha256,
                    iterations: iterations,
                    outputByteCount: length
                )
            }
        }
    }

    private func bytes(_ key: SymmetricKey) -> [UInt8] {
        key.withUnsafeBytes { Array($0) }
    }
}
