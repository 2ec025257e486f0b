import Foundation

/// Internet passwords (`kSecClassInternetPassword`) through a `Keychain`.
///
/// They use the keychain's access group, accessibility, sync policy, label and comment; they have no
/// service, so the keychain's `service` does not apply to them.
extension Keychain {
    func internetQuery(_ item: InternetPassword?) -> ItemQuery {
        var attributes = item?.attributes ?? [:]
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        return ItemQuery(.internetPassword, attributes: attributes, synchronizable: synchronizable.queryFilter)
    }

    /// The secret stored for `item`, or `nil` when there is none.
    ///
    /// - Throws: `interactionNotAllowed` (-25308) when the item's class is locked (never `nil`).
    public func passwordSecret(for item: InternetPassword) throws(KeychainError) -> SecretData? {
        try resolvedService().findFirst(internetQuery(item), withData: true).map { $0.data ?? SecretData([]) }
    }

    /// The password stored for `item` (UTF-8), or `nil` when there is none.
    ///
    /// - Throws: `decode` when it is not UTF-8; otherwise see `passwordSecret(for:)`.
    public func password(for item: InternetPassword) throws(KeychainError) -> String? {
        try passwordSecret(for: item).map { secret throws(KeychainError) in try decodedValue(String.self, from: secret)
        }
    }

    /// Stores `secret` for `item`, creating or updating it in one transaction (no duplicate-item error).
    ///
    /// Fields of `item` left `nil` match anything, as in reads: the first stored password they match is
    /// updated; a new item gets Apple's defaults for them.
    ///
    /// - Throws: `interactionNotAllowed` when the item's or the new accessibility's class is locked.
    public func setPassword(_ secret: SecretData, for item: InternetPassword) throws(KeychainError) {
        var attributes = settableAttributes().merging(item.attributes) { _, new in new }
        attributes[.synchronizable] = synchronizable.newItemValue
        if let accessGroup { attributes[.accessGroup] = .string(accessGroup) }
        _ = try resolvedService().perform(
            .updateFirstOrAdd(
                match: internetQuery(item),
                changes: ItemChanges(attributes: settableAttributes(), data: secret),
                otherwise: NewItem(.internetPassword, attributes: attributes, data: secret)
            )
        )
    }

    /// Stores `password` (UTF-8) for `item` (see `setPassword(_:for:)` with `SecretData`).
    public func setPassword(_ password: String, for item: InternetPassword) throws(KeychainError) {
        try setPassword(SecretData(string: password), for: item)
    }

    /// Removes the internet passwords matching `item` (`nil` fields match anything).
    ///
    /// - Returns: Whether anything was removed.
    @discardableResult
    public func removePassword(for item: InternetPassword) throws(KeychainError) -> Bool {
        try remove(internetQuery(item)) > 0
    }

    /// The internet passwords of `server` (or of every server), with metadata and without secrets.
    ///
    /// - Throws: `interactionNotAllowed` when one of the items' class is locked.
    public func internetPasswords(forServer server: String? = nil) throws(KeychainError) -> [InternetPasswordInfo] {
        var query = internetQuery(nil)
        if let server { query.attributes[.server] = .string(server) }
        return try resolvedService().findAll(query).compactMap { item in
            InternetPassword(attributes: item.attributes).map {
                InternetPasswordInfo(internetPassword: $0, metadata: KeychainItemMetadata(item))
            }
        }
    }
}
