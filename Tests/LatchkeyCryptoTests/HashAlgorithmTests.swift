import Crypto
import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `HashAlgorithm`: the FIPS 180-4 "abc" examples and RFC 4231 test case 2 (HMAC with key
/// "Jefe"; RFC 2202 for HMAC-SHA-1).
struct HashAlgorithmTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let hash: HashAlgorithm
        let abc: String
        let jefe: String
        var testDescription: String { "\(hash)" }
    }

    static let cases: [Case] = [
        Case(
            hash: .sha1,
            abc: "a9993e364706816aba3e25717850c26c9cd0d89d",
            jefe: "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
        ),
        Case(
            hash: .sha224,
            abc: "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            jefe: "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44"
        ),
        Case(
            hash: .sha256,
            abc: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            jefe: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        Case(
            hash: .sha384,
            abc: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
                + "8086072ba1e7cc2358baeca134c825a7",
            jefe: "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
                + "8e2240ca5e69e2c78b3239ecfab21649"
        ),
        Case(
            hash: .sha512,
            abc: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            jefe: "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
    ]

    @Test(arguments: cases)
    func digestsMatchTheFIPS180Examples(_ test: Case) {
        #expect(test.hash.digest(Array("abc".utf8)) == hex(test.abc))
        #expect(test.hash.digest(Array("a".utf8), [], Array("bc".utf8)) == hex(test.abc))
        #expect(test.hash.byteCount == hex(test.abc).count)
    }

    @Test(arguments: cases)
    func authenticationCodesMatchRFC4231(_ test: Case) {
        let mac = test.hash.authenticationCode(
            for: Array("what do ya want for nothing?".utf8),
            using: SymmetricKey(data: Array("Jefe".utf8))
        )
        #expect(mac == hex(test.jefe))
    }
}
