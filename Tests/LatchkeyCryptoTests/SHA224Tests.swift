import Crypto
import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `SHA224`: the FIPS 180-4 examples (NIST CSRC "SHA224.pdf" and the one-million-"a"
/// vector), the padding boundaries (expected values from Python's `hashlib.sha224` over
/// `bytes(i % 251 for i in range(n))`), and HMAC-SHA-224 from RFC 4231 through swift-crypto's generic `HMAC`.
struct SHA224Tests {
    @Test func hashesTheFIPS180Examples() {
        #expect(hash(Array("abc".utf8)) == hex("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"))
        #expect(
            hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == hex("75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525")
        )
        #expect(
            hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == hex("20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67")
        )
        #expect(hash([]) == hex("d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"))
    }

    struct PaddingCase: Sendable, CustomTestStringConvertible {
        let length: Int
        let digest: String
        var testDescription: String { "\(length) bytes" }
    }

    @Test(arguments: [
        PaddingCase(length: 55, digest: "8991dfba74284e04dc7581c7c3e4068ff6cb7a63733361429834bb56"),
        PaddingCase(length: 56, digest: "2b2cd637c16ad7290bb067ad7d8fd04e204fa43a84366afc7130f4ef"),
        PaddingCase(length: 57, digest: "e87f5bc938c3b981c197d4b163c635a5049fac81c4c6467e1251be48"),
        PaddingCase(length: 63, digest: "049e8dd7eab3378ce9f823bfb569e5b270235d4b7f9623606971998f"),
        PaddingCase(length: 64, digest: "c37b88a3522dbf7ac30d1c68ea397ac11d4773571aed01ddab73531e"),
        PaddingCase(length: 65, digest: "114b5fd665736a96585c5d5837d35250aed73c725252cbf7f8b121f6"),
        PaddingCase(length: 119, digest: "762f18c0df65c3d0ea64126c8a6e51db4425e76d4d969ed0f83899be"),
        PaddingCase(length: 120, digest: "d022deb78772a77e8b91d68f90ca1f636e8fe047ae219434ced18eef"),
        PaddingCase(length: 128, digest: "67d88da33fd632d8742424791dface672ff59d597fe38b3f2a998386"),
        PaddingCase(length: 1000, digest: "c182669a7f6629dc7fd8a9198f15af15adbbaeffa1842e854f681357"),
    ])
    func hashesEveryPaddingBoundary(_ test: PaddingCase) {
        #expect(hash(pattern(test.length)) == hex(test.digest))
    }

    @Test func incrementalUpdatesInAnyChunksEqualOneShot() {
        let message = pattern(1000)
        for chunk in [1, 3, 63, 64, 65, 200] {
            var hasher = SHA224()
            for start in stride(from: 0, to: message.count, by: chunk) {
                hasher.update(data: message[start..<min(start + chunk, message.count)])
            }
            #expect(Array(hasher.finalize()) == hash(message), "chunks of \(chunk)")
        }
    }

    @Test func finalizeLeavesTheHasherUsable() {
        var hasher = SHA224()
        hasher.update(data: Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(data: Array("c".utf8))
        #expect(Array(hasher.finalize()) == hex("23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"))
    }

    @Test func digestsAreTwentyEightBytesAndCompareByValue() {
        let first = SHA224.hash(data: Array("abc".utf8))
        let second = SHA224.hash(data: Array("abc".utf8))
        #expect(SHA224Digest.byteCount == 28 && Array(first).count == 28)
        #expect(first == second && first.hashValue == second.hashValue)
        #expect(first != SHA224.hash(data: Array("abd".utf8)))
    }

    /// RFC 4231 §4.2 (test case 1), §4.3 (test case 2) and §4.7 (test case 6, a key longer than the block).
    @Test func hmacOverSHA224MatchesRFC4231() {
        func mac(_ key: [UInt8], _ data: String) -> [UInt8] {
            Array(HMAC<SHA224>.authenticationCode(for: Array(data.utf8), using: SymmetricKey(data: key)))
        }
        #expect(
            mac([UInt8](repeating: 0x0b, count: 20), "Hi There")
                == hex("896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22")
        )
        #expect(
            mac(Array("Jefe".utf8), "what do ya want for nothing?")
                == hex("a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44")
        )
        #expect(
            mac([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First")
                == hex("95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e")
        )
    }

    private func hash(_ message: [UInt8]) -> [UInt8] {
        Array(SHA224.hash(data: message))
    }

    private func pattern(_ length: Int) -> [UInt8] {
        (0..<length).map { UInt8($0 % 251) }
    }
}
