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
}
