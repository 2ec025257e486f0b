import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `EMSAPSS` with the fixed `TestKeys` RSA key and the message "PSS known answer".
///
/// The encoded blocks use the salt `a0 a1 … (hLen bytes)`; they were computed in Python from RFC 8017 §9.1.1 and
/// checked independently: Python `cryptography` 48 (OpenSSL) verifies `pow(EM, d, n)` as a PSS signature of the
/// message with `padding.PSS(mgf=padding.MGF1(h), salt_length=hLen)`. The "library" signatures were made by
/// `cryptography`'s own PSS signing (random salt).
struct EMSAPSSTests {
    static let message = Array("PSS known answer".utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let hash: HashAlgorithm
        let salt: [UInt8]
        let encoded: [UInt8]
        let signature: [UInt8]
        let librarySignature: [UInt8]
        var testDescription: String { "\(hash)" }
    }

    static let cases: [Case] = [
        Case(
            hash: .sha224,
            salt: hex("a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babb"),
            encoded: hex(
                """
                5227e5a0308d57a6a855211aec4bc2a8c769c2a068359ef623a39bc8f8d9491365a4b972fa5cec466c44a8c8743428d2
                cf39b63918514b2c72ea330deb01bc5c1330cf04d61bc05005fb0e1e842db31401028a3d1a95f5433a68a4ac903831e9
                b66b8cf1a3cf1b790362ec15cc6acdae1f8cb1948155f2c33d4924492975d1b5e73490e1cea8b6333a55e359e95d3c36
                dd01de4f6fdd90e1d9f168c76cd5f17cb0adc057b9af684ed28d6618cfb698f47224dc49665cf53ca3a83ad099754085
                beba134d231fdac38cf628f54daa2c6dda1564c21ade9c9c2f2b1f12c65bf45ea7708746d0f812696bdf854d5ff439c4
                e9df7b015a8f8c4382657db3973fb0bc
                """
            ),
            signature: hex(
                """
                961a45c5641a5ed7caa49003efe953d5ed81e99387d2d719524cdbc9fe70bffcea6504b28e9539b780bc4666c37e9b7a
                cc0b0e463b23b544230d26409fdb43095cb6b52111846a250ff3088bba6dd36ebaf7dbbffb956a3f309db76beea77b1b
                a88831fd8009b8becf7c992e714961424de49ac03cf1b0fcd9ba3c06be4e97650a57da3b7b89cd15dd921caa410b9b27
                a70696c9afa677ba0cd8c31c1d3d98b31c519dd144e731518b2f336fa62b586b5884f16c689834d7ce459413dfd8da4f
                6125987a52c394338826b0fff4eb04f9a02b8e766c3b66d5282a4c4ca9d663bee708c34565cf97a5aa73928a8bed5e20
                d9ae22d49a608a997a66c839d28f6625
                """
            ),
            librarySignature: hex(
                """
                4436c40da0f8fe75c0ebe4b093435b4aff14ffc736a9304c381f6f35cb0780f240f248efd1052aad1bd43121aab681d8
                49eaddcb49ce19f955f07e6b839e441e35745950675aa72a5724a645e91b473b868dfe46e75c74d048f7439e7251e6a2
                70dfbd551ec49e992f6e7d97f92b8d0029958e60110c88ef48619eae0be4da5a5cced7f1b8f0685eb3e27c72108d1719
                69a88a1697cc19aaa00c78193651c60446cb995b07e309b59dfda4655c444a086e317a898ac23711fce9f76f457c9855
                29fd89f6ff82f1ff97d7d79afdd6bfc2d5024c95dfc201e35212bdc0ba01b8ac5c46b15d893396a46fbfb18478b7bccc
                406be4beadc1103e3ada6ea8ac544247
                """
            )
        ),
        Case(
            hash: .sha256,
            salt: hex("a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"),
            encoded: hex(
                """
                16f1e4d51b4c6708504de25ad0425582dc1d2c3837134ae9697f920445b05c7a42989dd1cee7916bf815619685a9461e
                06963d014ef3b490b1268be4d5686ceac1c7e02903bbb0be1639aded8e8273a5a5f23fcdc85e8cc80ffe8fd1336eae25
                2a7b9d84ce978a89e8dcb75a76710097a7dff5031306ea7a7dbaaeea932843246d7ca82538613d693c0d2b78d2e19a0f
                8af36c953b55624435b787e421a984f09a7d6200a5a130d03a7084524fd23bf2d3fe2876b66bb95348708bda72dd7a28
                d805cd14da22264947368852696348d1812e26a8f17a2a74ec0ee591a6802de48ababac71fe603d56b8485e55425bc5b
                c6e01a1d9677546691fc29a9d404b7bc
                """
            ),
            signature: hex(
                """
                241b7a441e12d5a02d37c2c7a015568854bbb492443dd2b690bfe5a8f29efbc683ef3bb5b7d3401a8d160abf5fa4a66a
                97a89188eb815eae5c5b6c765467aee48ee94b5ea7b0e67a63b8f6456edc5769f01c2e16b83920dbdd807dbbee5b9e91
                9cb78a61d2a183f51cd60fdc60867d305073d444891e608af0615b1c98c935bd2792812973d1b4e00cc6951521d5d470
                e8df7d167c27d6d37114bd7601e83c0952687371f762a0fc45888062a28b88e33903f07941475f06660853e1828e6443
                2e8724b2367a0a0ea4268bf68991813e09a5aadaff2ff3c2910aa7699472e42c4fa4d5c9f1fbc70a8a45d42b4b3262b4
                8ae4a82be4ed46b32e5eeee24dc44525
                """
            ),
            librarySignature: hex(
                """
                6ee73e3d5f4033d5ddb62247c0389986e69bf4a7f3320e6e89f925c9770b4e2f3b118346c451d7c62a8b4a9093ffc3db
                e6aa038caff61ee2983978872c0f1db7a771af74bc3228a5212ffa5d253fb749b8aa2d756ec673c1839b8877149fc6d7
                f5eac9e18e68c9aa3e67afc5e286c8c9c19a1cbebaf20c26695634a3f6e565deebe5575dce3b0f11c8f6c8d593a1861d
                8bf9aeb805a57dc203076c3b34ff317fe610e53fe9007d20c91cf2be62fbf5bbb6fa880b79e056316207d431cc8ff651
                d91530c4d209f6b0f7a3dc1efff69cbcd9de43820bd573309d748da77c683b3781720c321e8184ca2debbb7f1499d82b
                5132201fbdf427385af3cc993e27a22b
                """
            )
        ),
    ]

