import Foundation
import LatchkeyCrypto
import Testing

struct SecretDataTests {
    @Test func descriptionGivesOnlyTheLength() {
        let secret = SecretData(string: "hunter2")
        #expect(secret.description == "SecretData(7 bytes, redacted)")
        #expect(secret.debugDescription == secret.description)
        #expect(!"\(secret)".contains("hunter2"))
        #expect(!String(reflecting: secret).contains("hunter2"))
        #expect(!"\([secret])".contains("hunter2"))
    }

    /// `dump` and debuggers walk the type's mirror; it must list no bytes (`- 104`, `- 117` ... for "hunter2").
    @Test func reflectionDoesNotRevealTheBytes() {
        let secret = SecretData(string: "hunter2")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(Mirror(reflecting: secret).children.isEmpty)
        #expect(!dumped.contains("- 104"))
    }

    @Test(
        arguments: [
            ("equal bytes", [UInt8]([1, 2, 3]), [UInt8]([1, 2, 3]), true),
            ("empty and empty", [], [], true),
            ("last byte differs", [1, 2, 3], [1, 2, 4], false),
            ("first byte differs", [9, 2, 3], [1, 2, 3], false),
            ("prefix", [1, 2], [1, 2, 3], false),
            ("empty and non-empty", [], [0], false),
        ]
    )
    func equalityComparesEveryByte(_ name: String, lhs: [UInt8], rhs: [UInt8], equal: Bool) {
        #expect((SecretData(lhs) == SecretData(rhs)) == equal, "\(name)")
        #expect(constantTimeEquals(lhs, rhs) == equal, "\(name)")
    }

    @Test func stringAndBytesInitialisersAgree() {
        #expect(SecretData(string: "päss") == SecretData(Array("päss".utf8)))
        #expect(SecretData(string: "päss").count == 5)
    }

    @Test func utf8StringDecodesValidTextAndRejectsInvalidBytes() {
        #expect(SecretData(string: "s3cret ✓").utf8String == "s3cret ✓")
        #expect(SecretData([0xFF, 0xFE, 0x41]).utf8String == nil)
        #expect(SecretData([]).utf8String == "")
    }

    @Test func emptyIsPresentButEmpty() {
        let empty = SecretData([])
        #expect(empty.isEmpty)
        #expect(empty.count == 0)
        #expect(empty.data == Data())
        #expect(!SecretData([0]).isEmpty)
    }

    @Test func dataAndWithUnsafeBytesExposeTheSameBytes() {
        let secret = SecretData([0, 1, 2, 250])
        #expect(secret.data == Data([0, 1, 2, 250]))
        #expect(secret.withUnsafeBytes { Array($0) } == [0, 1, 2, 250])
    }

    @Test func withUnsafeBytesRethrowsTheClosuresError() {
        struct Marker: Error, Equatable {}
        #expect(throws: Marker()) {
            try SecretData([1]).withUnsafeBytes { (_: UnsafeRawBufferPointer) throws(Marker) -> Int in throw Marker() }
        }
    }

    @Test func copiesShareValueSemantics() {
        let original = SecretData(string: "abc")
        let copy = original
        #expect(copy == original)
        #expect(copy.data == Data("abc".utf8))
    }

    @Test func equalSecretsHashEquallySoSetsDeduplicate() {
        let set: Set<SecretData> = [SecretData(string: "a"), SecretData(string: "a"), SecretData(string: "b")]
        #expect(set.count == 2)
    }
}
