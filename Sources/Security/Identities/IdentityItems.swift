#if !canImport(Darwin)
import Foundation
import Latchkey

/// `kSecClassIdentity` in the keychain
/// (docs/apple-semantics.md §2.2): there is no identity table; an identity is a stored
/// private key (`priv = 1`) joined with each stored certificate whose `kSecAttrPublicKeyHash` equals the key's
/// `kSecAttrApplicationLabel`.
enum IdentityItems {
    /// Certificate attributes an identity query filters on (the only ones Apple's join exposes); every other
    /// query attribute filters the key.
    static let certificateFilters: Set<AttributeName> = [.label, .issuer, .serialNumber, .subjectKeyID, .tokenID]
    /// Where the certificate's DER travels inside a found identity (Apple's private `certdata` key); never
    /// returned to callers.
    static let certificateData: AttributeName = "certdata"
    /// Attributes that stay the key's when certificate attributes are overlaid: the identity's secret is the
    /// key's, so its protection must be too.
    private static let keyProtection: Set<AttributeName> = [.accessible, .accessControl]

    /// Finds identities for a `kSecClassIdentity` query, in key order then certificate order.
    ///
    /// - Throws: `errSecNotAvailable` for a filter on a certificate attribute the join does not expose (as
    ///   Apple's SQL "no such column"), `errSecItemNotFound` when nothing matches, or the store's errors.
    static func find(
        _ request: ItemRequest,
        _ store: KeychainStore,
        limit: MatchLimit,
        withData: Bool
    ) throws -> [FoundItem] {
        var keyFilters: [AttributeName: AttributeValue] = [:]
        var certificateFilters: [AttributeName: AttributeValue] = [:]
        let keySchema = ItemSchema.of(.key)
        for (name, value) in request.query.attributes {
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
        let certificateReference = request.persistentReference.map { Data("cert".utf8) + $0.dropFirst(4) }
        let certificates = try findAll(
            ItemQuery(
                .certificate,
                attributes: certificateFilters,
                synchronizable: .any,
                persistentReference: certificateReference
            ),
            store,
            withData: true
        )
        guard !certificates.isEmpty else { throw notFound }
        let keys = try findAll(
            ItemQuery(.key, attributes: keyFilters, synchronizable: request.query.synchronizable),
            store,
            withData: withData
        ).filter { $0.attributes[.isPrivate]?.boolValue == true }
        var identities: [FoundItem] = []
        for key in keys {
            guard let label = key.attributes[.applicationLabel]?.dataValue, !label.isEmpty else { continue }
            for certificate in certificates where certificate.attributes[.publicKeyHash]?.dataValue == label {
                let identity = joined(key: key, certificate: certificate)
                if let reference = request.valueRef as? SecIdentity, !matches(identity, reference) { continue }
                identities.append(identity)
                if let rows = limit.rowLimit, identities.count >= rows, request.valueRef == nil { return identities }
            }
        }
        guard !identities.isEmpty else { throw notFound }
        return identities
    }

    /// One identity: key attributes overlaid by the certificate's, the key's secret, the certificate's
    /// persistent reference under class `idnt`.
    static func joined(key: FoundItem, certificate: FoundItem) -> FoundItem {
        var attributes = key.attributes
        for (name, value) in certificate.attributes where !keyProtection.contains(name) {
            attributes[name] = value
        }
        if let der = certificate.data?.data { attributes[certificateData] = .data(der) }
        return FoundItem(
            itemClass: .identity,
            attributes: attributes,
            data: key.data,
            persistentReference: Data("idnt".utf8) + certificate.persistentReference.dropFirst(4)
        )
    }

    /// The `SecIdentity` of a found identity; `nil` when its parts do not form one.
    static func reference(for item: FoundItem) -> SecIdentity? {
        guard let der = item.attributes[certificateData]?.dataValue, let certificate = SecCertificate(der: der),
            let key = SecKey.fromStored(item)
        else { return nil }
        return SecIdentity(certificate: certificate, privateKey: key)
    }

    /// Whether a found identity is `reference` (same certificate, same key label).
    private static func matches(_ item: FoundItem, _ reference: SecIdentity) -> Bool {
        item.attributes[certificateData]?.dataValue == reference.certificate.der
            && item.attributes[.applicationLabel]?.dataValue == reference.privateKey.applicationLabel
    }

    /// Every match of `query`, or none.
    private static func findAll(_ query: ItemQuery, _ store: KeychainStore, withData: Bool) throws -> [FoundItem] {
        do {
            return try store.find(query, limit: .all, withData: withData)
        } catch {
            // Undecryptable rows are skipped, as in any search.
            guard error.code == .itemNotFound || error.code == .decode else { throw error }
            return []
        }
    }

    private static var notFound: KeychainError {
        KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
    }
}
#endif