    @Test(arguments: cases)
    func encodesAndSignsTheKnownAnswerWithAFixedSalt(_ test: Case) throws {
        let digest = test.hash.digest(Self.message)
        let encoded = try EMSAPSS.encode(digest, hash: test.hash, modulusBits: 2048, byteCount: 256, salt: test.salt)
        #expect(encoded == test.encoded)
        let key = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        #expect(try key.apply(encoded) == test.signature)
    }

    @Test(arguments: cases)
    func verifiesWhatPythonCryptographySigned(_ test: Case) throws {
        let key = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        let digest = test.hash.digest(Self.message)
        for signature in [test.signature, test.librarySignature] {
            #expect(EMSAPSS.isEncoding(try key.apply(signature), of: digest, hash: test.hash, modulusBits: 2048))
        }
        // Another message, another hash, a changed signature: not an encoding.
        let recovered = try key.apply(test.librarySignature)
        let other = test.hash.digest(Array("PSS known answeR".utf8))
        #expect(!EMSAPSS.isEncoding(recovered, of: other, hash: test.hash, modulusBits: 2048))
        #expect(!EMSAPSS.isEncoding(recovered, of: digest + [0], hash: test.hash, modulusBits: 2048))
        var changed = test.librarySignature
        changed[7] ^= 0x80
        #expect(!EMSAPSS.isEncoding(try key.apply(changed), of: digest, hash: test.hash, modulusBits: 2048))
        var trailer = test.encoded
        trailer[255] = 0xBD
        #expect(!EMSAPSS.isEncoding(trailer, of: digest, hash: test.hash, modulusBits: 2048))
        var topBit = test.encoded
        topBit[0] |= 0x80
        #expect(!EMSAPSS.isEncoding(topBit, of: digest, hash: test.hash, modulusBits: 2048))
    }

    @Test(arguments: HashAlgorithm.allCases)
    func randomSaltsRoundTripForOddModulusLengths(_ hash: HashAlgorithm) throws {
        let digest = hash.digest(Self.message)
        // 2049 bits: emBits = 2048 fits emLen = 256 exactly, the block gets one leading zero byte (k = 257).
        for (modulusBits, byteCount) in [(2048, 256), (2049, 257), (2047, 256)] {
            let encoded = try EMSAPSS.encode(digest, hash: hash, modulusBits: modulusBits, byteCount: byteCount)
            #expect(encoded.count == byteCount)
            #expect(encoded.last == 0xBC)
            #expect(EMSAPSS.isEncoding(encoded, of: digest, hash: hash, modulusBits: modulusBits))
            let again = try EMSAPSS.encode(digest, hash: hash, modulusBits: modulusBits, byteCount: byteCount)
            #expect(again != encoded)
        }
    }

    @Test func rejectsKeysTooSmallAndWrongLengths() {
        let digest = HashAlgorithm.sha512.digest(Self.message)
        expectInvalidParameters { try EMSAPSS.encode(digest, hash: .sha512, modulusBits: 1024, byteCount: 128) }
        expectInvalidParameters {
            try EMSAPSS.encode(Array(digest.dropLast()), hash: .sha512, modulusBits: 2048, byteCount: 256)
        }
        expectInvalidParameters {
            try EMSAPSS.encode(digest, hash: .sha512, modulusBits: 2048, byteCount: 256, salt: [1, 2, 3])
        }
        #expect(!EMSAPSS.isEncoding([UInt8](repeating: 0, count: 128), of: digest, hash: .sha512, modulusBits: 1024))
    }
}
