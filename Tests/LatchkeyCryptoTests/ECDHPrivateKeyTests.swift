import Crypto
import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `ECDHPrivateKey`: the shared secrets of the fixed `TestKeys`, computed with Python
/// `cryptography` 48 (`ephemeral.exchange(ec.ECDH(), recipient.public_key())`).
struct ECDHPrivateKeyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let curve: ECDHPrivateKey.Curve
        let recipient: [UInt8]
        let ephemeral: [UInt8]
        let secret: [UInt8]
        var testDescription: String { "\(curve)" }
    }

    static let cases = [
        Case(
            curve: .p256,
            recipient: TestKeys.p256Recipient,
            ephemeral: TestKeys.p256Ephemeral,
            secret: TestKeys.p256SharedSecret
        ),
        Case(
            curve: .p384,
            recipient: TestKeys.p384Recipient,
            ephemeral: TestKeys.p384Ephemeral,
            secret: TestKeys.p384SharedSecret
        ),
        Case(
            curve: .p521,
            recipient: TestKeys.p521Recipient,
            ephemeral: TestKeys.p521Ephemeral,
            secret: TestKeys.p521SharedSecret
        ),
    ]

    @Test(arguments: cases)
    func sharedSecretIsThePythonCryptographyValueBothWays(_ test: Case) throws {
        let recipient = try ECDHPrivateKey(x963Representation: test.recipient)
        let ephemeral = try ECDHPrivateKey(x963Representation: test.ephemeral)
        #expect(recipient.curve == test.curve)
        #expect(
            Array(recipient.publicKeyX963Representation) == Array(test.recipient.prefix(test.curve.publicKeyByteCount))
        )
        let forward = try recipient.sharedSecret(with: ephemeral.publicKeyX963Representation)
        let backward = try ephemeral.sharedSecret(with: recipient.publicKeyX963Representation)
        #expect(forward.withUnsafeBytes { Array($0) } == test.secret)
        #expect(backward.withUnsafeBytes { Array($0) } == test.secret)
        #expect(test.secret.count == test.curve.fieldByteCount)
    }

    @Test(arguments: ECDHPrivateKey.Curve.allCases)
    func freshKeysAgree(_ curve: ECDHPrivateKey.Curve) throws {
        let first = ECDHPrivateKey(curve: curve)
        let second = ECDHPrivateKey(curve: curve)
        #expect(first.publicKeyX963Representation.count == curve.publicKeyByteCount)
        #expect(ECDHPrivateKey.Curve(publicKeyByteCount: curve.publicKeyByteCount) == curve)
        #expect(
            try first.sharedSecret(with: second.publicKeyX963Representation)
                == second.sharedSecret(with: first.publicKeyX963Representation)
        )
    }

    @Test func rejectsPeersThatAreNotPointsOnTheCurve() throws {
        let key = try ECDHPrivateKey(x963Representation: TestKeys.p256Recipient)
        let p384Point = try ECDHPrivateKey(x963Representation: TestKeys.p384Recipient).publicKeyX963Representation
        var offCurve = [UInt8](
            try ECDHPrivateKey(x963Representation: TestKeys.p256Ephemeral).publicKeyX963Representation
        )
        offCurve[40] ^= 0x01
        expectInvalidParameters { try key.sharedSecret(with: p384Point) }
        expectInvalidParameters { try key.sharedSecret(with: offCurve) }
        expectInvalidParameters { try key.sharedSecret(with: [UInt8]()) }
    }

    @Test func rejectsBytesThatAreNotAPrivateKey() {
        expectInvalidParameters { try ECDHPrivateKey(x963Representation: Array(TestKeys.p256Recipient.dropLast())) }
        expectInvalidParameters { try ECDHPrivateKey(x963Representation: [UInt8](repeating: 0, count: 97)) }
        #expect(ECDHPrivateKey.Curve(publicKeyByteCount: 64) == nil)
    }
}
