import Crypto
import Foundation
import LatchkeyCrypto
import Testing
import _CryptoExtras

/// Known answers for `RSAOAEP` with the fixed `TestKeys` RSA key and the message "OAEP known answer".
///
/// The encoded blocks use the seed `01 02 … hLen`; they were computed in Python from RFC 8017 §7.1.1 and
/// checked independently: Python `cryptography` 48 (OpenSSL) decrypts `pow(EM, e, n)` with
/// `padding.OAEP(mgf=padding.MGF1(h), algorithm=h, label=None)` back to the message. The "library" ciphertexts
/// were made by `cryptography`'s own OAEP encryption (random seed).
struct RSAOAEPTests {
    static let message = Array("OAEP known answer".utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let hash: HashAlgorithm
        let seed: [UInt8]
        let encoded: [UInt8]
        let ciphertext: [UInt8]
        let libraryCiphertext: [UInt8]
        var testDescription: String { "\(hash)" }
    }

    static let cases: [Case] = [
        Case(
            hash: .sha224,
            seed: hex("0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c"),
            encoded: hex(
                """
                00f9068b1339d66819ccf0c7bc9c6f74313c4758cb839f81fee8726627ea8c3b23f7070508eecf2d4c37ee8bbc06b37d
                cc8659e49013b57752de6e742ee189e286f44ffe89e271e090a0582bf94653693107381b4b482a3811a128a11e6679d8
                3c668cf5351d463a413824fa06904893d2449dffbca0e16eb397969a35256553a7b0b3a6e4822ace0e4526758837db94
                43dd2af167579e3efd30db61f26e7846d5a68379b9e8001482cf81b2b37542559213fabb375213fd48904f8b1a1451f2
                ec8c1f0e2582e2578408c877af2b6184d0ac6ed6223ec9b02cb9deecee4bde926a6180d3d4aef966bbc1709dc14c8b48
                9463d7b4b92c14c1171efe5967b919fe
                """
            ),
            ciphertext: hex(
                """
                72014d6e9e65eb5d8f796ba31a3c1916000796709827ce70bd7f3d6eebfc1daacaf80a63a2cf7b53fea5e5a3d96594da
                cdb7454c2e7476e7117f6ed5df4504b4905a44b464f508962f0f47f00106e75ae824dafc86d6ff18bc3f2052e9a5f11e
                4f4284931df62c68a898fce62de99f32649d45303f9403c326c7c3458d4f9ba48bbe43bf5ec76de71d5a2afda57db146
                415b424a3f73422aaf8ba1c1aa3fccd962372f5f3539190ed2d629a3202075ac1f625f9f4286b7ccc2e859c3cb898360
                465e2ef0275e0fc444f4e6e7a3273e762f7b98ade3070a368bf6a7b6a5207d57311f58234eea9d5f886bcbd32b873c41
                c179c13cafe9edcc8d6aae4e8a603cf8
                """
            ),
            libraryCiphertext: hex(
                """
                7f1e3f28934c6b6a499793c771c4b1a32fbadec453f0bd324351b769067f38ccf6b819951fc4eb74f06b8926136dbb13
                b64f7b865af7a97300c3009ad6f87f9721289b76148742045bcccc250be6e20a3cda2229cbc489399e69fc6edbd8f2e2
                3e23b5b4321865dfb10075378735b5685b15572ee6b76471dc89afad29d56558641f1ef5d6dff351e4af19ef4a5d6e2c
                127fe5b8b48cb273dc9bb009bc7de43cc11bb174be1b081392dba8d25fe300aa5e84c4450b8378b0eb3306009f5078e6
                8cc04926b0209b66fc9a2c2313fbd0c6b787540fffc8e1851083de50024ca63e90775bdf21685a1d51597ff90c9ebeaa
                f56250b63d279fafce1cde962f940660
                """
            )
        ),
        Case(
            hash: .sha384,
            seed: hex(
                """
                0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30
                """
            ),
            encoded: hex(
                """
                00f5a38cccf3657c8b8cb3b385cf359d2bc574779e4573072dbf210c5d0b7b60aca8bf6bc3f329360efc10377844fb58
                459338445b1b880edad48d868b26ac80ff425771deab17543643e8e4721f417a2412eae920e2c1f97f309ad313239ac4
                642ea0f877bcfb8c0a0b2fae630cce034167f33a56cd4bdb0be64293b16dad992995c3b52ffe5cce4021ca122228bb96
                d3e983bf509ed701f086abf5c51c15c4ffa92769813a09f0b55d7198a764067ed4ef70a50387eb377c3daecf8ab2d0cd
                84a8d9fb1d2d0250c66ec9f02ff637cc93ebe4bd9a3cd8efb833d77552b11a630f847d75f1871082bece071079c728b3
                25df8a27d923e1033773ccac283aae8c
                """
            ),
            ciphertext: hex(
                """
                5a4f15166278d3ebb28f9d3ffc1241f84d4be56695feb719dc8020468e09bfd6a11b7b39d56482da93788b04173fecda
                2fb29844c4455b739baa0bac95d4b46ea31d161bd55bff93d9174600a62c03634361426fd8392fc05ce8744bc576addd
                b216b580fb941b20a2dd261a083bb78ddc63f5e0e520d04adb88a39c1744f250d987ef1fd79a77078fb1e023d4c37d9d
                0a6b7caa2fd14600015e7ac947f0d5a22aca6ed89f6f01a83faee93e22420d88e52229d3367b9a489a8957968a360e59
                5e728d18af458f3b40321e2ba16e7504cb457ca6e9fb103c848f94d9b478fb3aabd41c99a094805f69953d13d33e9923
                0d34ea29608af4271e8c5cdef0603c63
                """
            ),
            libraryCiphertext: hex(
                """
                0c9e523197d672e8c4854225041b8dd1410e95546316f8a20b3c04e7806ab6ec83c30380fbcedbf7a9bde9c0c8949423
                cbffde5a16ac3f4c01fc8a70313936c31dfb6c20f4fc219dd09e5a3884677fb2d82b9f7963c9b9078f8264c9523ef77a
                d197090409a7a6e551778622c2ba7cb65d0d62cf076a6c429ccbb06b1e418d3292fffd77e4a1a2cb21ad67cc17d3cae6
                52f98443b00132ed54f4d5270740e32058eb8e30e423ef3db2a4b51e8adbda201cede5a3344e9da56ede5d87c8e85cc1
                dbbcf86a32940936242f7116d0f1bf8f1de57792e1f2ffc112b82ce5dd7d86f4cb9cb3c06c60c7bee66d5cd80b3295ab
                a56db9e1f847f21b6856d39b9cd5cf8f
                """
            )
        ),
        Case(
            hash: .sha512,
            seed: hex(
                """
                0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30
                3132333435363738393a3b3c3d3e3f40
                """
            ),
            encoded: hex(
                """
                00fb5960220aea6f313aec6f7b5e0a17f814a0b0f87dd2da73b1e05e5ba24050ccfe8c195eee91a613040d890379d78b
                72ac852869f23cc5f0357f4dd2efda44466f96894c7d4dc895519192eb2c63d20c6a33e79824fbf32dc7b0b276018ac0
                2966b08e7f794eb71a84fab31858e243a19942805163d45211bb3d207ab97795c9331aada0a3dff02d27a734d8149d82
                563fa88a98c546560956db29e396a0c4f83a4898a0286213d5ca1c9401c04d8dde09bf04351dbb7ee9d5f0b7cc7e36a4
                47e1aa8f6e838ec7ceebbc0cd4ffd26fa7dcc1b3bc8e289d181b614aac4aeb4201f1908c8be1f23dcb2567429f88298a
                b964bb62e44fd554e17a40157c30b41d
                """
            ),
            ciphertext: hex(
                """
                1f6c3fe5bde10bdfa584b123e45ad5aae51d1d91dccb5db2b0cf34fa016d61dd4e3f358b4f175a899c926110fc103458
                889db5374202283982122476a354afb7cbe1700f56bc4ae2ea3eabe4dbbbf76afaff8ad659df0addda430d297070bb9c
                caf9d618d1b6fb0a09dc9ffda5bfcd6ae7700042913f76fd0197e5c649fde102b55d3627aaa12139e9965277846e5412
                0e1f543fe1201daa9f9a9f1e364b9ed0335020e1f37ab653f3684790c7ef7fcdae9b0eb39ba17759cab7d04ef452ca90
                a0ed7eb2944332c6fad2e786da0c9a3108962d5862e699d208dc21b6bb8e31cba4ac0a0380ae5cff53e66cbd0353a6a5
                ecd5ef9cab43a839585af704893d037b
                """
            ),
            libraryCiphertext: hex(
                """
                31a56ce2c513f0dd96cac35dd758d8a7e3354767c374fcd61bb1cb461d0f95ab378ec6f37b25d08f4088c12fc250ca08
                c8fa1d4d43180ef97de89d5c0f0bf82f20767d1e8575c0c1c7e75c330609a99f82e64740ccec986dd25fce1135cdb096
                5ca0aa87d34b2ab55e2776258c3a82837a8bcebb1809e9ed94bb90bd9210094aa563b72f176f263d57ac956c586a4b6f
                26585c0d56c096fd5e617c9ca67fd06ad22f6a2970a1b3326df5b699e50dc8115d805a083dc53f6b9278004e520ff2b1
                683fa31d20bfdb973b78ecb097d5bfd67f76b238b26c368b7cb39d3070eefa72cf1ea5829b18eee68b8b4e88b6adc9e4
                6d219d8cfe6bd7c74068343088c017c8
                """
            )
        ),
    ]

