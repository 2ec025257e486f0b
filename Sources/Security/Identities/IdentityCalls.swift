#if !canImport(Darwin)
import Foundation
import Latchkey

/// `SecItemAdd`, `SecItemUpdate` and `SecItemDelete` for `kSecClassIdentity`
/// (docs/apple-semantics.md §2.2): each runs as
/// the same call on the certificate and then on the private key, as Apple's client does.
enum IdentityCalls {
    /// Adds the identity in `kSecValueRef`: its certificate (an existing one is tolerated), then its private
    /// key. `errSecDuplicateItem` only when both were already stored.
    static func add(
        _ dictionary: NSDictionary,
        _ request: ItemRequest,
        _ store: KeychainStore,
        _ result: UnsafeMutablePointer<CFTypeRef?>?
    ) throws -> OSStatus {
        guard let identity = request.valueRef as? SecIdentity else {
            throw KeychainError(.param, "An identity is added with kSecValueRef holding a SecIdentity.")
        }
        if !request.otherMatchKeys.isEmpty || request.limit != nil { return errSecSuccess }  // as SecItemAdd
        let certificateAdded = try addTolerantly(rewritten(dictionary, "cert", identity.certificate))
        let keyAdded = try addTolerantly(rewritten(dictionary, "keys", identity.privateKey))
        guard certificateAdded || keyAdded else {
            throw KeychainError(
                .duplicateItem,
                "The identity's certificate and private key are already in the keychain."
            )
        }
        guard let result, !request.returns.isEmpty else { return errSecSuccess }
        let lookup = ItemRequest.parse(["class": "idnt", "v_Ref": identity] as NSDictionary, for: .copyMatching)
        let withData = request.returns.contains(.data) || request.returns.contains(.ref)
        if let added = try IdentityItems.find(lookup, store, limit: .one, withData: withData).first,
            let value = ResultShape.addValue(added, request.returns, accessControlGiven: request.accessControl != nil)
        {
            result.pointee = value
        }
        return errSecSuccess
    }

    /// Deletes by identity reference (certificate, then the key unless another certificate still pairs with it)
    /// or, without one, runs the query as a certificate delete and then as a key delete.
    static func delete(_ dictionary: NSDictionary, _ request: ItemRequest, _ store: KeychainStore) throws -> OSStatus {
        guard let identity = try reference(request, store) else {
            let certificates = try deleteCounting(rewritten(dictionary, "cert", nil))
            let keys = try deleteCounting(rewritten(dictionary, "keys", nil))
            guard certificates || keys else { throw notFound }
            return errSecSuccess
        }
        let certificate = try deleteCounting(rewritten(dictionary, "cert", identity.certificate))
        let key =
            try !isStillPaired(identity.privateKey, store)
            && deleteCounting(rewritten(dictionary, "keys", identity.privateKey))
        guard certificate || key else { throw notFound }
        return errSecSuccess
    }

    /// Applies `attributesToUpdate` to the certificate and then to the key (by reference, or with the same query).
    static func update(
        _ query: NSDictionary,
        _ request: ItemRequest,
        _ store: KeychainStore,
        _ attributesToUpdate: NSDictionary
    ) throws -> OSStatus {
        let identity = try reference(request, store)
        let certificate = try updateCounting(rewritten(query, "cert", identity?.certificate), attributesToUpdate)
        let key = try updateCounting(rewritten(query, "keys", identity?.privateKey), attributesToUpdate)
        guard certificate || key else { throw notFound }
        return errSecSuccess
    }

    /// Whether any stored certificate (in any of the caller's groups) still pairs with `key`.
    private static func isStillPaired(_ key: SecKey, _ store: KeychainStore) throws -> Bool {
        do {
            let query = ItemQuery(
                .certificate,
                attributes: [.publicKeyHash: .data(key.applicationLabel)],
                synchronizable: .any
            )
            return try !store.find(query, limit: .one, withData: false).isEmpty
        } catch {
            guard error.code == .itemNotFound else { throw error }
            return false
        }
    }

    /// The identity named by `kSecValueRef` or by an `idnt` persistent reference; `nil` for a plain query.
    private static func reference(_ request: ItemRequest, _ store: KeychainStore) throws -> SecIdentity? {
        if let identity = request.valueRef as? SecIdentity { return identity }
        guard request.persistentReference != nil else { return nil }
        let found = try IdentityItems.find(request, store, limit: .one, withData: true)
        guard let identity = found.first.flatMap(IdentityItems.reference) else {
            throw KeychainError(.invalidItemRef, "The identity's certificate or key cannot be read.")
        }
        return identity
    }

    /// `dictionary` for one part: `kSecClass` set, `kSecValueRef` replaced by the part (or removed), the
    /// persistent reference and return keys removed.
    private static func rewritten(_ dictionary: NSDictionary, _ itemClass: String, _ part: AnyObject?) -> NSDictionary {
        let result = NSMutableDictionary()
        for (key, value) in dictionary {
            guard let name = ValueBridge.string(key) else { continue }
            if name == "class" || name == "v_Ref" || name == "v_PersistentRef" || name.hasPrefix("r_") { continue }
            result[NSString(string: name)] = value
        }
        result[NSString(string: "class")] = NSString(string: itemClass)
        if let part { result[NSString(string: "v_Ref")] = part }
        return result
    }

    /// Adds; `false` when the item already existed.
    private static func addTolerantly(_ dictionary: NSDictionary) throws -> Bool {
        do {
            _ = try SecItemCalls.add(dictionary, nil)
            return true
        } catch {
            guard (error as? KeychainError)?.code == .duplicateItem else { throw error }
            return false
        }
    }

    /// Deletes; `false` when nothing matched.
    private static func deleteCounting(_ dictionary: NSDictionary) throws -> Bool {
        do {
            _ = try SecItemCalls.delete(dictionary)
            return true
        } catch {
            guard (error as? KeychainError)?.code == .itemNotFound else { throw error }
            return false
        }
    }

    /// Updates; `false` when nothing matched.
    private static func updateCounting(_ query: NSDictionary, _ attributesToUpdate: NSDictionary) throws -> Bool {
        do {
            _ = try SecItemCalls.update(query, attributesToUpdate)
            return true
        } catch {
            guard (error as? KeychainError)?.code == .itemNotFound else { throw error }
            return false
        }
    }

    private static var notFound: KeychainError {
        KeychainError(.itemNotFound, "The specified item could not be found in the keychain.")
    }
}
#endif
