#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeyLocalAuthentication

/// `SecItemAdd`: adds an item to the keychain.
///
/// Applies Apple's defaults (first access group, `kSecAttrAccessibleWhenUnlocked` — certificates
/// `kSecAttrAccessibleAlways` —, creation and modification dates, empty primary-key values) and
/// uniqueness rules. With `kSecReturn*` keys the added item is written to `result` (docs/apple-semantics.md §4.3).
///
/// Known differences from Apple, each pinned by a test:
/// - A dictionary holding a match key (`kSecMatchLimit` ...) or `kSecUseItemList` returns `errSecSuccess`
///   without storing anything, as Apple's daemon does (docs/apple-semantics.md §3.4 note A, inferred); pinned by
///   `ValidationTests.addWithMatchLimitSucceedsWithoutStoring`.
/// - `kSecValueRef` accepts a `SecKey` or a `SecCertificate` (stored with their derived attributes,
///   docs/apple-semantics.md §1.8,
///   §2.1) or a `SecIdentity` (its certificate, then its private key, are added; `errSecDuplicateItem` only when
///   both exist, docs/apple-semantics.md §2.2).
///
/// - Parameters:
///   - attributes: The item: `kSecClass`, attributes, `kSecValueData`, optional `kSecReturn*` keys.
///   - result: Receives the requested result; not written on failure or without return keys.
/// - Returns: `errSecSuccess`, `errSecDuplicateItem`, `errSecParam`, `errSecInteractionNotAllowed`,
///   `errSecMissingEntitlement` ...
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCalls.run { try SecItemCalls.add(attributes, result) }
}

extension SecItemCalls {
    /// `SecItemAdd`'s body, throwing its error.
    static func add(_ attributes: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) throws -> OSStatus {
        let request = ItemRequest.parse(attributes, for: .add)
        let service = try SecItemCalls.prepare(request)
        guard let itemClass = request.itemClass else { return errSecParam }
        // Apple's daemon returns the error constant from a boolean function, i.e. "success", without
        // inserting when an add carries match keys (docs/apple-semantics.md §3.4 note A). We reproduce it deliberately.
        if !request.otherMatchKeys.isEmpty || request.limit != nil { return errSecSuccess }
        if itemClass == .identity { return try IdentityCalls.add(attributes, request, service, result) }
        var values = request.attributes
        if request.synchronizableAny { values[.synchronizable] = nil }
        let added = try service.add(itemClass, attributes: values, data: request.secret.map { SecretData($0) })
        if let result,
            let value = ResultShape.addValue(added, request.returns, accessControlGiven: request.accessControl != nil)
        {
            result.pointee = value
        }
        return errSecSuccess
    }
}

/// `SecItemCopyMatching`: finds items and returns them in the shape the `kSecReturn*` and
/// `kSecMatchLimit` keys ask for (docs/apple-semantics.md §4.1).
///
/// `kSecMatchLimitOne` (the default) or the number 1 give a single object; `kSecMatchLimitAll` or a
/// larger number give an array, in insertion order. Nothing found is `errSecItemNotFound`, never an
/// empty array. Attribute dictionaries use Apple's short keys (`acct`, `svce`, `v_Data` ...).
/// Reading the secret of an item protected by `kSecAttrAccessControl` asks for authentication through
/// `LAContext` (`kSecUseAuthenticationContext`, `kSecUseAuthenticationUI`).
///
/// Known differences from Apple:
/// - `kSecReturnRef` yields a `SecKey` for keys, a `SecCertificate` for certificates, a `SecIdentity` for
///   identities and no object for password classes; with other return keys the dictionary holds `class`, `UUID`
///   and `v_Data` as for Apple's password items. Pinned by `ReturnShapeTests.refAloneReturnsNothing`,
///   `SecKeyTests`, `SecCertificateTests`, `SecIdentityTests`.
/// - Certificate match keys (`kSecMatchIssuers`, `kSecMatchPolicy`, `kSecMatchValidOnDate`,
///   `kSecMatchTrustedOnly`, `kSecMatchEmailAddressIfPresent`) on certificates give `errSecUnimplemented`.
///
/// - Parameters:
///   - query: The class, attribute filters, match, return and use keys.
///   - result: Receives the result on success; left untouched on failure.
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, `errSecParam`, `errSecInteractionNotAllowed` ...
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    SecItemCalls.run { () throws -> OSStatus in
        let request = ItemRequest.parse(query, for: .copyMatching)
        let service = try SecItemCalls.prepare(request)
        guard let itemClass = request.itemClass else { return errSecParam }
        try SecItemCalls.checkMatchKeys(request, itemClass)
        let limit = request.limit ?? .one
        let withData = request.returns.contains(.data) || request.returns.contains(.ref)
        // Host matching, access control, limits, identities and corrupt rows are the core's rules; Apple
        // skips undecryptable rows silently (when every match is corrupt, nothing was found).
        let items = try SecItemCalls.authenticating(request, service) { policy in
            try service.perform(
                .find(
                    FindRequest(
                        request.query,
                        limit: limit,
                        withData: withData,
                        authentication: policy,
                        corruptRows: .skip
                    )
                )
            ).items()
        }
        if let result {
            if limit == .one {
                result.pointee = items.first.flatMap { ResultShape.copyMatchingValue($0, request.returns) }
            } else {
                result.pointee = NSArray(array: items.compactMap { ResultShape.copyMatchingValue($0, request.returns) })
            }
        }
        return errSecSuccess
    }
}

