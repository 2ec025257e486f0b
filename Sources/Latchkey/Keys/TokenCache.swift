import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Synchronization

/// Search tokens for the current index key, with the few constant ones computed once per unlock and a
/// small memo of recently used ones (see `RecentTokens`).
struct TokenCache: Sendable {
    let tokenizer: IndexTokenizer
    private let recent = RecentTokens()
    private let classByToken: [ItemTable: [Data: Accessibility]]
    private let tokenByClass: [ItemTable: [Accessibility: Data]]
    private let zero: [ItemTable: Data]
    private let one: [ItemTable: (sync: Data, tomb: Data)]
    private let zeroTomb: [ItemTable: Data]

    init(tokenizer: IndexTokenizer) {
        self.tokenizer = tokenizer
        var classByToken: [ItemTable: [Data: Accessibility]] = [:]
        var tokenByClass: [ItemTable: [Accessibility: Data]] = [:]
        var zero: [ItemTable: Data] = [:]
        var zeroTomb: [ItemTable: Data] = [:]
        var one: [ItemTable: (sync: Data, tomb: Data)] = [:]
        for table in ItemTable.allCases {
            for keyClass in Accessibility.allCases {
                let token = Self.token(tokenizer, table, .accessible, .string(keyClass.rawValue))
                classByToken[table, default: [:]][token] = keyClass
                tokenByClass[table, default: [:]][keyClass] = token
            }
            zero[table] = Self.token(tokenizer, table, .synchronizable, .number(0))
            zeroTomb[table] = Self.token(tokenizer, table, .tombstone, .number(0))
            one[table] = (
                Self.token(tokenizer, table, .synchronizable, .number(1)),
                Self.token(tokenizer, table, .tombstone, .number(1))
            )
        }
        self.classByToken = classByToken
        self.tokenByClass = tokenByClass
        self.zero = zero
        self.zeroTomb = zeroTomb
        self.one = one
    }

    /// The storage column that holds `name`'s token in `table`, if any.
    static func column(for name: AttributeName, in table: ItemTable) -> String? {
        switch name {
        case .accessible: "kc"
        case .accessGroup: "agrp"
        case .synchronizable: "sync"
        case .tombstone: "tomb"
        default: table.searchColumns.contains(name.rawValue) ? name.rawValue : nil
        }
    }

    private static func token(
        _ tokenizer: IndexTokenizer,
        _ table: ItemTable,
        _ name: AttributeName,
        _ value: AttributeValue
    )
        -> Data
    {
        token(tokenizer, table, name, canonicalBytes: value.canonicalBytes)
    }

    private static func token(
        _ tokenizer: IndexTokenizer,
        _ table: ItemTable,
        _ name: AttributeName,
        canonicalBytes: Data
    )
        -> Data
    {
        // Application label (keys) and public-key hash (certificates) share a domain so identities can join.
        let domain =
            (name == .applicationLabel || name == .publicKeyHash) ? "pubkeyhash" : "\(table.rawValue)/\(name.rawValue)"
        return tokenizer.token(domain: domain, value: canonicalBytes)
    }

    /// The token of `value` for attribute `name` in `table`.
    func token(_ table: ItemTable, _ name: AttributeName, _ value: AttributeValue) -> Data {
        switch (name, value) {
        case (.accessible, .string(let code)):
            if let keyClass = Accessibility(rawValue: code), let token = tokenByClass[table]?[keyClass] { return token }
        case (.synchronizable, _) where value.numberValue == 0:
            if let token = zero[table] { return token }
        case (.synchronizable, _) where value.numberValue == 1:
            if let token = one[table]?.sync { return token }
        case (.tombstone, _) where value.numberValue == 0:
            if let token = zeroTomb[table] { return token }
        case (.tombstone, _) where value.numberValue == 1:
            if let token = one[table]?.tomb { return token }
        default:
            break
        }
        let key = RecentTokens.Key(table: table, name: name, bytes: value.canonicalBytes)
        if let token = recent.token(for: key) { return token }
        let token = Self.token(tokenizer, table, name, canonicalBytes: key.bytes)
        recent.remember(token, for: key)
        return token
    }

    /// The accessibility class whose token is `token`, or `nil` for an unknown (tampered) token.
    func keyClass(of token: Data?, in table: ItemTable) -> Accessibility? {
        token.flatMap { classByToken[table]?[$0] }
    }

    /// The token of `tomb = 1` in `table`.
    func tombstoneToken(_ table: ItemTable) -> Data? { one[table]?.tomb }

    /// Every token column of a row holding `attributes`.
    func rowTokens(_ table: ItemTable, _ attributes: [AttributeName: AttributeValue]) -> [String: Data] {
        var tokens: [String: Data] = [:]
        for column in table.tokenColumns {
            let name: AttributeName =
                switch column {
                case "kc": .accessible
                default: AttributeName(rawValue: column)
                }
            if let value = attributes[name] { tokens[column] = token(table, name, value) }
        }
        return tokens
    }

    /// The primary-key hash of `attributes` (defaults already applied).
    func primaryKey(_ table: ItemTable, _ schema: ItemSchema, _ attributes: [AttributeName: AttributeValue]) -> Data {
        tokenizer.token(domain: "\(table.rawValue)/pk", value: schema.primaryKeyBytes(of: attributes))
    }
}

/// A bounded memo of recently computed tokens, shared by every copy of one `TokenCache` (one index key).
///
/// Queries repeat a few values over and over (the caller's access groups on every search, usually one
/// service per application), and each token is an HMAC. The memo holds at most `capacity` entries and is
/// emptied when full, so values that keep changing (accounts drawn from many items) cost nothing but a
/// miss. It keeps attribute values (never secrets) in memory as long as the keychain stays open, which
/// the process holds anyway while it works with them.
final class RecentTokens: Sendable {
    /// Entries kept before the memo is emptied.
    static let capacity = 64

    struct Key: Hashable, Sendable {
        var table: ItemTable
        var name: AttributeName
        var bytes: Data
    }

    private let entries = Mutex<[Key: Data]>([:])

    func token(for key: Key) -> Data? {
        entries.withLock { $0[key] }
    }

    func remember(_ token: Data, for key: Key) {
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = token
        }
    }
}
