import Latchkey

/// The defaults of the item commands, declared once: ArgumentParser's commands and `FastPath` both apply these.
enum ItemDefaults {
    /// The KDF cost of new passphrase slots when `--kdf-cost` is not given (a name of `KeychainSelection.costs`).
    static let kdfCost = "standard"

    /// A new item's attributes with what the add commands fill in when the command line gives none: an empty
    /// account, and for a generic password an empty service (both are part of the item's primary key).
    static func newItem(
        _ attributes: [AttributeName: AttributeValue],
        _ itemClass: ItemClass
    ) -> [AttributeName: AttributeValue] {
        var attributes = attributes
        attributes[.account] = attributes[.account] ?? .string("")
        if itemClass == .genericPassword { attributes[.service] = attributes[.service] ?? .string("") }
        return attributes
    }
}
