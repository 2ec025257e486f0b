import Crypto
import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `ECIES`: ciphertexts of "ECIES, the Apple way" made once by an independent Python
/// `cryptography` 48 implementation of Apple's construction, with the fixed `TestKeys` (the ephemeral key fixed
/// so that the output is deterministic):
/// ```python
/// z = ephemeral.exchange(ec.ECDH(), recipient.public_key())
/// key_bytes = 16 if (len(recipient_point) - 1) // 2 * 8 <= 256 else 32
/// d = X963KDF(algorithm=h, length=key_bytes + (16 if variable_iv else 0), sharedinfo=ephemeral_point).derive(z)
/// iv = d[key_bytes:] if variable_iv else bytes(16)
/// ephemeral_point + AESGCM(d[:key_bytes]).encrypt(iv, message, None)
/// ```
/// `SecKeyEncryptionTests` checks the same construction against the Python code at run time.
struct ECIESTests {
    static let message = Array("ECIES, the Apple way".utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let scheme: ECIES
        let recipient: [UInt8]
        let ephemeral: [UInt8]
        let ciphertext: [UInt8]
        var testDescription: String { "\(scheme.hash) \(scheme.variableIV ? "KDF IV" : "zero IV"), \(recipient.count)" }
    }

    static let cases: [Case] = [
        Case(
            scheme: ECIES(hash: .sha256, variableIV: true),
            recipient: TestKeys.p256Recipient,
            ephemeral: TestKeys.p256Ephemeral,
            ciphertext: hex(
                """
                04471739fc6d107109165783cea9235ff92cc15fae666560d20ff394625977423460dd5da9e4dcc3c5cabf4dd2d70f07
                bdc07da6b3f48108ecff479ee82f0eb79ced5aae607b41f76ff543b84f14da4c9512cf7007f145aca0ba4f5ce90178d7
                4484c8bb38
                """
            )
        ),
        Case(
            scheme: ECIES(hash: .sha224, variableIV: false),
            recipient: TestKeys.p256Recipient,
            ephemeral: TestKeys.p256Ephemeral,
            ciphertext: hex(
                """
                04471739fc6d107109165783cea9235ff92cc15fae666560d20ff394625977423460dd5da9e4dcc3c5cabf4dd2d70f07
                bdc07da6b3f48108ecff479ee82f0eb79c5366338c0c05b141dc2f25f61f2dc1ca6c5c9d275d41f40515e357c3bc723d
                3ab9566bc3
                """
            )
        ),
        Case(
            scheme: ECIES(hash: .sha1, variableIV: false),
            recipient: TestKeys.p256Recipient,
            ephemeral: TestKeys.p256Ephemeral,
            ciphertext: hex(
                """
                04471739fc6d107109165783cea9235ff92cc15fae666560d20ff394625977423460dd5da9e4dcc3c5cabf4dd2d70f07
                bdc07da6b3f48108ecff479ee82f0eb79c95e9f3f3b6a11d10a6aa5b7b01014b8f48aec9a8f8487e36e0a34022a90e13
                87b30b25d5
                """
            )
        ),
        Case(
            scheme: ECIES(hash: .sha384, variableIV: true),
            recipient: TestKeys.p384Recipient,
            ephemeral: TestKeys.p384Ephemeral,
            ciphertext: hex(
                """
                04b215b0b6b7a592ef3952baa20a0e177353962f768775f5f798e6b7ec107e4f0c03a23a1d0193be997e6119fe5d344c
                8661796edfcd9fdd9247f7d80cbe78c6fa2e867b3a7d1ab14040a72ac7162093b71c198c6466a8b0adbbab4740ef3e90
                5fec76fe38dfe5f1a57528aaae44bbfd069b5be4bee25d84e545dd316bf1c28e250dcafdee
                """
            )
        ),
        Case(
            scheme: ECIES(hash: .sha512, variableIV: false),
            recipient: TestKeys.p521Recipient,
            ephemeral: TestKeys.p521Ephemeral,
            ciphertext: hex(
                """
                0401ce98604926b6f247f8064102bc620fa7c24c31ad2f493f916a939e923d742f9c155917a986a33a244970bcb8cc8e
                1679c8d23dae176d597c8a12b34d2c14860ebb00553cc6dfad1f150f6def460ea67eabb6a2b3b76431c4eb17b7ef4866
                235ebe517533304d48a1294000423bdaee8c61ba877ea26a6c9682dc7c0efbd335040d8908061105188339624ef013bc
                1cc068d1df08af14b45798b989b8f87da1e989b6413f23ea0f
                """
            )
        ),
    ]

