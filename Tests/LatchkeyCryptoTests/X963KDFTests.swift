import Crypto
import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `X963KDF`.
///
/// swift-crypto derives X9.63 keys only from an ECDH `SharedSecret` (its byte-level `ANSIKDFx963` is SPI), so
/// the published vectors with a given `Z` (NIST CAVP SP 800-135 `ansx963_2001.rsp`) cannot be fed to it; the
/// vectors here start from the ECDH of the fixed `TestKeys` instead. Expected values from Python
/// `cryptography` 48:
/// ```python
/// z = ephemeral.exchange(ec.ECDH(), recipient.public_key())
/// X963KDF(algorithm=hashes.SHA256(), length=100, sharedinfo=b"Latchkey X9.63").derive(z).hex()
/// ```
struct X963KDFTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let hash: HashAlgorithm
        let withoutSharedInfo: [UInt8]
        let withSharedInfo: [UInt8]
        var testDescription: String { "\(hash)" }
    }

    static let cases: [Case] = [
        Case(
            hash: .sha1,
            withoutSharedInfo: hex("3c909d2143c97dc0e9906f1eb6b0ac3a44cc82980b87bb2483e293f9fb287f77"),
            withSharedInfo: hex(
                """
                6609b7c44bca1547f22b9b6cb51fcfe042013a632feb491b12987e5f7ee37b2e674639266bd6a117000eec849fce1f8f
                3343f361d02ddc6f215244166fb8e55175439eeaa2fe06b45f146c92e7c29b1a7d31e94b902e6ff5289a894fcc5a9833
                6eadc7ec
                """
            )
        ),
        Case(
            hash: .sha224,
            withoutSharedInfo: hex("7260b9cfae7240612a314f0d04a6bd75ae5fe1e70db2847362f2dcaf2a3e151d"),
            withSharedInfo: hex(
                """
                bb1de86e4be6d417aad8428bd867e7af37ef5b64f3c99fb418f39d1ac6d7d0de3e2b9f3fccf80a5573062712696f2c13
                be14a2d2a2ed0ccb82d0560121f964763e63fb41dc6d160dbfb173a2d100edb5bbdefb205215323d4f6b6491fd011562
                ce840d5f
                """
            )
        ),
        Case(
            hash: .sha256,
            withoutSharedInfo: hex("5bea0abac2d1459df11395f9520d013e8e9128ebdf9ab84fb3de7e4ea658b901"),
            withSharedInfo: hex(
                """
                47b4c73162b068b6cdc8180d05e6ace19f2e3b0235bd77dbb926f757aaf9d121ad539d8a7c894d0bb695dd1646f51239
                371593fb464b2e7ede88884193c4d9485ede45261ef3f7096d3f0a37393ef384e4f5777bbdda422c955739aadb586411
                a955f39f
                """
            )
        ),
        Case(
            hash: .sha384,
            withoutSharedInfo: hex("5d2bf7da1711a5ee7dba7b74048249f0200653e3cd918fa1cac012569c179f2b"),
            withSharedInfo: hex(
                """
                c04ef263a70083bedfcae16841222303fe44d78a2147de01acf6818122678d070a29621789e332e1f2f8c152d43af823
                6fc3bc2a8aac1961ef03a067eaf4b98b697133d74afc12089f6f63b373a5fc31befa6bdeb27061de1a613d063473e287
                c4df36ce
                """
            )
        ),
        Case(
            hash: .sha512,
            withoutSharedInfo: hex("868c1c710363ff97ecc750a2e2af4eeaee79d5d00a5b59824f65cd71f3707725"),
            withSharedInfo: hex(
                """
                8b257e6afeca96502052d321aa1bf3edb106841663999d0c7e930f388ebd414156c1d80ef0deeddb7341f174ac75fcc5
                41a53d48ee4d48cac455c085f193677d4b9d49df3e4760928a9899bcb572a308836e8c0553a35fb31da3318db311e69a
                4585b84d
                """
            )
        ),
    ]

    @Test(arguments: cases)
    func derivesThePythonCryptographyVectors(_ test: Case) throws {
        let secret = try p256Secret()
        let short = try X963KDF.deriveKey(hash: test.hash, secret: secret, sharedInfo: [UInt8](), outputByteCount: 32)
        #expect(bytes(short) == test.withoutSharedInfo)
        let long = try X963KDF.deriveKey(
            hash: test.hash,
            secret: secret,
            sharedInfo: Array("Latchkey X9.63".utf8),
            outputByteCount: 100
        )
        #expect(bytes(long) == test.withSharedInfo)
        // Every prefix of the output is the output of the shorter request.
        let prefix = try X963KDF.deriveKey(
            hash: test.hash,
            secret: secret,
            sharedInfo: Array("Latchkey X9.63".utf8),
            outputByteCount: 7
        )
        #expect(bytes(prefix) == Array(test.withSharedInfo.prefix(7)))
    }

    @Test func derivesFromAP521SecretWithBinarySharedInfo() throws {
        let recipient = try ECDHPrivateKey(x963Representation: TestKeys.p521Recipient)
        let ephemeral = try ECDHPrivateKey(x963Representation: TestKeys.p521Ephemeral)
        let secret = try recipient.sharedSecret(with: ephemeral.publicKeyX963Representation)
        let key = try X963KDF.deriveKey(hash: .sha512, secret: secret, sharedInfo: [0x00, 0xff], outputByteCount: 16)
        #expect(bytes(key) == hex("ba2e60d3d4a4ddbb71b8fdd223e61f61"))
    }

    @Test func rejectsOutputSizesOutsideTheAcceptedRange() throws {
        let secret = try p256Secret()
        for size in [0, -1, X963KDF.maximumOutputByteCount + 1] {
            expectInvalidParameters {
                try X963KDF.deriveKey(hash: .sha256, secret: secret, sharedInfo: [UInt8](), outputByteCount: size)
            }
        }
    }

    private func p256Secret() throws -> SharedSecret {
        let recipient = try ECDHPrivateKey(x963Representation: TestKeys.p256Recipient)
        let ephemeral = try ECDHPrivateKey(x963Representation: TestKeys.p256Ephemeral)
        return try recipient.sharedSecret(with: ephemeral.publicKeyX963Representation)
    }

    private func bytes(_ key: SymmetricKey) -> [UInt8] {
        key.withUnsafeBytes { Array($0) }
    }
}
