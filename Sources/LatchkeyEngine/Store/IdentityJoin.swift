import Foundation
import LatchkeyStorage

/// `kSecClassIdentity` (docs/apple-semantics.md §2.2): there is no identity table; an identity is a stored
/// private key (`priv = 1`) joined with each stored certificate whose `kSecAttrPublicKeyHash` equals the
/// key's `kSecAttrApplicationLabel`. The one place that knows how identities are found, shown, added,
/// updated and deleted.
enum IdentityJoin {
    /// Certificate attributes an identity query filters on (the only ones Apple's join exposes); every other
    /// query attribute filters the key.
    static let certificateFilters: Set<AttributeName> = [.label, .issuer, .serialNumber, .subjectKeyID, .tokenID]
    /// Where the certificate's DER travels inside a found identity.
    static let certificateData = AttributeName.identityCertificate
    /// Attributes that stay the key's when certificate attributes are overlaid: the identity's secret is the
    /// key's, so its protection must be too.
    static let keyProtection: Set<AttributeName> = [.accessible, .accessControl]

    /// One identity's two rows.
    struct Pair {
        var key: KeychainStore.OpenedRow
        var certificate: KeychainStore.OpenedRow
    }

    /// Search tags belong to stored items; an identity is a join of two.
    static var searchTagsRefused: KeychainError {
        KeychainError(.param, "Search tags do not apply to identities; tag and search their certificate or key.")
    }

    /// Whether `query` names identities (by class or by an `idnt` persistent reference).
    static func isIdentity(_ query: ItemQuery) -> Bool {
        query.itemClass == .identity || query.persistentReference?.prefix(4) == Data(ItemClass.identity.rawValue.utf8)
    }

    /// The certificate and key queries of an identity query.
    ///
    /// - Throws: `notAvailable` for a filter on a certificate attribute the join does not expose (as Apple's
    ///   SQL "no such column").
    static func partQueries(_ query: ItemQuery) throws(KeychainError) -> (certificate: ItemQuery, key: ItemQuery) {
        guard query.searchTags.isEmpty else { throw searchTagsRefused }
        var keyFilters: [AttributeName: AttributeValue] = [:]
        var certificateFilters: [AttributeName: AttributeValue] = [:]
        let keySchema = ItemSchema.of(.key)
        for (name, value) in query.attributes {
            if Self.certificateFilters.contains(name) {
                certificateFilters[name] = value
            } else if keySchema.attributes[name] != nil {
                keyFilters[name] = value
            } else {
                throw KeychainError(
                    .notAvailable,
                    "An identity query cannot filter on certificate attribute '\(name.rawValue)'; "
                        + "only kSecAttrLabel, kSecAttrIssuer, kSecAttrSerialNumber and kSecAttrSubjectKeyID."
                )
            }
        }
        if let label = query.identity?.keyLabel { keyFilters[.applicationLabel] = .data(label) }
        let certificateReference = query.persistentReference.map {
            Data(ItemClass.certificate.rawValue.utf8) + $0.dropFirst(4)
        }
        return (
            ItemQuery(
                .certificate,
                attributes: certificateFilters,
                synchronizable: .any,
                persistentReference: certificateReference
            ),
            ItemQuery(
                .key,
                attributes: keyFilters,
                synchronizable: query.persistentReference != nil ? .any : query.synchronizable
            )
        )
    }

    /// Joins keys and certificates, in key order then certificate order.
    static func pairs(
        _ query: ItemQuery,
        limit: Int?,
        fetch: (ItemQuery, _ withData: Bool) throws -> [KeychainStore.OpenedRow],
        withData: Bool
    ) throws -> [Pair] {
        let (certificateQuery, keyQuery) = try partQueries(query)
        let certificates = try fetch(certificateQuery, true)
        guard !certificates.isEmpty else { return [] }
        let keys = try fetch(keyQuery, withData).filter { $0.attributes[.isPrivate]?.boolValue == true }
        var pairs: [Pair] = []
        for key in keys {
            guard let label = key.attributes[.applicationLabel]?.dataValue, !label.isEmpty else { continue }
            for certificate in certificates where certificate.attributes[.publicKeyHash]?.dataValue == label {
                if let reference = query.identity, certificate.secret?.data != reference.certificate { continue }
                pairs.append(Pair(key: key, certificate: certificate))
                if let limit, pairs.count >= limit { return pairs }
            }
        }
        return pairs
    }

    /// One identity as a search returns it: key attributes overlaid by the certificate's, the key's secret,
    /// the certificate's DER under `certdata`, the certificate's persistent reference under class `idnt`.
    static func item(_ pair: Pair) -> FoundItem {
        var attributes = pair.key.attributes
        for (name, value) in pair.certificate.attributes where !keyProtection.contains(name) {
            attributes[name] = value
        }
        if let der = pair.certificate.secret?.data { attributes[certificateData] = .data(der) }
        return FoundItem(
            itemClass: .identity,
            attributes: attributes,
            data: pair.key.secret,
            persistentReference: KeychainStore.persistentReference(.identity, pair.certificate.row.persistref)
        )
    }
}