    @Test(arguments: cases)
    func decryptsThePythonCiphertext(_ test: Case) throws {
        let recipient = try ECDHPrivateKey(x963Representation: test.recipient)
        #expect(Array(try test.scheme.decrypt(test.ciphertext, with: recipient)) == Self.message)
    }

    @Test(arguments: cases)
    func encryptsToThePythonCiphertextWithTheSameEphemeralKey(_ test: Case) throws {
        let recipient = try ECDHPrivateKey(x963Representation: test.recipient)
        let sealed = try test.scheme.encrypt(
            Self.message,
            to: recipient.publicKeyX963Representation,
            ephemeralKey: try ECDHPrivateKey(x963Representation: test.ephemeral)
        )
        #expect(Array(sealed) == test.ciphertext)
    }

    @Test(arguments: ECDHPrivateKey.Curve.allCases)
    func roundTripsWithAFreshEphemeralKey(_ curve: ECDHPrivateKey.Curve) throws {
        let recipient = ECDHPrivateKey(curve: curve)
        for scheme in [ECIES(hash: .sha256, variableIV: true), ECIES(hash: .sha224, variableIV: false)] {
            let first = try scheme.encrypt(Self.message, to: recipient.publicKeyX963Representation)
            let second = try scheme.encrypt(Self.message, to: recipient.publicKeyX963Representation)
            #expect(first != second)
            #expect(first.count == curve.publicKeyByteCount + Self.message.count + ECIES.tagByteCount)
            #expect(Array(try scheme.decrypt(first, with: recipient)) == Self.message)
        }
    }

    @Test func rejectsTamperingAndTheWrongScheme() throws {
        let test = Self.cases[0]
        let recipient = try ECDHPrivateKey(x963Representation: test.recipient)
        var tampered = test.ciphertext
        tampered[tampered.count - 20] ^= 0x01
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try test.scheme.decrypt(tampered, with: recipient)
        }
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try ECIES(hash: .sha256, variableIV: false).decrypt(test.ciphertext, with: recipient)
        }
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try test.scheme.decrypt(test.ciphertext, with: ECDHPrivateKey(curve: .p256))
        }
    }

    @Test func rejectsInputTooShortForThePointAndTheTag() throws {
        let recipient = try ECDHPrivateKey(x963Representation: TestKeys.p256Recipient)
        let scheme = ECIES(hash: .sha256, variableIV: true)
        for length in [0, 64, 65, 65 + 15] {
            #expect(throws: LatchkeyCrypto.CryptoError.malformedCiphertext) {
                try scheme.decrypt(Array(Self.cases[0].ciphertext.prefix(length)), with: recipient)
            }
        }
        // An empty plaintext: the point and the tag alone.
        let sealed = try scheme.encrypt([UInt8](), to: recipient.publicKeyX963Representation)
        #expect(sealed.count == 65 + 16)
        #expect(try scheme.decrypt(sealed, with: recipient).isEmpty)
    }

    @Test func rejectsRecipientAndEphemeralKeysThatDoNotFit() throws {
        let scheme = ECIES(hash: .sha256, variableIV: true)
        let recipient = try ECDHPrivateKey(x963Representation: TestKeys.p256Recipient)
        expectInvalidParameters { try scheme.encrypt(Self.message, to: [UInt8](repeating: 4, count: 64)) }
        expectInvalidParameters {
            try scheme.encrypt(
                Self.message,
                to: recipient.publicKeyX963Representation,
                ephemeralKey: ECDHPrivateKey(curve: .p384)
            )
        }
        var offCurve = Self.cases[0].ciphertext
        offCurve[10] ^= 0x01
        expectInvalidParameters { try scheme.decrypt(offCurve, with: recipient) }
    }
}
