import Foundation
import LatchkeyStorage

extension ItemTransaction {
    /// The identities matching `query` inside the transaction.
    func identityPairs(_ query: ItemQuery, withData: Bool) throws -> [IdentityJoin.Pair] {
        try IdentityJoin.pairs(query, limit: nil, fetch: { try find($0, withData: $1).rows }, withData: withData)
    }

    /// `SecItemDelete` of identities (docs/apple-semantics.md §2.2), in this one transaction: a named
    /// identity (`kSecValueRef`, an `idnt` persistent reference) loses its certificate, and its key unless
    /// another certificate still pairs with it; a plain query runs as a certificate delete and then a key
    /// delete with the same attributes, as Apple's client does.
    func deleteIdentities(_ query: ItemQuery) throws -> Int {
        guard query.searchTags.isEmpty else { throw IdentityJoin.searchTagsRefused }
        guard query.identity != nil || query.persistentReference != nil else {
            let certificates = try deleteAll(
                ItemQuery(.certificate, attributes: query.attributes, synchronizable: query.synchronizable)
            )
            let keys = try deleteAll(
                ItemQuery(.key, attributes: query.attributes, synchronizable: query.synchronizable)
            )
            return certificates + keys
        }
        let (certificates, keys) = try namedParts(query, withData: false)
        let certificatePlan = try store.plan(ItemQuery(.certificate))
        for certificate in certificates { try delete(certificate, plan: certificatePlan) }
        var deleted = certificates.count
        let keyPlan = try store.plan(ItemQuery(.key))
        for key in keys {
            let label = key.attributes[.applicationLabel] ?? .data(Data())
            let stillPaired = try !find(
                ItemQuery(.certificate, attributes: [.publicKeyHash: label], synchronizable: .any),
                withData: false
            ).rows.isEmpty
            if !stillPaired {
                try delete(key, plan: keyPlan)
                deleted += 1
            }
        }
        return deleted
    }

    /// The certificates and private keys of a named identity: by `kSecValueRef`, the certificate rows with its
    /// DER and the key rows with its label that the query's other attributes (an access group ...) also
    /// match, as Apple's client runs the call once per part; by an `idnt` persistent reference, the join's.
    func namedParts(
        _ query: ItemQuery,
        withData: Bool
    ) throws -> (
        certificates: [KeychainStore.OpenedRow], keys: [KeychainStore.OpenedRow]
    ) {
        guard let reference = query.identity else {
            let pairs = try identityPairs(query, withData: withData)
            var seen = Set<Int64>()
            let keys = pairs.map(\.key).filter { seen.insert($0.row.id ?? -1).inserted }
            return (pairs.map(\.certificate), keys)
        }
        let certificates = try find(
            ItemQuery(.certificate, attributes: query.attributes, synchronizable: query.synchronizable),
            withData: true
        ).rows.filter { $0.secret?.data == reference.certificate }
        var keyAttributes = query.attributes
        keyAttributes[.applicationLabel] = .data(reference.keyLabel)
        let keys = try find(
            ItemQuery(.key, attributes: keyAttributes, synchronizable: query.synchronizable),
            withData: withData
        ).rows.filter { $0.attributes[.isPrivate]?.boolValue == true }
        return (certificates, keys)
    }

    /// `SecItemUpdate` of identities: the changes apply to each identity's certificate and then its key
    /// (named identities), or to the certificates and keys the same attributes match (plain queries).
    func updateIdentities(
        _ query: ItemQuery,
        with changes: ItemChanges,
        _ authentication: AuthenticationPolicy
    ) throws -> Int {
        guard query.searchTags.isEmpty, changes.searchTags == nil else { throw IdentityJoin.searchTagsRefused }
        guard query.identity != nil || query.persistentReference != nil else {
            let certificates = try updateAll(
                ItemQuery(.certificate, attributes: query.attributes, synchronizable: query.synchronizable),
                with: changes,
                authentication: authentication
            )
            let keys = try updateAll(
                ItemQuery(.key, attributes: query.attributes, synchronizable: query.synchronizable),
                with: changes,
                authentication: authentication
            )
            return certificates + keys
        }
        let (certificates, keys) = try namedParts(query, withData: true)
        _ = try KeychainStore.applying(authentication, to: keys.map { $0.found(.key) })
        let certificatePlan = try store.plan(ItemQuery(.certificate))
        let keyPlan = try store.plan(ItemQuery(.key))
        for certificate in certificates { _ = try update(certificate, plan: certificatePlan, with: changes) }
        for key in keys { _ = try update(key, plan: keyPlan, with: changes) }
        return certificates.count + keys.count
    }
}
