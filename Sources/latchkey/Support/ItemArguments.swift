import Latchkey

/// What the command line of an add or find command says, as either parser reads it: `FastPath` fills it from the
/// option table (`ItemOption`), ArgumentParser's commands from their option groups. `ItemCommandRun` acts on it,
/// so both parsers end in the same code.
struct ItemArguments {
    /// The keychain and the KDF cost of the slots it creates.
    var keychain = KeychainSelection()
    /// The attributes given, as `ItemOption.attributeValue(_:)` converts them; no default is applied yet
    /// (`ItemDefaults.newItem`).
    var attributes: [AttributeName: AttributeValue] = [:]
    /// The new item's password given on the command line (`-w VALUE`).
    var password: String?
    /// Whether the new item's password comes from standard input (`--password-stdin`).
    var passwordStdin = false
    /// Whether to prompt for the new item's password (a final `-w`).
    var promptPassword = false
    /// Whether to update the item when it exists (`-U`).
    var update = false
    /// The new item's accessibility as given (`--accessible`), read by `AccessibilityOption.resolve(_:)`.
    var accessible: String?
    /// Whether the new item is synchronizable (`--synchronizable`).
    var synchronizable = false
    /// Whether to print only the found item's password (`-w` on the find commands).
    var passwordOnly = false
    /// Whether to print the found item's password on standard error too (`-g`).
    var showPassword = false
    /// Whether to print the found item as JSON (`--json`).
    var json = false
}
