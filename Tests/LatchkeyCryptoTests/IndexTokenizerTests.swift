import Crypto
import Foundation
import LatchkeyCrypto
import Testing

struct IndexTokenizerTests {
    /// Key 00 01 02 … 1f.
    static let fixedKey = SymmetricKey(data: Data((0..<32).map { UInt8($0) }))

    /// Token = HMAC-SHA256(key, len(domain) ‖ domain ‖ value) truncated to 16 bytes; expected values
    /// computed with Python's `hmac` module.
    @Test(
        arguments: [
            ("genp/acct", "alice", "c17867b4d16a709e4bacf02e33122cc4"),
            ("genp/svce", "alice", "ce77b2ad54c0073cbc758a65f192871e"),
            ("", "", "e711546e3faad4c7c4aa756bc26cad6a"),
        ]
    )
    func tokenMatchesKnownAnswer(domain: String, value: String, expectedHex: String) {
        let tokenizer = IndexTokenizer(key: Self.fixedKey)
        #expect(tokenizer.token(domain: domain, value: Data(value.utf8)) == Data(hex: expectedHex))
    }

    @Test func tokensAre16Bytes() {
        let tokenizer = IndexTokenizer(key: KeyWrap.randomKey())
        #expect(IndexTokenizer.tokenLength == 16)
        for value in ["", "a", String(repeating: "x", count: 10_000)] {
            #expect(tokenizer.token(domain: "genp/acct", value: Data(value.utf8)).count == 16)
        }
    }

    @Test func equalInputsGiveEqualTokens() {
        let key = KeyWrap.randomKey()
        let first = IndexTokenizer(key: key).token(domain: "genp/acct", value: Data("bob".utf8))
        let second = IndexTokenizer(key: key).token(domain: "genp/acct", value: [UInt8]("bob".utf8))
        #expect(first == second)
    }

    @Test func differentValuesGiveDifferentTokens() {
        let tokenizer = IndexTokenizer(key: KeyWrap.randomKey())
        let bob = tokenizer.token(domain: "genp/acct", value: Data("bob".utf8))
        #expect(bob != tokenizer.token(domain: "genp/acct", value: Data("Bob".utf8)))
        #expect(bob != tokenizer.token(domain: "genp/acct", value: Data("bob ".utf8)))
    }

    @Test func domainsSeparateEqualValues() {
        let tokenizer = IndexTokenizer(key: KeyWrap.randomKey())
        let value = Data("shared".utf8)
        let tokens = ["genp/acct", "genp/svce", "inet/acct", "pubkeyhash"].map {
            tokenizer.token(domain: $0, value: value)
        }
        #expect(Set(tokens).count == tokens.count)
    }

    /// The domain is length-prefixed, so moving bytes between domain and value changes the token.
    @Test func domainBoundaryIsUnambiguous() {
        let tokenizer = IndexTokenizer(key: KeyWrap.randomKey())
        #expect(
            tokenizer.token(domain: "genp/acc", value: Data("tbob".utf8))
                != tokenizer.token(domain: "genp/acct", value: Data("bob".utf8))
        )
    }

    @Test func differentKeysGiveUnrelatedTokens() {
        let value = Data("bob".utf8)
        let first = IndexTokenizer(key: KeyWrap.randomKey()).token(domain: "genp/acct", value: value)
        let second = IndexTokenizer(key: KeyWrap.randomKey()).token(domain: "genp/acct", value: value)
        #expect(first != second)
    }

    @Test func tokenIsNotThePlainValueOrAnUnkeyedHash() {
        let tokenizer = IndexTokenizer(key: KeyWrap.randomKey())
        let value = Data("alice@example.com".utf8)
        let token = tokenizer.token(domain: "genp/acct", value: value)
        #expect(token != value.prefix(16))
        #expect(token != Data(SHA256.hash(data: value)).prefix(16))
    }
}
