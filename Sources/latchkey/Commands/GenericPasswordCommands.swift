import ArgumentParser
import Foundation
import Latchkey

/// `add-generic-password`: stores a password under service and account.
struct AddGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-generic-password",
        abstract: "Add a generic password item.",
        discussion: """
            The password comes from --password-stdin, or from a no-echo prompt when -w is given last without a \
            value (or when no password option is given on a terminal). Without a terminal and without \
            --password-stdin the command fails at once (OSStatus -50) instead of waiting. The default keychain \
            is created on first use; any other keychain must exist (create-keychain).
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var match: GenericPasswordMatch
    @OptionGroup var source: PasswordSourceOptions
    @OptionGroup var accessibility: AccessibilityOption
    @Flag(name: ItemOption.update.name, help: "Update the item if it already exists.") var update = false

    func run() throws {
        try runReportingErrors {
            var arguments = ItemArguments(keychain: keychain.selection, attributes: try match.attributes())
            source.fill(&arguments)
            arguments.accessible = accessibility.accessible
            arguments.synchronizable = accessibility.synchronizable
            arguments.update = update
            try ItemCommandRun.add(.genericPassword, arguments)
        }
    }
}

/// The generic-password attributes of the add, find and delete commands (names from `ItemOption`).
struct GenericPasswordMatch: ParsableArguments {
    @OptionGroup var common: CommonPasswordOptions
    @Option(name: ItemOption.service.name, help: "Service name.") var service: String?
    @Option(name: ItemOption.generic.name, help: "Generic attribute value.") var generic: String?

    /// The attributes named on the command line, converted as `ItemOption.attributeValue(_:)` does.
    func attributes() throws -> [AttributeName: AttributeValue] {
        try common.attributes().merging(
            try ItemOption.attributes(zip(ItemOption.genericAttributes, [service, generic]).map { ($0, $1) })
        ) { _, new in new }
    }

    /// The query the options describe.
    func query(synchronizable: ItemQuery.Synchronizable = .no) throws -> ItemQuery {
        ItemQuery(.genericPassword, attributes: try attributes(), synchronizable: synchronizable)
    }
}

/// `find-generic-password`: prints an item's attributes, or its password with `-w`.
struct FindGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-generic-password",
        abstract: "Find a generic password item.",
        discussion: "Exits 44 when no item matches, as security does."
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var match: GenericPasswordMatch
    @OptionGroup var synchronizable: SynchronizableScope
    @OptionGroup var show: ShowSecretOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            var arguments = ItemArguments(keychain: keychain.selection, json: output.json)
            show.fill(&arguments)
            try ItemCommandRun.find(try match.query(synchronizable: synchronizable.scope), arguments)
        }
    }
}

/// `-g` / `-w` on the find commands.
struct ShowSecretOptions: ParsableArguments {
    @Flag(name: ItemOption.showPassword.name, help: "Also show the password (on stderr, as security does).")
    var showPassword = false
    @Flag(name: ItemOption.passwordOnly.name, help: "Print only the password, on stdout.") var passwordOnly = false

    /// Sets what to print in `arguments`.
    func fill(_ arguments: inout ItemArguments) {
        arguments.showPassword = showPassword
        arguments.passwordOnly = passwordOnly
    }
}

/// `delete-generic-password`: removes the first matching item (every match with `--all`).
struct DeleteGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-generic-password",
        abstract: "Delete a generic password item.",
        discussion: "Deletes the first match, as security does; --all deletes every match. Exits 44 when none matches."
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var match: GenericPasswordMatch
    @OptionGroup var synchronizable: SynchronizableScope
    @Flag(name: .customLong("all"), help: "Delete every matching item.") var all = false

    func run() throws {
        try runReportingErrors {
            let store = try keychain.service()
            let count = try store.deleteMatches(try match.query(synchronizable: synchronizable.scope), all: all)
            print(count == 1 ? "password has been deleted." : "\(count) passwords have been deleted.")
        }
    }
}