/// `SecItemUpdate`: changes every item matching `query`, all or nothing.
///
/// The query accepts the same keys as `SecItemCopyMatching` except match and return keys (`errSecParam`);
/// `attributesToUpdate` accepts attributes and `kSecValueData` only (anything else, including
/// `kSecClass`, is `errSecNoSuchAttr`). The modification date strictly increases; moving an item onto
/// another item's primary key is `errSecDuplicateItem` and changes nothing.
///
/// - Parameters:
///   - query: Which items.
///   - attributesToUpdate: New attribute values and/or a new secret.
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, `errSecDuplicateItem`, `errSecParam`,
///   `errSecNoSuchAttr` ...
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    SecItemCalls.run { try SecItemCalls.update(query, attributesToUpdate) }
}

extension SecItemCalls {
    /// `SecItemUpdate`'s body, throwing its error.
    static func update(_ query: NSDictionary, _ attributesToUpdate: NSDictionary) throws -> OSStatus {
        let request = ItemRequest.parse(query, for: .update)
        // An identity's changes apply to its certificate and key: they are parsed as key attributes.
        let changesClass = request.itemClass == .identity ? .key : request.itemClass
        let changes = ItemRequest.parse(attributesToUpdate, for: .updateAttributes, itemClass: changesClass)
        if let error = changes.clientError { throw error }
        let service = try SecItemCalls.prepare(request, checkingGroupFirst: true)
        if let error = changes.parseError { throw error }
        if let group = changes.explicitAccessGroup { try SecItemCalls.checkGroup(group, service) }
        // Find, access-control check and update run in one core transaction; rewriting a protected secret
        // needs the same authentication as reading it.
        let update = ItemChanges(attributes: changes.attributes, data: changes.secret.map { SecretData($0) })
        _ = try SecItemCalls.authenticating(request, service) { policy in
            try service.update(request.query, with: update, authentication: policy)
        }
        return errSecSuccess
    }
}

/// `SecItemDelete`: deletes every item matching `query`.
///
/// Synchronizable items leave a tombstone; `kSecValueData` and return keys are ignored; any match key
/// (`kSecMatchLimit` included) is `errSecParam`. Without `kSecAttrSynchronizableAny` only
/// non-synchronizable items are deleted.
///
/// - Parameter query: Which items.
/// - Returns: `errSecSuccess`, `errSecItemNotFound`, `errSecParam` ...
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    SecItemCalls.run { try SecItemCalls.delete(query) }
}

extension SecItemCalls {
    /// `SecItemDelete`'s body, throwing its error.
    static func delete(_ query: NSDictionary) throws -> OSStatus {
        let request = ItemRequest.parse(query, for: .delete)
        let service = try SecItemCalls.prepare(request, checkingGroupFirst: true)
        try service.delete(request.query)
        return errSecSuccess
    }
}

/// The steps every `SecItem*` call shares.
enum SecItemCalls {
    /// Runs a call, turning any thrown error into its OSStatus (once, in `SecStatus.from`).
    static func run(_ body: () throws -> OSStatus) -> OSStatus {
        do {
            let status = try body()
            LatchkeySecurity.recordLastError(nil)
            return status
        } catch {
            return SecStatus.from(error)
        }
    }

