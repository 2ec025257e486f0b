import Foundation
import Latchkey

/// Where the items of a collection are kept: the keychain (`SecretItemStore`, every collection but
/// `session`) or the agent's memory (`SessionItemStore`, the `session` collection).
protocol SecretItemStoring {
    /// The items of `collection` (of every collection of this store when `nil`) whose attribute maps
    /// contain `query`.
    func search(_ query: [String: String], in collection: String?) throws(KeychainError) -> [SecretItem]
    /// The item with id `id`, and its secret when `withSecret`.
    func item(id: String, withSecret: Bool) throws(KeychainError) -> (SecretItem, SecretData?)
    /// Creates an item in `collection` owned by `owner`; with `replace`, replaces instead one with the same
    /// attribute map there (`SecretItem.hasSameAttributes`) that `mayReplace` allows (it keeps its owner).
    ///
    /// - Returns: The item and whether it is new.
    func create(
        label: String,
        attributes: [String: String],
        type: String,
        secret: SecretData,
        contentType: String,
        owner: String?,
        collection: String,
        replace: Bool,
        mayReplace: (SecretItem) -> Bool
    ) throws(KeychainError) -> (SecretItem, Bool)
    /// Replaces an item's secret and its content type.
    func setSecret(id: String, _ secret: SecretData, contentType: String) throws(KeychainError)
    /// Changes an item's label.
    func setLabel(id: String, _ label: String) throws(KeychainError)
    /// Changes an item's attribute map.
    func setAttributes(id: String, _ attributes: [String: String]) throws(KeychainError)
    /// Deletes an item.
    func delete(id: String) throws(KeychainError)
}

extension SecretItemStoring {
    /// The item with id `id`, without its secret.
    func item(id: String) throws(KeychainError) -> (SecretItem, SecretData?) {
        try item(id: id, withSecret: false)
    }
}
