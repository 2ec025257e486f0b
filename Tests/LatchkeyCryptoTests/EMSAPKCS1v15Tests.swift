import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `EMSAPKCS1v15`: the DigestInfo headers printed in RFC 8017 §9.2 note 1, and signatures of
/// "PKCS1 known answer" made by Python `cryptography` 48 (OpenSSL) with the fixed `TestKeys` RSA key
/// (`key.sign(message, padding.PKCS1v15(), h)`), which the deterministic encoding must reproduce byte for byte.
struct EMSAPKCS1v15Tests {
    static let message = Array("PKCS1 known answer".utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let hash: HashAlgorithm
        let digestInfoPrefix: [UInt8]
        let signature: [UInt8]
        var testDescription: String { "\(hash)" }
    }

    static let cases: [Case] = [
        Case(
            hash: .sha1,
            digestInfoPrefix: hex("3021300906052b0e03021a05000414"),
            signature: hex(
                """
                932f492aad22a31f317f3e2cfa7cea7058f415ae8d768f334960e96ee3aad6793fc8a47d08c5424286a9215f5faf8968
                a12b4ec691983a865b1d1b1d92830d95a9b16e6a2bf6d7b65ec1d024e0a414dd487f030f46b8f504f987527df727383d
                983838516f282d64b891fc7e7a5beee1235de109586829cf382e7c23517ceeaee5e42e26e0c9f62d7c472d7667d367f6
                6e45951a4cb378a33e00c6ab314b814eb1f5e659b38377a0acc59711c56cc281ae34ec2ae65dd07c9913f4449c49062b
                465c91d5c3b76d1139946aec8242d1efbdad42b797f342cc4b1164dec990455f811e154c6e90925fb9d9e587c3fc2587
                516bbffba836b0c86031dd69900c2c9b
                """
            )
        ),
        Case(
            hash: .sha224,
            digestInfoPrefix: hex("302d300d06096086480165030402040500041c"),
            signature: hex(
                """
                b8053b5f695cb3c8fb1939baedee63efe2a6711de1ad76513504b8ed17ee7fb13517dc3f6b4e41da9b523b9c91e5a25c
                79b4c8f8f5fc354ba33538b704971a0841ac4954ef49d55d12e85a0116839717950a749e442fe2763c4a66c2a866de68
                9891ea354f09eab24436d2f8b50139b52f1b9de4a136a93821feec75036a44e9e59ddde9b250ed2a998d2492b10e1ecf
                5c8d5390206d224f5fcd728b960eab361c8eeefd7b2138cff33f7de6af95b26b7772255fc66a0532a8d7724c69157ed9
                62a6982b539c3afedcca51aaf966ceacc48c3da3c9fdb46abba8edd17d1f4c2f05ab80a71b6fd2824d0c71f16a6d397a
                b293d0a17fd647a878f77129905b2426
                """
            )
        ),
        Case(
            hash: .sha256,
            digestInfoPrefix: hex("3031300d060960864801650304020105000420"),
            signature: hex(
                """
                2d7dcf982c44d51718012850faf92713ca80f1853b9a1e16d35a35607be56de7eeaa64f0c1a16742466c4766b353ccf2
                4b6c35a3a39cb5302f0053a34afae93eb1f4d4380fe231bbd0881656e92d2a23452875ec722365cd5b5a9612f420cb18
                72ad57910e2d3d4d7999a447ba8f57258306aed1541741584ce029aa9dd8b4222db0e4807b5a4e1604fad109b2b58a0f
                02401b4e33ccee4149f08472ac930da167457834d4dd0d298b451f2b111a162340f521bf6155d798cad7e011534014e8
                7e37c1972e2c9513a97eddbaea8e6b85d7668b5c89b366e2f48b9d9c5fe51cf097b7951d7b819bb380ac73466e311804
                257d0eb030bf7a99e611fc67e3dcbbc9
                """
            )
        ),
        Case(
            hash: .sha384,
            digestInfoPrefix: hex("3041300d060960864801650304020205000430"),
            signature: hex(
                """
                a21456dd092eb91035ca6b79a2e4dcd17d7bf837a304667e9620ff65fc299b230adb624f116caa32f8fe4ced37f27891
                90e43f8f5ded8984232e6042ab79b1623395775cb71f1986f606136d7d02c40256551744f78ce4200e9187e809a2228e
                a548f228129b5e6cf888cd44c5a9fccb0c1735818fbc8bc8f1fc6748db63b21f2eea0ab84b4f0f11114cdba2242048d0
                751df8918de2026da9c7f0258580d8addf0cfeac00eefa7e2f3d565759fa3ed5491d7be51b92676fd886e4d1e549b4e3
                2f24895e386b42e733cdea8239ec2019e1d448e4149d437b8ea2dfd802d895fec37eb0098c1c8a4425dfe15a2fa18377
                b6cf866042a3479c894ff477d3777d86
                """
            )
        ),
        Case(
            hash: .sha512,
            digestInfoPrefix: hex("3051300d060960864801650304020305000440"),
            signature: hex(
                """
                2cd091b736e8c68bfc28b02c2f7b70ea62112ea8d166964ac298e06cb1c95f641ca03d5bc996bec517851503c21b87ea
                c367ced10641ab3a2baa1155c706d6d26a5ecc332db4ddb79bd753fc25d7e794d88c68a5426e96e7e5194412f8f83bf2
                bfee385493aa52e32ac516a2bfe2469df68c7110131b1408813e159876b41bf207de99da5918e4998771fd583d04a658
                05d0025e6de7a353970977799c663142052f972c42df683b0e643add917a7cfa644b9ac0c15a5c8a72739fb915e9ddf1
                30a2035fc3bce0ac53e97e4f1aef515657a8cb66f7f7cb6a9e2906eb033d342bdf25904d16330abd3784d11056ad181c
                7b5232fa8a8ca79831bece1de5d90e1e
                """
            )
        ),
    ]

