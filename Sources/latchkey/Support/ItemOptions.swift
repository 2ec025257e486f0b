import ArgumentParser
import Foundation
import Latchkey

/// Attributes shared by generic and internet passwords (`security`'s letters).
struct CommonPasswordOptions: ParsableArguments {
    @Option(name: .customShort("a"), help: "Account name.") var account: String?
    @Option(name: .customShort("l"), help: "Label.") var label: String?
    @Option(name: .customShort("j"), help: "Comment.") var comment: String?
    @Option(name: .customShort("D"), help: "Kind (the item's description).") var kind: String?
    @Option(name: .customShort("c"), help: "Creator (a four-character code).") var creator: String?
    @Option(name: .customShort("C"), help: "Type (a four-character code).") var type: String?

    /// The attributes named on the command line.
    var attributes: [AttributeName: AttributeValue] {
        var attributes: [AttributeName: AttributeValue] = [:]
        if let account { attributes[.account] = .string(account) }
        if let label { attributes[.label] = .string(label) }
        if let comment { attributes[.comment] = .string(comment) }
        if let kind { attributes[.itemDescription] = .string(kind) }
        if let creator { attributes[.creator] = .string(creator) }
        if let type { attributes[.type] = .string(type) }
        return attributes
    }
}

/// How a new item's secret is given.
struct PasswordSourceOptions: ParsableArguments {
    @Option(
        name: .customShort("w"),
        help: ArgumentHelp(
            "The password. Give -w last, without a value, to be prompted without echo; a value on the command line is visible to other users in the process list.",
            valueName: "password"
        )
    )
    var password: String?

    @Flag(
        name: .customLong("password-stdin"),
        help: "Read the password from standard input (one trailing newline is dropped)."
    )
    var passwordStdin = false

    @Flag(
        name: .customLong("prompt-password"),
        help: ArgumentHelp("Prompt for the password (what a final -w means).", visibility: .hidden)
    )
    var promptPassword = false

    /// The secret, prompting or reading standard input as asked; `nil` only when `required` is false and no
    /// source was given.
    func secret(required: Bool = true) throws -> SecretData? {
        try SecretInput.itemPassword(
            value: password,
            fromStandardInput: passwordStdin,
            prompt: promptPassword,
            required: required
        )
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
        name: .customLong("accessible"),
        help:
            "When the item is readable: when-unlocked (default), after-first-unlock, always, or one of these with -this-device-only, or when-passcode-set-this-device-only (or Apple's pdmn code, e.g. ak)."
    )
    var accessible: String?

    static let names: [String: Accessibility] = [
        "when-unlocked": .whenUnlocked,
        "after-first-unlock": .afterFirstUnlock,
        "always": .always,
        "when-unlocked-this-device-only": .whenUnlockedThisDeviceOnly,
        "after-first-unlock-this-device-only": .afterFirstUnlockThisDeviceOnly,
        "always-this-device-only": .alwaysThisDeviceOnly,
        "when-passcode-set-this-device-only": .whenPasscodeSetThisDeviceOnly,
    ]

    var value: Accessibility? {
        get throws {
            guard let accessible else { return nil }
            if let named = Self.names[accessible.lowercased()] ?? Accessibility(rawValue: accessible) { return named }
            throw ValidationError("Unknown accessibility '\(accessible)'.")
        }
    }
}

/// `--json` for read commands.
struct OutputOptions: ParsableArguments {
    @Flag(name: .customLong("json"), help: "Print JSON instead of security's attribute dump.") var json = false
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
