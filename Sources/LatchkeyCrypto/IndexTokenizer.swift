import Crypto
import Foundation

/// Keyed, truncated HMAC-SHA256 tokens that stand in for attribute values in searchable columns.
///
/// Two equal inputs give equal tokens, so SQL equality on tokens is equality on values; without the
/// index key a token reveals nothing but which rows share a value.
///
/// Token = HMAC-SHA256(index key, len(domain) ‖ domain ‖ value), truncated to 16 bytes. The HMAC is
/// keyed once (its inner and outer blocks are absorbed when the tokenizer is made), and a
/// `DomainTokenizer` also absorbs its domain once, so that a token costs only the value's blocks.
package struct IndexTokenizer: Sendable {
    /// Length of a token in bytes.
    package static let tokenLength = 16

    /// HMAC-SHA256 with the index key absorbed and nothing else.
    private let keyed: HMAC<SHA256>

    /// A tokenizer keyed by the file's index key.
    package init(key: SymmetricKey) {
        keyed = HMAC<SHA256>(key: key)
    }

    /// The token of `value` in `domain` (e.g. `"genp/acct"`); the domain separates equal values of
    /// different attributes.
    package func token(domain: String, value: some DataProtocol) -> Data {
        self.domain(domain).token(value)
    }

    /// The tokenizer of one domain, to keep for a domain used over and over.
    package func domain(_ domain: String) -> DomainTokenizer {
        var hmac = keyed
        let domainBytes = Array(domain.utf8)
        hmac.update(data: [UInt8(truncatingIfNeeded: domainBytes.count)])
        hmac.update(data: domainBytes)
        return DomainTokenizer(hmac: hmac)
    }
}

/// An `IndexTokenizer` with one domain already absorbed: `token(value)` equals
/// `IndexTokenizer.token(domain:value:)` for that domain.
package struct DomainTokenizer: Sendable {
    /// HMAC-SHA256 with the index key and `len(domain) ‖ domain` absorbed.
    private let hmac: HMAC<SHA256>

    fileprivate init(hmac: HMAC<SHA256>) {
        self.hmac = hmac
    }

    /// The token of `value`.
    package func token(_ value: some DataProtocol) -> Data {
        var hmac = self.hmac
        hmac.update(data: value)
        return Self.truncated(hmac.finalize())
    }

    /// The token of `value` (the concrete entry point of the read path: no generic dispatch).
    package func token(_ value: Data) -> Data {
        var hmac = self.hmac
        value.withUnsafeBytes { hmac.update(data: $0) }
        return Self.truncated(hmac.finalize())
    }

    /// The token of `prefix ‖ bytes`, without concatenating them first (an attribute's canonical
    /// bytes are a kind byte followed by its value).
    package func token(prefix: UInt8, _ bytes: UnsafeRawBufferPointer) -> Data {
        // One update of the joined bytes: each call into the HMAC costs more than copying a short value.
        withUnsafeTemporaryAllocation(byteCount: bytes.count + 1, alignment: 1) { joined in
            joined[0] = prefix
            if let source = bytes.baseAddress, let target = joined.baseAddress {
                (target + 1).copyMemory(from: source, byteCount: bytes.count)
            }
            var hmac = self.hmac
            hmac.update(data: UnsafeRawBufferPointer(joined))
            return Self.truncated(hmac.finalize())
        }
    }

    private static func truncated(_ mac: HMAC<SHA256>.MAC) -> Data {
        mac.withUnsafeBytes { Data($0.prefix(IndexTokenizer.tokenLength)) }
    }
}