    @Test(arguments: cases)
    func encodesAndEncryptsTheKnownAnswerWithAFixedSeed(_ test: Case) throws {
        #expect(try RSAOAEP.encode(Self.message, hash: test.hash, byteCount: 256, seed: test.seed) == test.encoded)
        let key = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        #expect(try RSAOAEP.encrypt(Self.message, with: key, hash: test.hash, seed: test.seed) == test.ciphertext)
        #expect(try RSAOAEP.decode(test.encoded, hash: test.hash, byteCount: 256) == Self.message)
    }

    @Test(arguments: cases)
    func decryptsWhatPythonCryptographyEncrypted(_ test: Case) throws {
        let key = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        #expect(try RSAOAEP.decrypt(test.libraryCiphertext, with: key, hash: test.hash) == Self.message)
        #expect(try RSAOAEP.decrypt(test.ciphertext, with: key, hash: test.hash) == Self.message)
    }

    /// For SHA-1 and SHA-256 the same code agrees with swift-crypto's `_RSA.Encryption` OAEP (BoringSSL), both
    /// ways.
    @Test(arguments: [HashAlgorithm.sha1, .sha256])
    func agreesWithSwiftCryptoWhereItHasTheHash(_ hash: HashAlgorithm) throws {
        let padding: _RSA.Encryption.Padding = hash == .sha1 ? .PKCS1_OAEP : .PKCS1_OAEP_SHA256
        let libraryKey = try _RSA.Encryption.PrivateKey(derRepresentation: TestKeys.rsaPrivateKeyDER)
        let privateOperation = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        let publicOperation = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        let byLibrary = try libraryKey.publicKey.encrypt(Self.message, padding: padding)
        #expect(try RSAOAEP.decrypt([UInt8](byLibrary), with: privateOperation, hash: hash) == Self.message)
        let byUs = try RSAOAEP.encrypt(Self.message, with: publicOperation, hash: hash)
        #expect(Array(try libraryKey.decrypt(byUs, padding: padding)) == Self.message)
    }

