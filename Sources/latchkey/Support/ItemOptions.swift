import ArgumentParser
import Foundation
import Latchkey

/// Attributes shared by generic and internet passwords (`security`'s letters; names from `ItemOption`).
struct CommonPasswordOptions: ParsableArguments {
    @Option(name: ItemOption.account.name, help: "Account name.") var account: String?
    @Option(name: ItemOption.label.name, help: "Label.") var label: String?
    @Option(name: ItemOption.comment.name, help: "Comment.") var comment: String?
    @Option(name: ItemOption.kind.name, help: "Kind (the item's description).") var kind: String?
    @Option(name: ItemOption.creator.name, help: "Creator (a four-character code).") var creator: String?
    @Option(name: ItemOption.type.name, help: "Type (a four-character code).") var type: String?

    /// The attributes named on the command line, converted as `ItemOption.attributeValue(_:)` does.
    func attributes() throws -> [AttributeName: AttributeValue] {
        try ItemOption.attributes(
            zip(ItemOption.commonAttributes, [account, label, comment, kind, creator, type]).map { ($0, $1) }
        )
    }
}

/// How a new item's secret is given.
struct PasswordSourceOptions: ParsableArguments {
    @Option(
        name: ItemOption.password.name,
        help: ArgumentHelp(
            "The password. Give -w last, without a value, to be prompted without echo; a value on the command line is visible to other users in the process list.",
            valueName: "password"
        )
    )
    var password: String?

    @Flag(
        name: ItemOption.passwordStdin.name,
        help: "Read the password from standard input (one trailing newline is dropped)."
    )
    var passwordStdin = false

    @Flag(
        name: ItemOption.promptPassword.name,
        help: ArgumentHelp("Prompt for the password (what a final -w means).", visibility: .hidden)
    )
    var promptPassword = false

    /// Sets where the new item's password comes from in `arguments`.
    func fill(_ arguments: inout ItemArguments) {
        arguments.password = password
        arguments.passwordStdin = passwordStdin
        arguments.promptPassword = promptPassword
    }

    func validate() throws {
        if passwordStdin && (password != nil || promptPassword) {
            throw ValidationError("Give the password one way: -w or --password-stdin.")
        }
    }
}

/// `--accessible`: when a new item can be read.
struct AccessibilityOption: ParsableArguments {
    @Option(
        name: ItemOption.accessible.name,
        help:
            "When the item is readable: when-unlocked (default), after-first-unlock, always, or one of these with -this-device-only, or when-passcode-set-this-device-only (or Apple's pdmn code, e.g. ak)."
    )
    var accessible: String?

    @Flag(
        name: ItemOption.synchronizable.name,
        help:
            "Store the item as synchronizable (kSecAttrSynchronizable): `latchkey sync` sends it to your other machines."
    )
    var synchronizable = false

    static let names: [String: Accessibility] = [
        "when-unlocked": .whenUnlocked,
        "after-first-unlock": .afterFirstUnlock,
        "always": .always,
        "when-unlocked-this-device-only": .whenUnlockedThisDeviceOnly,
        "after-first-unlock-this-device-only": .afterFirstUnlockThisDeviceOnly,
        "always-this-device-only": .alwaysThisDeviceOnly,
        "when-passcode-set-this-device-only": .whenPasscodeSetThisDeviceOnly,
    ]

    /// The accessibility `text` names (a name of `names`, in any case, or Apple's `pdmn` code); `nil` for `nil`.
    ///
    /// - Throws: `ValidationError` for anything else.
    static func resolve(_ text: String?) throws -> Accessibility? {
        guard let text else { return nil }
        if let named = names[text.lowercased()] ?? Accessibility(rawValue: text) { return named }
        throw ValidationError("Unknown accessibility '\(text)'.")
    }
}

/// `--synchronizable` on the find and delete commands: synchronizable items match too (Apple's
/// `kSecAttrSynchronizableAny`); without it only items that are not synchronizable do, as `SecItemCopyMatching`.
struct SynchronizableScope: ParsableArguments {
    @Flag(
        name: ItemOption.synchronizable.name,
        help: "Match synchronizable items too (kSecAttrSynchronizableAny)."
    )
    var synchronizable = false

    /// The query's synchronizable filter.
    var scope: ItemQuery.Synchronizable { synchronizable ? .any : .no }
}

/// `--json` for read commands.
struct OutputOptions: ParsableArguments {
    @Flag(name: ItemOption.json.name, help: "Print JSON instead of security's attribute dump.") var json = false
}

extension KeychainService {
    /// Adds an item, or with `update` (`-U`) upserts it: the core updates exactly the item the add would
    /// collide with (same primary key, access group included), in the same transaction.
    func addOrUpdate(
        _ itemClass: ItemClass,
        attributes: [AttributeName: AttributeValue],
        data: SecretData?,
        update: Bool
    ) throws {
        let item = NewItem(itemClass, attributes: attributes, data: data)
        _ = try perform(update ? .upsert(item) : .add(item))
    }

    /// Deletes the first item matching `query`, or every match with `all`; returns how many were deleted.
    func deleteMatches(_ query: ItemQuery, all: Bool) throws -> Int {
        try delete(query, limit: all ? .all : .one)
    }
}
