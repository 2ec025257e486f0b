import Foundation
import LatchkeyCrypto
import Testing

/// Known answers for `PBES2`: ciphertexts made by Python (`hashlib.pbkdf2_hmac` for the key, `cryptography` 48
/// AES-CBC with PKCS#7 padding), password "pässwörd" (UTF-8, as OpenSSL 3 writes PKCS#12), salt
/// `0102030405060708`, 2048 iterations, IV `a0a1…af`.
struct PBES2Tests {
    static let password = Array("pässwörd".utf8)
    static let salt = hex("0102030405060708")
    static let iv = hex("a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
    static let plaintext = Array("PBES2 known answer, longer than one AES block".utf8)

    struct Case: Sendable, CustomTestStringConvertible {
        let keyByteCount: Int
        let prf: HashAlgorithm
        let ciphertext: [UInt8]
        var testDescription: String { "AES-\(keyByteCount * 8)-CBC, PBKDF2-HMAC-\(prf)" }
    }

    static let cases = [
        Case(
            keyByteCount: 32,
            prf: .sha256,
            ciphertext: hex(
                """
                af4a2fb296d0aacd769cfe17c42824572b8e8cedcbfab06e0579a7cc587020243c5198ddeb1756f5a7fab7cb2f2d51e2
                """
            )
        ),
        Case(
            keyByteCount: 16,
            prf: .sha1,
            ciphertext: hex(
                """
                304250b165beb2a6ce49d4e3105b94dfe522330973b4b716bb93495ada70dd559a50770228b44281bcbf17e2d5961cf3
                """
            )
        ),
        Case(
            keyByteCount: 24,
            prf: .sha512,
            ciphertext: hex(
                """
                dc51161fa56437fa4112fd745a5bfd7751c2530a1fabae6ac81e10a8db7b8929c738b4c254edc93534cf4c67822e693c
                """
            )
        ),
    ]

    @Test(arguments: cases)
    func decryptsThePythonCiphertext(_ test: Case) throws {
        #expect(try decrypt(test) == Self.plaintext)
    }

    @Test(arguments: cases)
    func aWrongPasswordFailsThePaddingCheck(_ test: Case) {
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try PBES2.decrypt(
                test.ciphertext,
                password: Array("password".utf8),
                salt: Self.salt,
                iterations: 2048,
                prf: test.prf,
                keyByteCount: test.keyByteCount,
                iv: Self.iv
            )
        }
    }

    @Test func rejectsMalformedCiphertextAndParameters() {
        let test = Self.cases[0]
        for ciphertext in [[], Array(test.ciphertext.dropLast()), [UInt8](repeating: 0, count: 15)] {
            #expect(throws: LatchkeyCrypto.CryptoError.malformedCiphertext) {
                try decrypt(test, ciphertext: ciphertext)
            }
        }
        expectInvalidParameters { try decrypt(test, keyByteCount: 20) }
        expectInvalidParameters { try decrypt(test, iv: Array(Self.iv.dropLast())) }
        expectInvalidParameters { try decrypt(test, iterations: 0) }
    }

    private func decrypt(
        _ test: Case,
        ciphertext: [UInt8]? = nil,
        keyByteCount: Int? = nil,
        iv: [UInt8] = PBES2Tests.iv,
        iterations: Int = 2048
    ) throws(LatchkeyCrypto.CryptoError) -> [UInt8] {
        try PBES2.decrypt(
            ciphertext ?? test.ciphertext,
            password: Self.password,
            salt: Self.salt,
            iterations: iterations,
            prf: test.prf,
            keyByteCount: keyByteCount ?? test.keyByteCount,
            iv: iv
        )
    }
}