    /// Applies Apple's precedence (docs/apple-semantics.md §5): client-side errors, then the entitlement
    /// check, then (for Update/Delete) an explicit access group, then the dictionary parser, then an
    /// explicit access group. Returns the process context's keychain service.
    static func prepare(_ request: ItemRequest, checkingGroupFirst: Bool = false) throws -> any KeychainService {
        if let error = request.clientError { throw error }
        let service = try KeychainContext.current().service
        let groups = try service.callerAccessGroups()
        guard !groups.isEmpty else {
            throw KeychainError(
                .missingEntitlement,
                "This process has no keychain access groups; set LATCHKEY_ACCESS_GROUPS or add an .entitlements file."
            )
        }
        if checkingGroupFirst, let group = request.explicitAccessGroup { try checkGroup(group, service) }
        if let error = request.parseError { throw error }
        if let group = request.explicitAccessGroup { try checkGroup(group, service) }
        return service
    }

    /// `errSecMissingEntitlement` unless `group` is one of the caller's groups.
    static func checkGroup(_ group: String, _ service: any KeychainService) throws {
        let groups = try service.callerAccessGroups()
        guard groups.contains(group) else {
            throw KeychainError(
                .missingEntitlement,
                "Access group '\(group)' is not one of this process's access groups \(groups); "
                    + "add it to LATCHKEY_ACCESS_GROUPS or the executable's .entitlements file."
            )
        }
    }

    /// Match keys only certificates support (`kSecMatchIssuers`, `kSecMatchPolicy`).
    private static let certificateKeys: Set<String> = ["m_Issuers", "m_Policy"]
    /// Certificate filters that other classes ignore (`kSecMatchValidOnDate` ...).
    private static let certificateFilters: Set<String> = ["m_ValidOnDate", "m_TrustedOnly", "m_EmailAddressIfPresent"]

    /// Certificate-only and internet-only match keys on the wrong class (docs/apple-semantics.md §3.4).
    static func checkMatchKeys(_ request: ItemRequest, _ itemClass: ItemClass) throws {
        for key in request.otherMatchKeys {
            if certificateKeys.contains(key) || (certificateFilters.contains(key) && itemClass == .certificate) {
                throw KeychainError(.unimplemented, "Certificate match key '\(key)' is not supported.")
            }
        }
    }

    /// Runs `body` with the request's authentication policy against `service` (the one `prepare` returned);
    /// when the core answers that an item needs user authentication (`interactionRequired`), authenticates
    /// through `LAContext` (the request's `kSecUseAuthenticationContext`, or a new one) and runs `body` again
    /// with the confirmation.
    ///
    /// Through the per-user agent this process neither prompts nor claims `.confirmed`: the agent confirms
    /// with its own prompter. The request carries the context's reuse duration
    /// (`touchIDAuthenticationAllowableReuseDuration`), and a context with `interactionNotAllowed` asks the
    /// agent not to prompt (`.fail`, so -25308).
    static func authenticating<T>(
        _ request: ItemRequest,
        _ service: any KeychainService,
        _ body: (AuthenticationPolicy) throws -> T
    ) throws -> T {
        // `AgentClient` is final: comparing the dynamic type is the `is` test without the existential cast.
        if ObjectIdentifier(type(of: service)) == ObjectIdentifier(AgentClient.self) {
            let context = request.authenticationContext
            let reuse = context?.touchIDAuthenticationAllowableReuseDuration ?? 0
            var policy = request.authenticationPolicy
            if policy == .ask, context?.interactionNotAllowed == true { policy = .fail }
            return try AuthenticationReuse.$duration.withValue(reuse > 0 ? reuse : nil) { try body(policy) }
        }
        do {
            return try body(request.authenticationPolicy)
        } catch {
            guard (error as? KeychainError)?.code == .interactionRequired else { throw error }
        }
        let context = request.authenticationContext ?? LAContext()
        try context.authenticateForKeychain(
            reason: request.operationPrompt,
            verifier: try KeychainContext.current().verifyPassphrase
        )
        return try body(.confirmed)
    }
}
#endif
