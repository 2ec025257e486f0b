#if !canImport(Darwin)
import Foundation
import Latchkey

/// `SecItemAdd` for `kSecClassIdentity` (docs/apple-semantics.md §2.2): the identity's certificate and
/// private key are translated as the same dictionary with `kSecClass` and `kSecValueRef` set to each part,
/// then added together by the core in one transaction (`errSecDuplicateItem` only when both exist).
/// Finding, updating and deleting identities are the core's (`IdentityJoin`).
enum IdentityCalls {
    /// Adds the identity in `kSecValueRef`.
    static func add(
        _ dictionary: NSDictionary,
        _ request: ItemRequest,
        _ service: any KeychainService,
        _ result: UnsafeMutablePointer<CFTypeRef?>?
    ) throws -> OSStatus {
        guard let identity = request.valueRef as? SecIdentity else {
            throw KeychainError(.param, "An identity is added with kSecValueRef holding a SecIdentity.")
        }
        let parts = try [
            part(dictionary, .certificate, identity.certificate),
            part(dictionary, .key, identity.privateKey),
        ]
        _ = try service.perform(.addAll(parts, tolerateExisting: true))
        guard let result, !request.returns.isEmpty else { return errSecSuccess }
        let withData = request.returns.contains(.data) || request.returns.contains(.ref)
        let lookup = ItemQuery(
            .identity,
            synchronizable: .any,
            identity: IdentityReference(
                certificate: identity.certificate.der,
                keyLabel: identity.privateKey.applicationLabel
            )
        )
        if let added = try service.find(lookup, limit: .one, withData: withData, authentication: .confirmed).first,
            let value = ResultShape.addValue(added, request.returns, accessControlGiven: request.accessControl != nil)
        {
            result.pointee = value
        }
        return errSecSuccess
    }

    /// One part of the identity as an item to add: `dictionary` with `kSecClass` and `kSecValueRef` set to
    /// the part, persistent reference and return keys removed, translated like any `SecItemAdd` dictionary.
    private static func part(_ dictionary: NSDictionary, _ itemClass: ItemClass, _ value: AnyObject) throws -> NewItem {
        let rewritten = NSMutableDictionary()
        for (key, entry) in dictionary {
            guard let name = ValueBridge.string(key) else { continue }
            if name == "class" || name == "v_Ref" || name == "v_PersistentRef" || name.hasPrefix("r_") { continue }
            rewritten[NSString(string: name)] = entry
        }
        rewritten[NSString(string: "class")] = NSString(string: itemClass.rawValue)
        rewritten[NSString(string: "v_Ref")] = value
        let request = ItemRequest.parse(rewritten, for: .add)
        if let error = request.clientError ?? request.parseError { throw error }
        var attributes = request.attributes
        if request.synchronizableAny { attributes[.synchronizable] = nil }
        return NewItem(itemClass, attributes: attributes, data: request.secret.map { SecretData($0) })
    }
}
#endif
