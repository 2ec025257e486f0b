import Crypto
import Foundation
import LatchkeyCrypto
import Testing

struct AEADTests {
    /// Test Case 16 of the GCM specification (McGrew & Viega): AES-256, 96-bit IV, with associated data.
    enum GCMTestCase16 {
        static let key = Data(hex: "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        static let nonce = Data(hex: "cafebabefacedbaddecaf888")
        static let plaintext = Data(
            hex: "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                + "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
        )
        static let associatedData = Data(hex: "feedfacedeadbeeffeedfacedeadbeefabaddad2")
        static let ciphertext = Data(
            hex: "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                + "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
        )
        static let tag = Data(hex: "76fc6ece0f4e1768cddf8853bb2d551b")
    }

    @Test func openAcceptsTheGCMSpecificationVectorInNonceCiphertextTagLayout() throws {
        let sealed = GCMTestCase16.nonce + GCMTestCase16.ciphertext + GCMTestCase16.tag
        let opened = try AEAD.open(
            sealed,
            key: SymmetricKey(data: GCMTestCase16.key),
            context: GCMTestCase16.associatedData
        )
        #expect(opened == GCMTestCase16.plaintext)
    }

    @Test func sealedBoxIsNonceThenCiphertextThenTag() throws {
        let key = SymmetricKey(data: GCMTestCase16.key)
        let sealed = try AEAD.seal(GCMTestCase16.plaintext, key: key, context: GCMTestCase16.associatedData)
        #expect(sealed.count == GCMTestCase16.plaintext.count + AEAD.overhead)
        #expect(AEAD.overhead == 12 + 16)
        // Re-encrypting with the box's own nonce must reproduce its ciphertext and tag exactly.
        let nonce = try AES.GCM.Nonce(data: sealed.prefix(12))
        let reference = try AES.GCM.seal(
            GCMTestCase16.plaintext,
            using: key,
            nonce: nonce,
            authenticating: GCMTestCase16.associatedData
        )
        #expect(sealed.dropFirst(12) == reference.ciphertext + reference.tag)
    }

    @Test(arguments: [0, 1, 31, 32, 1000])
    func sealThenOpenRoundTrips(length: Int) throws {
        let key = KeyWrap.randomKey()
        let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sealed = try AEAD.seal(plaintext, key: key, context: Data("ctx".utf8))
        #expect(sealed.count == length + AEAD.overhead)
        #expect(try AEAD.open(sealed, key: key, context: Data("ctx".utf8)) == plaintext)
    }

    @Test func sealingTheSameInputTwiceUsesFreshNonces() throws {
        let key = KeyWrap.randomKey()
        let first = try AEAD.seal(Data("same".utf8), key: key, context: Data())
        let second = try AEAD.seal(Data("same".utf8), key: key, context: Data())
        #expect(first.prefix(12) != second.prefix(12))
        #expect(first != second)
    }

    @Test func openWithAnotherKeyFailsAuthentication() throws {
        let sealed = try AEAD.seal(Data("secret".utf8), key: KeyWrap.randomKey(), context: Data("ctx".utf8))
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try AEAD.open(sealed, key: KeyWrap.randomKey(), context: Data("ctx".utf8))
        }
    }

    @Test func openWithAnotherContextFailsAuthentication() throws {
        let key = KeyWrap.randomKey()
        let sealed = try AEAD.seal(Data("secret".utf8), key: key, context: Data("row 1".utf8))
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try AEAD.open(sealed, key: key, context: Data("row 2".utf8))
        }
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try AEAD.open(sealed, key: key, context: Data())
        }
    }

    /// Every byte position matters: nonce, ciphertext and tag.
    @Test(arguments: [0, 11, 12, 17, 18, 33])
    func flippingAnyByteFailsAuthentication(position: Int) throws {
        let key = KeyWrap.randomKey()
        var sealed = try AEAD.seal(Data("secret".utf8), key: key, context: Data("ctx".utf8))
        #expect(sealed.count == 6 + AEAD.overhead)
        sealed[sealed.startIndex + position] ^= 0x01
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try AEAD.open(sealed, key: key, context: Data("ctx".utf8))
        }
    }

    @Test(arguments: [0, 1, 12, 27])
    func inputShorterThanNonceAndTagIsMalformed(length: Int) {
        #expect(throws: LatchkeyCrypto.CryptoError.malformedCiphertext) {
            try AEAD.open(Data(repeating: 0xA5, count: length), key: KeyWrap.randomKey(), context: Data())
        }
    }

    @Test func emptyPlaintextStillCarriesAnAuthenticatedTag() throws {
        let key = KeyWrap.randomKey()
        var sealed = try AEAD.seal(Data(), key: key, context: Data("ctx".utf8))
        #expect(sealed.count == AEAD.overhead)
        #expect(try AEAD.open(sealed, key: key, context: Data("ctx".utf8)) == Data())
        sealed[sealed.endIndex - 1] ^= 0x80
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try AEAD.open(sealed, key: key, context: Data("ctx".utf8))
        }
    }

    @Test func wrappedKeyUnwrapsOnlyWithTheSameKeyAndContext() throws {
        let key = KeyWrap.randomKey()
        let wrappingKey = KeyWrap.randomKey()
        let wrapped = try KeyWrap.wrap(key, with: wrappingKey, context: Data("class ak".utf8))
        #expect(wrapped.count == KeyWrap.wrappedLength)
        let unwrapped = try KeyWrap.unwrap(wrapped, with: wrappingKey, context: Data("class ak".utf8))
        #expect(unwrapped == key)
        #expect(throws: LatchkeyCrypto.CryptoError.authenticationFailure) {
            try KeyWrap.unwrap(wrapped, with: wrappingKey, context: Data("class ck".utf8))
        }
        #expect(throws: LatchkeyCrypto.CryptoError.malformedCiphertext) {
            try KeyWrap.unwrap(wrapped.dropLast(), with: wrappingKey, context: Data("class ak".utf8))
        }
    }
}

extension Data {
    /// Bytes from a hexadecimal literal (test vectors only; traps on malformed input).
    init(hex: String) {
        let digits = Array(hex.utf8)
        precondition(digits.count.isMultiple(of: 2), "odd-length hex literal")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
                preconditionFailure("invalid hex literal")
            }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
