import Foundation
import LatchkeyCrypto
import LatchkeyStorage
import Synchronization

/// Search tokens for the current index key, with the few constant ones computed once per unlock and a
/// small memo of recently used ones (see `RecentTokens`).
struct TokenCache: Sendable {
    let tokenizer: IndexTokenizer
    /// The row ledger's keys (derived from the same index key).
    let ledger: LedgerContext
    private let recent = RecentTokens()
    private let classByToken: [ItemTable: [Data: Accessibility]]
    private let tokenByClass: [ItemTable: [Accessibility: Data]]
    private let zero: [ItemTable: Data]
    private let one: [ItemTable: (sync: Data, tomb: Data)]
    private let zeroTomb: [ItemTable: Data]
    /// The keyed HMAC of every token column's domain, with the domain absorbed, per table.
    private let domains: [ItemTable: [AttributeName: DomainTokenizer]]
    /// The keyed HMAC of each table's primary-key domain.
    private let primaryKeyDomains: [ItemTable: DomainTokenizer]

    init(tokenizer: IndexTokenizer) {
        self.tokenizer = tokenizer
        self.ledger = LedgerContext(tokenizer: tokenizer)
        var domains: [ItemTable: [AttributeName: DomainTokenizer]] = [:]
        var primaryKeyDomains: [ItemTable: DomainTokenizer] = [:]
        for table in ItemTable.allCases {
            var byName: [AttributeName: DomainTokenizer] = [:]
            for column in table.tokenColumns {
                let name = Self.attributeName(ofColumn: column)
                byName[name] = tokenizer.domain(Self.domain(table, name))
            }
            domains[table] = byName
            primaryKeyDomains[table] = tokenizer.domain("\(table.rawValue)/pk")
        }
        self.domains = domains
        self.primaryKeyDomains = primaryKeyDomains
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
        tokenizer.token(domain: domain(table, name), value: canonicalBytes)
    }

    /// The HMAC domain of attribute `name` in `table`.
    private static func domain(_ table: ItemTable, _ name: AttributeName) -> String {
        // Application label (keys) and public-key hash (certificates) share a domain so identities can join.
        (name == .applicationLabel || name == .publicKeyHash) ? "pubkeyhash" : "\(table.rawValue)/\(name.rawValue)"
    }

    /// The attribute whose token a column holds.
    private static func attributeName(ofColumn column: String) -> AttributeName {
        column == "kc" ? .accessible : AttributeName(rawValue: column)
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
        let key = RecentTokens.Key(table: table, name: name, value: value)
        if let token = recent.token(for: key) { return token }
        let token = computeToken(table, name, value)
        recent.remember(token, for: key)
        return token
    }

    /// The HMAC of `value`'s canonical bytes in its domain, from the pre-keyed domain state (without
    /// building the canonical `Data` for strings and data).
    private func computeToken(_ table: ItemTable, _ name: AttributeName, _ value: AttributeValue) -> Data {
        guard let domain = domains[table]?[name] else {
            return Self.token(tokenizer, table, name, canonicalBytes: value.canonicalBytes)
        }
        return value.withCanonicalBytes { domain.token($0, $1) }
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
            let name = Self.attributeName(ofColumn: column)
            if let value = attributes[name] { tokens[column] = token(table, name, value) }
        }
        return tokens
    }

    /// The primary-key hash of `attributes` (defaults already applied).
    func primaryKey(_ table: ItemTable, _ schema: ItemSchema, _ attributes: [AttributeName: AttributeValue]) -> Data {
        let bytes = schema.primaryKeyBytes(of: attributes)
        return primaryKeyDomains[table]?.token(bytes) ?? tokenizer.token(domain: "\(table.rawValue)/pk", value: bytes)
    }
}

/// A bounded memo of recently computed tokens, shared by every copy of one `TokenCache` (one index key).
///
/// Queries repeat a few values over and over (the caller's access groups on every search, usually one
/// service per application), and each token is an HMAC. The memo keeps two generations of at most
/// `capacity` entries: new tokens go into the current one; when it is full it becomes the previous one
/// and the oldest is dropped; a token found in the previous generation moves back into the current one.
/// So values used again and again stay, while values that keep changing (accounts drawn from many
/// items) pass through and cost nothing but a miss. It keeps attribute values (never secrets) in memory
/// as long as the keychain stays open, which the process holds anyway while it works with them.
final class RecentTokens: Sendable {
    /// Entries per generation.
    static let capacity = 64

    /// A value as the caller gave it (`.string("a")` and `.data("a")` are two keys for one token).
    struct Key: Hashable, Sendable {
        var table: ItemTable
        var name: AttributeName
        var value: AttributeValue
    }

    private struct Generations {
        var current: [Key: Data] = [:]
        var previous: [Key: Data] = [:]

        mutating func insert(_ token: Data, for key: Key) {
            if current.count >= RecentTokens.capacity {
                previous = current
                current = [:]
                current.reserveCapacity(RecentTokens.capacity)
            }
            current[key] = token
        }
    }

    private let generations = Mutex(Generations())

    func token(for key: Key) -> Data? {
        generations.withLock { generations in
            if let token = generations.current[key] { return token }
            guard let token = generations.previous[key] else { return nil }
            generations.insert(token, for: key)
            return token
        }
    }

    func remember(_ token: Data, for key: Key) {
        generations.withLock { $0.insert(token, for: key) }
    }
}
