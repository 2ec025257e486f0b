import Crypto
import Foundation

/// Keyed, truncated HMAC-SHA256 tokens that stand in for attribute values in searchable columns.
///
/// Two equal inputs give equal tokens, so SQL equality on tokens is equality on values; without the
/// index key a token reveals nothing but which rows share a value.
///
/// Token = HMAC-SHA256(index key, len(domain) ‖ domain ‖ value), truncated to 16 bytes. The HMAC is
/// keyed once: the hash states after the key's inner and outer pad blocks are kept (RFC 2104), and a
/// `DomainTokenizer` also absorbs its domain once, so that a token costs only the value's blocks. The
/// construction runs on swift-crypto's SHA-256 directly (its `HMAC` is generic over the hash, which
/// costs more per token than the two compressions); `IndexTokenizerTests` holds it to known answers
/// and `TokenCacheTests` to swift-crypto's `HMAC`.
package struct IndexTokenizer: Sendable {
    /// Length of a token in bytes.
    package static let tokenLength = 16

    /// SHA-256 after `key ⊕ ipad` and after `key ⊕ opad`.
    private let keyed: KeyedSHA256

    /// A tokenizer keyed by the file's index key.
    package init(key: SymmetricKey) {
        keyed = KeyedSHA256(key: key)
    }

    /// The token of `value` in `domain` (e.g. `"genp/acct"`); the domain separates equal values of
    /// different attributes.
    package func token(domain: String, value: some DataProtocol) -> Data {
        self.domain(domain).token(value)
    }

    /// The tokenizer of one domain, to keep for a domain used over and over.
    package func domain(_ domain: String) -> DomainTokenizer {
        var keyed = self.keyed
        let domainBytes = Array(domain.utf8)
        keyed.inner.update(data: [UInt8(truncatingIfNeeded: domainBytes.count)])
        keyed.inner.update(data: domainBytes)
        return DomainTokenizer(keyed: keyed)
    }
}

/// An `IndexTokenizer` with one domain already absorbed: `token(value)` equals
/// `IndexTokenizer.token(domain:value:)` for that domain.
package struct DomainTokenizer: Sendable {
    /// The keyed states, with `len(domain) ‖ domain` absorbed by the inner one.
    private let keyed: KeyedSHA256

    fileprivate init(keyed: KeyedSHA256) {
        self.keyed = keyed
    }

    /// The token of `value`.
    package func token(_ value: some DataProtocol) -> Data {
        var inner = keyed.inner
        inner.update(data: value)
        return keyed.finish(inner)
    }

    /// The token of `value` (the concrete entry point of the read path: no generic dispatch).
    package func token(_ value: Data) -> Data {
        var inner = keyed.inner
        value.withUnsafeBytes { inner.update(bufferPointer: $0) }
        return keyed.finish(inner)
    }

    /// The token of the bytes `body` feeds, in order, to the function it is given (a message written in
    /// pieces, such as a row's columns, without assembling it first).
    package func token(_ body: ((UnsafeRawBufferPointer) -> Void) -> Void) -> Data {
        var inner = keyed.inner
        body { inner.update(bufferPointer: $0) }
        return keyed.finish(inner)
    }

    /// The token of `first ‖ second`, without the caller concatenating them (an attribute's canonical
    /// bytes are a kind byte followed by its value).
    package func token(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Data {
        var inner = keyed.inner
        inner.update(bufferPointer: first)
        inner.update(bufferPointer: second)
        return keyed.finish(inner)
    }
}

/// HMAC-SHA256 pre-keyed: the SHA-256 states after the key's inner and outer pad blocks.
private struct KeyedSHA256: Sendable {
    var inner = SHA256()
    var outer = SHA256()

    init(key: SymmetricKey) {
        let blockSize = SHA256.blockByteCount
        var block = [UInt8](repeating: 0, count: blockSize)
        key.withUnsafeBytes { bytes in
            if bytes.count > blockSize {
                SHA256.hash(data: bytes).withUnsafeBytes { digest in
                    for index in digest.indices { block[index] = digest[index] }
                }
            } else {
                for index in bytes.indices { block[index] = bytes[index] }
            }
        }
        var pad = block
        for index in pad.indices { pad[index] = block[index] ^ 0x36 }
        inner.update(data: pad)
        for index in pad.indices { pad[index] = block[index] ^ 0x5C }
        outer.update(data: pad)
        for index in block.indices {
            block[index] = 0
            pad[index] = 0
        }
    }

    /// `SHA256(outer ‖ SHA256(inner ‖ message))`, truncated to a token.
    func finish(_ inner: SHA256) -> Data {
        var outer = self.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize().withUnsafeBytes { Data($0.prefix(IndexTokenizer.tokenLength)) }
    }
}
