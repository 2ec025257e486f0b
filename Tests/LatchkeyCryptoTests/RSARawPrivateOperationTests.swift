import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `RSARawPrivateOperation`: `c^d mod n` for the fixed `TestKeys` RSA key inverts the
/// Python-computed `RSARawPublicOperationTests` vector.
struct RSARawPrivateOperationTests {
    @Test func invertsThePublicOperationVector() throws {
        let operation = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        #expect(operation.byteCount == 256)
        #expect(try operation.apply(RSARawPublicOperationTests.result) == RSARawPublicOperationTests.message)
    }

    @Test func roundTripsThroughThePublicOperation() throws {
        let privateOperation = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        let publicOperation = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        let block = [0x00] + [UInt8](repeating: 0x5a, count: 255)
        #expect(try publicOperation.apply(privateOperation.apply(block)) == block)
    }

    @Test func rejectsBlocksOfTheWrongLengthOrNotBelowTheModulus() throws {
        let operation = try RSARawPrivateOperation(derRepresentation: TestKeys.rsaPrivateKeyDER)
        expectInvalidParameters { try operation.apply([UInt8](repeating: 1, count: 255)) }
        expectInvalidParameters { try operation.apply([UInt8](repeating: 1, count: 257)) }
        expectInvalidParameters { try operation.apply([UInt8](repeating: 0xff, count: 256)) }
    }

    @Test func rejectsBytesThatAreNotAPrivateKey() {
        expectInvalidParameters { try RSARawPrivateOperation(derRepresentation: TestKeys.rsaModulus) }
        expectInvalidParameters { try RSARawPrivateOperation(derRepresentation: [UInt8]()) }
    }
}
