import Crypto
import Foundation
import LatchkeyCrypto
import LatchkeyStorage

extension KeychainStore {
    /// A decrypted row.
    package struct OpenedRow {
        package var row: ItemRow
        var keyClass: Accessibility
        package var attributes: [AttributeName: AttributeValue]
        package var secret: SecretData?
        /// The search-tag tokens sealed in the item's record.
        var tags: [Data] = []
        /// The tags' text in the order of `tags` (`nil` when not decoded, or written before tag text was kept).
        var tagText: [String]? = []

        /// The tags as they are sealed again when the item is rewritten with its tags kept.
        package var sealedTags: SealedTags { SealedTags(tokens: tags, text: tagText) }
    }

    /// Executes a search: the class's rows or the identity join, then host matching, the access-control
    /// policy, the match limit and the corrupt-row policy, all here.
    package func executeFind(_ request: FindRequest) throws(KeychainError) -> [FoundItem] {
        if request.referencesOnly { return try executeReferenceFind(request) }
        let query = request.query
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        // Filters applied after decryption make SQL's LIMIT inexact: fetch every match, trim at the end.
        let postFiltered = query.hostOrSubdomain != nil || (request.withData && request.authentication == .skip)
        var items: [FoundItem]
        var corrupt = 0
        if IdentityJoin.isIdentity(query) {
            let pairs = try mappingErrors {
                try storage.read { reader in
                    try IdentityJoin.pairs(
                        query,
                        limit: postFiltered ? nil : request.limit.rowLimit,
                        fetch: { part, withData in
                            try self.rows(part, reader: reader, withData: withData, snapshot, tokens).rows
                        },
                        withData: request.withData
                    )
                }
            }
            items = pairs.map(IdentityJoin.item)
        } else {
            let plan = try plan(query)
            let limit = plan.fullyIndexed && !postFiltered ? request.limit.rowLimit : nil
            let filter = try rowFilter(plan, tokens: tokens, limit: limit)
            let read = { (filter: RowFilter) throws(KeychainError) -> (rows: [OpenedRow], corrupt: Int) in
                try mappingErrors {
                    try self.storage.read { reader in
                        try self.openRows(
                            reader: reader,
                            plan: plan,
                            filter: filter,
                            withSecret: request.withData,
                            withTagText: request.withSearchTags,
                            snapshot
                        )
                    }
                }
            }
            var (opened, skipped) = try read(filter)
            if skipped > 0, filter.limit != nil {
                // A corrupt row took a place under the SQL LIMIT: read every match instead.
                var unlimited = filter
                unlimited.limit = nil
                (opened, skipped) = try read(unlimited)
            }
            corrupt = skipped
            items = opened.map { $0.found(plan.itemClass, withSearchTags: request.withSearchTags) }
        }
        if let host = query.hostOrSubdomain { items = items.filter { Self.serverMatches($0.attributes, host) } }
        if request.withData { items = try Self.applying(request.authentication, to: items) }
        if let rowLimit = request.limit.rowLimit, items.count > rowLimit { items.removeLast(items.count - rowLimit) }
        guard !items.isEmpty else {
            if corrupt > 0, request.corruptRows == .report {
                throw KeychainError(.decode, "The matching item failed authentication (corrupt or tampered).")
            }
            throw Self.notFound
        }
        return items
    }

    /// The rows matching `query` (a storable class), decrypted, with how many corrupt rows were skipped.
    func rows(
        _ query: ItemQuery,
        reader: StorageReader,
        withData: Bool,
        _ snapshot: KeyRing.Snapshot,
        _ tokens: TokenCache
    ) throws -> (plan: QueryPlan, rows: [OpenedRow], corrupt: Int) {
        let plan = try plan(query)
        let filter = try rowFilter(plan, tokens: tokens, limit: nil)
        let (rows, corrupt) = try openRows(reader: reader, plan: plan, filter: filter, withSecret: withData, snapshot)
        return (plan, rows, corrupt)
    }

    /// `kSecMatchHostOrSubdomainOfHost`: the item's server (text or UTF-8 data) is `host` or ends in `.host`.
    static func serverMatches(_ attributes: [AttributeName: AttributeValue], _ host: String) -> Bool {
        guard let value = attributes[.server],
            let server = value.stringValue ?? value.dataValue.flatMap({ String(data: $0, encoding: .utf8) })
        else { return false }
        return server == host || server.hasSuffix("." + host)
    }

