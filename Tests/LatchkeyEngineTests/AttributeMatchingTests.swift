import Foundation
import Testing

@testable import LatchkeyEngine

/// `AttributeValue.matches` compares values directly (issue 25, item 5); it must give exactly the answer of
/// comparing `canonicalBytes`, the definition searches and tokens share.
struct AttributeMatchingTests {
    /// Values of every kind, with the pairs that matching must tell apart or join: String ≡ Data with the
    /// same bytes, byte-exact text (precomposed and decomposed "é" differ, as do cases), integral doubles
    /// equal to integers, empty text and empty data.
    static let values: [AttributeValue] = [
        .string("alice"), .data(Data("alice".utf8)), .string("Alice"), .string(""), .data(Data()),
        .string("caf\u{E9}"), .string("cafe\u{301}"), .data(Data("caf\u{E9}".utf8)),
        .number(0), .number(1), .number(-7), .double(1), .double(1.5), .double(-7), .string("1"),
        .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 1)),
        .double(0), .data(Data([0x31])),
    ]

    @Test func matchingIsComparingCanonicalBytesForEveryPairOfKinds() {
        for left in Self.values {
            for right in Self.values {
                #expect(
                    left.matches(right) == (left.canonicalBytes == right.canonicalBytes),
                    "\(left) against \(right)"
                )
            }
        }
        #expect(AttributeValue.string("alice").matches(.data(Data("alice".utf8))))
        #expect(!AttributeValue.string("caf\u{E9}").matches(.string("cafe\u{301}")), "byte-exact, not Unicode-equal")
        #expect(AttributeValue.number(1).matches(.double(1)))
        #expect(!AttributeValue.number(1).matches(.string("1")))
    }
}