    @Test(arguments: cases)
    func digestInfoPrefixesAreTheRFC8017Values(_ test: Case) {
        #expect(EMSAPKCS1v15.digestInfoPrefix(test.hash) == test.digestInfoPrefix)
    }

    @Test(arguments: cases)
    func signatureIsPythonCryptographysByteForByte(_ test: Case) throws {
        let digest = test.hash.digest(Self.message)
        let encoded = try EMSAPKCS1v15.encode(digest, hash: test.hash, byteCount: 256)
        let key = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        #expect(try key.apply(encoded) == test.signature)
        let publicKey = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        #expect(try publicKey.apply(test.signature) == encoded)
    }

    @Test func encodingIsPaddingThenTheDigestInfo() throws {
        let digest = HashAlgorithm.sha256.digest(Self.message)
        let encoded = try EMSAPKCS1v15.encode(digest, hash: .sha256, byteCount: 256)
        let payloadLength = 19 + 32
        #expect(encoded.count == 256)
        #expect(Array(encoded.prefix(2)) == [0x00, 0x01])
        #expect(encoded[2..<(256 - payloadLength - 1)].allSatisfy { $0 == 0xFF })
        #expect(encoded[256 - payloadLength - 1] == 0x00)
        #expect(Array(encoded.suffix(payloadLength)) == EMSAPKCS1v15.digestInfoPrefix(.sha256) + digest)
        // Without a hash the bytes are the payload as they are.
        let bare = try EMSAPKCS1v15.encode([1, 2, 3], hash: nil, byteCount: 16)
        #expect(bare == [0x00, 0x01] + [UInt8](repeating: 0xFF, count: 10) + [0x00, 1, 2, 3])
    }

    @Test func rejectsPayloadsLeavingLessThanEightBytesOfPadding() throws {
        #expect(try EMSAPKCS1v15.encode([UInt8](repeating: 7, count: 245), hash: nil, byteCount: 256).count == 256)
        expectInvalidParameters {
            try EMSAPKCS1v15.encode([UInt8](repeating: 7, count: 246), hash: nil, byteCount: 256)
        }
        expectInvalidParameters {
            try EMSAPKCS1v15.encode(HashAlgorithm.sha512.digest([]), hash: .sha512, byteCount: 64)
        }
    }
}