    /// The access-control rule for items whose secret is about to be used (docs/apple-semantics.md §6.2):
    /// `skip` drops protected items, `fail` is `interactionNotAllowed`, `ask` is `interactionRequired`
    /// (authenticate, then repeat with `confirmed`).
    static func applying(_ policy: AuthenticationPolicy, to items: [FoundItem]) throws(KeychainError) -> [FoundItem] {
        let protected = items.map { AccessControlRecord(of: $0.attributes).requiresAuthentication }
        guard protected.contains(true) else { return items }
        switch policy {
        case .confirmed:
            return items
        case .skip:
            return zip(items, protected).filter { !$0.1 }.map(\.0)
        case .fail:
            throw KeychainError(
                .interactionNotAllowed,
                "The item needs user authentication and the request does not allow asking for it."
            )
        case .ask:
            throw KeychainError(.interactionRequired, "The item needs user authentication before it can be used.")
        }
    }

    /// `FindRequest.referencesOnly`: the persistent references of the rows the index selects (tokens and
    /// search tags), their ledger checked, no record opened; works with the index key alone.
    func executeReferenceFind(_ request: FindRequest) throws(KeychainError) -> [FoundItem] {
        let query = request.query
        guard !request.withData, !request.withSearchTags, query.hostOrSubdomain == nil,
            !IdentityJoin.isIdentity(query)
        else {
            throw KeychainError(
                .param,
                "A references-only search returns no secret, no tags, and serves no host match or identity."
            )
        }
        let plan = try plan(query)
        guard plan.attributes.keys.allSatisfy({ TokenCache.column(for: $0, in: plan.table) != nil }) else {
            throw KeychainError(.param, "A references-only search needs filters the index answers alone.")
        }
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        let filter = try rowFilter(plan, tokens: tokens, limit: request.limit.rowLimit)
        let rows = try mappingErrors {
            try storage.read { reader in
                let rows = try reader.select(from: plan.table, where: filter, includeSecret: false)
                let mismatched = try checkLedger(rows, in: plan.table, reader: reader, snapshot, tokens, write: nil)
                return rows.enumerated().filter { !mismatched.contains($0.offset) }.map(\.element)
            }
        }
        guard !rows.isEmpty else { throw Self.notFound }
        return rows.map { row in
            FoundItem(
                itemClass: plan.itemClass,
                attributes: [:],
                data: nil,
                persistentReference: Self.persistentReference(plan.itemClass, row.persistref)
            )
        }
    }

    /// Whether an item matches `query`, from the search tokens alone when every filter has a token column.
    package func executeExists(_ query: ItemQuery) throws(KeychainError) -> Bool {
        if !IdentityJoin.isIdentity(query) {
            let plan = try plan(query)
            // `fullyIndexed` is false with search tags: their tokens are checked in the decrypted records.
            if plan.fullyIndexed, plan.persistref == nil, query.hostOrSubdomain == nil {
                let snapshot = keys.snapshot()
                let tokens = try tokenCache(snapshot)
                let filter = try rowFilter(plan, tokens: tokens, limit: 1)
                return try mappingErrors {
                    try storage.read { reader in
                        let rows = try reader.select(from: plan.table, where: filter, includeSecret: false)
                        let mismatched = try checkLedger(
                            rows,
                            in: plan.table,
                            reader: reader,
                            snapshot,
                            tokens,
                            write: nil
                        )
                        return rows.count > mismatched.count
                    }
                }
            }
        }
        do {
            return try !executeFind(FindRequest(query, limit: .one, corruptRows: .skip)).isEmpty
        } catch {
            guard error.code == .itemNotFound else { throw error }
            return false
        }
    }

    package static var notFound: KeychainError {
        KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
    }
}

extension KeychainStore.OpenedRow {
    /// The row as a search result of `itemClass`, with its search tags when asked (and decoded).
    package func found(_ itemClass: ItemClass, withSearchTags: Bool = false) -> FoundItem {
        FoundItem(
            itemClass: itemClass,
            attributes: attributes,
            data: secret,
            persistentReference: KeychainStore.persistentReference(itemClass, row.persistref),
            searchTags: withSearchTags ? tagText : nil
        )
    }
}
