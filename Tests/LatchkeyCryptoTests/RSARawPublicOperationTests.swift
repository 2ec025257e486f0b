import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `RSARawPublicOperation`: `m^e mod n` for the fixed 2048-bit `TestKeys` RSA key, expected
/// value from Python (`pow(m, e, n)`), `m` = SHA-512("raw") three times.
struct RSARawPublicOperationTests {
    static let message = hex(
        """
        000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
        00000000000000000000000000000000918b4ff23be6ff9cb2a34b2ef37bd2bceae30dab2047b34a133b4ece532a9c2f
        74a695894675dfa7b2130c2dbfdeccf7b4386776912196d20a72b4c7a80f64a3918b4ff23be6ff9cb2a34b2ef37bd2bc
        eae30dab2047b34a133b4ece532a9c2f74a695894675dfa7b2130c2dbfdeccf7b4386776912196d20a72b4c7a80f64a3
        918b4ff23be6ff9cb2a34b2ef37bd2bceae30dab2047b34a133b4ece532a9c2f74a695894675dfa7b2130c2dbfdeccf7
        b4386776912196d20a72b4c7a80f64a3
        """
    )
    static let result = hex(
        """
        48655fb531aaa2ed5358fc2e425810ff594666f77ef06a0f37b090f350dce8c394dbe985a69437bd91401dc84a402d65
        29ae30cb0f3e3575a0a742b2a7bcea52001997d752ee18208aee34f5fcaa119908e3bd6d25196e69b9f342457c374f26
        a9f22e8319b8c2e9476c08dd853656afee0b2e149543cb501dffe9685749d00128092e1a3134c5631d2c30bdc40a2288
        6d15994e62a2b2dd9d97bfef9a663eddd1770bda96fd2221fd22da303958f42cae87d80b7aee2e4655201125eb07b07d
        d1fdfd9130ece17b065433104efd6622973f3cf66da27fc4fd3df80dc1031832a0eab39796ea0ce5db8e7cb21dc56efc
        43ff1d9b92f5bba1c9e792b16a525e66
        """
    )

    @Test func computesThePythonPowValue() throws {
        let operation = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        #expect(operation.byteCount == 256)
        #expect(try operation.apply(Self.message) == Self.result)
        // Leading zero bytes of the input and of the key do not change the number.
        #expect(try operation.apply(Array(Self.message.drop { $0 == 0 })) == Self.result)
        let padded = try RSARawPublicOperation(
            modulus: [0, 0] + TestKeys.rsaModulus,
            exponent: [0] + TestKeys.rsaExponent
        )
        #expect(try padded.apply(Self.message) == Self.result)
    }

    @Test func smallNumbersKeepTheirValue() throws {
        let operation = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        #expect(try operation.apply([]) == [UInt8](repeating: 0, count: 256))
        #expect(try operation.apply([1]) == [UInt8](repeating: 0, count: 255) + [1])
        // 2^65537 mod n is not 2: the exponent is applied.
        #expect(try operation.apply([2]) != [UInt8](repeating: 0, count: 255) + [2])
        // e = 3 on a small odd modulus: 5^3 mod 0x0101 = 125.
        let tiny = try RSARawPublicOperation(modulus: [0x01, 0x01], exponent: [3])
        #expect(try tiny.apply([5]) == [0x00, 0x7d])
    }

    @Test func rejectsInputsNotBelowTheModulus() throws {
        let operation = try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: TestKeys.rsaExponent)
        expectInvalidParameters { try operation.apply(TestKeys.rsaModulus) }
        expectInvalidParameters { try operation.apply([UInt8](repeating: 0xff, count: 256)) }
        expectInvalidParameters { try operation.apply([1] + [UInt8](repeating: 0, count: 256)) }
    }

    @Test func rejectsKeysThatAreNotUsable() {
        expectInvalidParameters { try RSARawPublicOperation(modulus: [0x01, 0x00], exponent: [3]) }
        expectInvalidParameters { try RSARawPublicOperation(modulus: [0x00, 0x07], exponent: [3]) }
        expectInvalidParameters { try RSARawPublicOperation(modulus: [UInt8](), exponent: [3]) }
        expectInvalidParameters { try RSARawPublicOperation(modulus: TestKeys.rsaModulus, exponent: [0, 0]) }
    }
}
