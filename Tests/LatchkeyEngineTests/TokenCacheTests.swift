import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// Search tokens: the read path's shortcuts give exactly the tokens of the definition
/// HMAC-SHA256(index key, len(domain) ‖ domain ‖ canonical bytes), truncated to 16 bytes.
struct TokenCacheTests {
    static let key = SymmetricKey(data: Data((0..<32).map { UInt8($0) }))

    /// The token by the definition, with swift-crypto's HMAC keyed afresh.
    static func definition(_ domain: String, _ value: AttributeValue) -> Data {
        var hmac = HMAC<SHA256>(key: key)
        let domainBytes = Array(domain.utf8)
        hmac.update(data: [UInt8(domainBytes.count)] + domainBytes)
        hmac.update(data: value.canonicalBytes)
        return Data(hmac.finalize()).prefix(16)
    }

    static let values: [AttributeValue] = [
        .string("alice"), .string(""), .string("ünïcødé 🔑"), .data(Data()), .data(Data([0, 1, 0xFF])),
        .number(0), .number(1), .number(-42), .double(2.5), .double(3), .date(Date(timeIntervalSinceReferenceDate: 9)),
        .string(String(repeating: "x", count: 5000)),
    ]

    @Test(arguments: ItemTable.allCases)
    func everyColumnTokenMatchesTheDefinition(table: ItemTable) {
        let cache = TokenCache(tokenizer: IndexTokenizer(key: Self.key))
        for column in table.tokenColumns {
            let name: AttributeName = column == "kc" ? .accessible : AttributeName(rawValue: column)
            for value in Self.values {
                let domain =
                    (name == .applicationLabel || name == .publicKeyHash)
                    ? "pubkeyhash" : "\(table.rawValue)/\(name.rawValue)"
                // Twice: the second answer comes from the memo.
                #expect(cache.token(table, name, value) == Self.definition(domain, value))
                #expect(cache.token(table, name, value) == Self.definition(domain, value))
            }
        }
    }

    @Test func stringAndDataWithEqualBytesShareATokenAsDoEqualNumbers() {
        let cache = TokenCache(tokenizer: IndexTokenizer(key: Self.key))
        #expect(cache.token(.genp, .account, .string("bob")) == cache.token(.genp, .account, .data(Data("bob".utf8))))
        #expect(cache.token(.genp, .type, .number(3)) == cache.token(.genp, .type, .double(3)))
        #expect(cache.token(.genp, .account, .string("bob")) != cache.token(.genp, .service, .string("bob")))
    }

    @Test func aDomainTokenizerEqualsTheTokenizer() {
        let tokenizer = IndexTokenizer(key: Self.key)
        let domain = tokenizer.domain("genp/acct")
        for bytes in [Data(), Data("alice".utf8), Data(repeating: 7, count: 300)] {
            let expected = tokenizer.token(domain: "genp/acct", value: bytes)
            #expect(domain.token(bytes) == expected)
            #expect(domain.token(Array(bytes)) == expected)
            for cut in [0, bytes.count / 2, bytes.count] {
                let (head, tail) = (Data(bytes.prefix(cut)), Data(bytes.dropFirst(cut)))
                let joined = head.withUnsafeBytes { first in tail.withUnsafeBytes { domain.token(first, $0) } }
                #expect(joined == expected)
            }
        }
    }

    /// Values used on every query (the service, the access group) stay in the memo while a stream of
    /// distinct values (accounts) passes through it.
    @Test func repeatedValuesSurviveAStreamOfDistinctOnes() {
        let memo = RecentTokens()
        let service = RecentTokens.Key(table: .genp, name: .service, value: .string("svc"))
        memo.remember(Data([1]), for: service)
        for index in 0..<(RecentTokens.capacity * 10) {
            #expect(memo.token(for: service) == Data([1]))
            let account = RecentTokens.Key(table: .genp, name: .account, value: .string("user-\(index)"))
            #expect(memo.token(for: account) == nil)
            memo.remember(Data([2]), for: account)
        }
        let old = RecentTokens.Key(table: .genp, name: .account, value: .string("user-0"))
        #expect(memo.token(for: old) == nil)
    }
}
