import Crypto
import Foundation

/// Keyed, truncated HMAC-SHA256 tokens that stand in for attribute values in searchable columns.
///
/// Two equal inputs give equal tokens, so SQL equality on tokens is equality on values; without the
/// index key a token reveals nothing but which rows share a value.
package struct IndexTokenizer: Sendable {
    /// Length of a token in bytes.
    package static let tokenLength = 16

    private let key: SymmetricKey

    /// A tokenizer keyed by the file's index key.
    package init(key: SymmetricKey) {
        self.key = key
    }

    /// The token of `value` in `domain` (e.g. `"genp/acct"`); the domain separates equal values of
    /// different attributes.
    package func token(domain: String, value: some DataProtocol) -> Data {
        var hmac = HMAC<SHA256>(key: key)
        let domainBytes = Array(domain.utf8)
        hmac.update(data: [UInt8(truncatingIfNeeded: domainBytes.count)])
        hmac.update(data: domainBytes)
        hmac.update(data: value)
        let mac = hmac.finalize()
        return mac.withUnsafeBytes { Data($0.prefix(Self.tokenLength)) }
    }
}