    @Test func randomSeedsRoundTripAtTheMaximumLength() throws {
        let publicOperation = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        let privateOperation = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        for hash in HashAlgorithm.allCases {
            let maximum = RSAOAEP.maximumMessageLength(hash: hash, byteCount: 256)
            #expect(maximum == 256 - 2 * hash.byteCount - 2)
            for message in [[UInt8](), [UInt8](repeating: 0x42, count: maximum)] {
                let first = try RSAOAEP.encrypt(message, with: publicOperation, hash: hash)
                let second = try RSAOAEP.encrypt(message, with: publicOperation, hash: hash)
                #expect(first != second)
                #expect(try RSAOAEP.decrypt(first, with: privateOperation, hash: hash) == message)
            }
            expectInvalidParameters {
                try RSAOAEP.encrypt([UInt8](repeating: 0, count: maximum + 1), with: publicOperation, hash: hash)
            }
        }
    }

    @Test func rejectsAWrongSeedLength() {
        expectInvalidParameters { try RSAOAEP.encode(Self.message, hash: .sha384, byteCount: 256, seed: [1, 2, 3]) }
    }

    @Test(arguments: cases)
    func everyMalformedBlockGivesTheSameError(_ test: Case) throws {
        let key = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        var tampered = test.ciphertext
        tampered[100] ^= 0x01
        var badLeadingByte = test.encoded
        badLeadingByte[0] = 0x01
        var badLabelHash = test.encoded
        badLabelHash[1 + test.hash.byteCount] ^= 0x01  // a changed masked DB unmasks to a wrong lHash
        let failure = LatchkeyCrypto.CryptoError.authenticationFailure
        #expect(throws: failure) { try RSAOAEP.decrypt(tampered, with: key, hash: test.hash) }
        #expect(throws: failure) { try RSAOAEP.decrypt(Array(test.ciphertext.dropLast()), with: key, hash: test.hash) }
        #expect(throws: failure) { try RSAOAEP.decrypt(TestKeys.rsaModulus, with: key, hash: test.hash) }
        #expect(throws: failure) { try RSAOAEP.decrypt(test.ciphertext, with: key, hash: .sha256) }
        #expect(throws: failure) { try RSAOAEP.decode(badLeadingByte, hash: test.hash, byteCount: 256) }
        #expect(throws: failure) { try RSAOAEP.decode(badLabelHash, hash: test.hash, byteCount: 256) }
        #expect(throws: failure) {
            try RSAOAEP.decode([UInt8](repeating: 0, count: 256), hash: test.hash, byteCount: 256)
        }
    }
}
