#if !canImport(Darwin)
import Foundation
import Latchkey

extension ItemRequest {
    /// Attributes a `SecKey` used as a *query* does not contribute (docs/apple-semantics.md §1.9: Apple's client drops
    /// `kSecAttrCan*` and `kSecAttrIsPermanent`).
    private static let attributesNotQueriedByRef: Set<String> = [
        "perm", "encr", "decr", "drve", "sign", "vrfy", "snrc", "vyrc", "wrap", "unwp",
    ]

    /// Without `kSecClass`, a `SecKey` (`SecCertificate`) under `kSecValueRef` makes the dictionary a key
    /// (certificate) dictionary.
    mutating func inferClassFromValueRef(_ entries: [(key: String, value: Any)]) {
        guard itemClass == nil, parseError == nil, let value = entries.first(where: { $0.key == "v_Ref" })?.value
        else { return }
        if value is SecKey { itemClass = .key }
        if value is SecCertificate { itemClass = .certificate }
        if value is SecIdentity { itemClass = .identity }
    }

    /// Expands `kSecValueRef` into the key's attributes (the caller's explicit attributes win) and, on
    /// add, its external representation as the secret (docs/apple-semantics.md §1.8, §1.9).
    mutating func applyValueRef(_ call: SecItemCall) {
        guard let reference = valueRef else { return }
        if let certificate = reference as? SecCertificate {
            applyCertificateRef(certificate, call)
            return
        }
        if reference is SecIdentity {
            // Identities are split into their certificate and key by IdentityCalls / IdentityItems.
            if itemClass != .identity {
                client("kSecValueRef holds a SecIdentity but kSecClass is not kSecClassIdentity.")
            }
            return
        }
        guard let key = reference as? SecKey else {
            client("kSecValueRef supports SecKey, SecCertificate and SecIdentity objects only.")
            return
        }
        guard itemClass == .key else {
            client("kSecValueRef holds a SecKey but kSecClass is not kSecClassKey.")
            return
        }
        var derived = key.attributeDictionary
        derived["kcls"] = key.isPrivate ? 1 : 0
        derived["type"] = key.typeNumber
        for (name, value) in derived.sorted(by: { $0.key < $1.key }) {
            if call != .add, Self.attributesNotQueriedByRef.contains(name) { continue }
            if attributes[AttributeName(rawValue: name)] != nil { continue }
            parseAttribute(name, value)
        }
        if call == .add, secret == nil { secret = key.externalRepresentation }
    }

    /// Expands a `SecCertificate` into its derived attributes (caller wins) and, on add, its DER as the
    /// secret and its subject summary as the label when none is given (docs/apple-semantics.md §2.1).
    private mutating func applyCertificateRef(_ certificate: SecCertificate, _ call: SecItemCall) {
        guard itemClass == .certificate else {
            client("kSecValueRef holds a SecCertificate but kSecClass is not kSecClassCertificate.")
            return
        }
        var derived = certificate.attributeDictionary
        if call == .add, let summary = certificate.subjectSummary { derived["labl"] = summary }
        for (name, value) in derived.sorted(by: { $0.key < $1.key }) {
            if attributes[AttributeName(rawValue: name)] != nil { continue }
            parseAttribute(name, value)
        }
        if call == .add, secret == nil { secret = certificate.der }
    }
}

/// The reference object `kSecReturnRef` gives for a stored item.
enum ItemReference {
    /// A `SecKey` for keys, a `SecCertificate` for certificates, a `SecIdentity` for identities; `nil` for
    /// other classes or unusable data.
    static func object(for item: FoundItem) -> AnyObject? {
        switch item.itemClass {
        case .key: return SecKey.fromStored(item)
        case .certificate: return item.data.flatMap { SecCertificate(der: $0.data) }
        case .identity: return IdentityItems.reference(for: item)
        case .genericPassword, .internetPassword: return nil
        }
    }
}

extension SecKey {
    /// Rebuilds the key of a found key or identity (whose attributes and secret are the key's) from its
    /// `v_Data` and its `type`/`kcls` attributes; `nil` when they do not form a supported key (e.g. a key added
    /// from raw data without derived attributes).
    static func fromStored(_ item: FoundItem) -> SecKey? {
        guard let data = item.data?.data, let type = item.attributes[.keyType]?.numberValue,
            let keyClass = item.attributes[.keyClass]?.numberValue
        else { return nil }
        return try? SecKey.make(type: Int(type), isPrivate: keyClass == 1, size: nil, data: data)
    }
}
#endif
