import Foundation
import LatchkeyCrypto
import LatchkeyStorage

extension TokenCache {
    /// The HMAC domain of search tags in `table` (`tag/<table>`): attribute domains are `<table>/<name>`
    /// or `pubkeyhash`, and no table is named `tag`, so a tag token never equals an attribute's.
    static func tagDomain(_ table: ItemTable) -> String { "tag/\(table.rawValue)" }

    /// The keyed tokens of search tags in `table`: one per distinct tag, sorted (the form sealed into
    /// records and written to the `tags` table).
    ///
    /// A tag is its UTF-8 bytes: tags that Swift calls equal but that differ in bytes (`"é"` precomposed or
    /// not) are two tags, so duplicates are removed among the tokens, not the strings.
    func tagTokens(_ table: ItemTable, _ tags: [String]) -> [Data] {
        guard !tags.isEmpty else { return [] }
        let domain = tokenizer.domain(Self.tagDomain(table))
        return Set(tags.map { domain.token(Data($0.utf8)) }).sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// The keyed tokens of search tags in `table` with each token's tag text (the text first given for it),
    /// in the order of `tagTokens(_:_:)`: what a record seals so that the tags can be read back (backups,
    /// migrations).
    package func sealedTags(_ table: ItemTable, _ tags: [String]) -> SealedTags {
        guard !tags.isEmpty else { return SealedTags() }
        let domain = tokenizer.domain(Self.tagDomain(table))
        var byToken: [Data: String] = [:]
        for tag in tags {
            let token = domain.token(Data(tag.utf8))
            if byToken[token] == nil { byToken[token] = tag }
        }
        let tokens = byToken.keys.sorted { $0.lexicographicallyPrecedes($1) }
        return SealedTags(tokens: tokens, text: tokens.map { byToken[$0] ?? "" })
    }
}

/// An item's search tags as its record seals them: the keyed tokens (sorted) and, when known, the tags' text
/// in the same order (`nil` for an item written before tag text was kept, which has tokens only).
package struct SealedTags: Equatable {
    /// The keyed tokens, sorted.
    var tokens: [Data] = []
    /// The text of each token, or `nil` when it is not known.
    var text: [String]? = []
}
