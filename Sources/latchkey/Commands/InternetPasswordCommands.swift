import ArgumentParser
import Foundation
import Latchkey

/// The internet-password attributes (`security`'s letters): server, protocol, port, path, authentication
/// type and security domain.
struct InternetAttributeOptions: ParsableArguments {
    @Option(name: ItemOption.server.name, help: "Server name.") var server: String?
    @Option(
        name: ItemOption.protocol.name,
        help: "Protocol: a four-character code (htps) or a scheme name (https)."
    )
    var protocolName: String?
    @Option(name: ItemOption.port.name, help: "Port number.") var port: Int?
    @Option(name: ItemOption.path.name, help: "Path.") var path: String?
    @Option(
        name: ItemOption.authenticationType.name,
        help: "Authentication type: a four-character code (dflt, form, http) or a name."
    )
    var authenticationType: String?
    @Option(name: ItemOption.securityDomain.name, help: "Security domain.") var securityDomain: String?

    /// The attributes named on the command line, converted as `ItemOption.attributeValue(_:)` does.
    ///
    /// - Throws: `param` (-50) for a protocol or authentication type that is neither one of Apple's
    ///   four-character codes nor a name for one; the message lists what is accepted.
    func attributes() throws -> [AttributeName: AttributeValue] {
        let values = [server, protocolName, port.map(String.init), path, authenticationType, securityDomain]
        return try ItemOption.attributes(zip(ItemOption.internetAttributes, values).map { ($0, $1) })
    }

    func validate() throws {
        if let port, !ItemOption.ports.contains(port) {
            throw ValidationError("The port must be between 0 and 65535.")
        }
    }
}

/// `add-internet-password`: stores a password for a server, protocol, port and path.
struct AddInternetPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-internet-password",
        abstract: "Add an internet password item.",
        discussion: """
            The password comes from --password-stdin, or from a no-echo prompt when -w is given last without a \
            value (or when no password option is given on a terminal).
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var match: InternetPasswordMatch
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
            try ItemCommandRun.add(.internetPassword, arguments)
        }
    }
}

/// The internet-password attributes of the add, find and delete commands.
struct InternetPasswordMatch: ParsableArguments {
    @OptionGroup var common: CommonPasswordOptions
    @OptionGroup var internet: InternetAttributeOptions

    /// The attributes named on the command line; throws as `InternetAttributeOptions.attributes()` does.
    func attributes() throws -> [AttributeName: AttributeValue] {
        try common.attributes().merging(try internet.attributes()) { _, new in new }
    }

    /// The query the options describe; throws as `InternetAttributeOptions.attributes()` does.
    func query(synchronizable: ItemQuery.Synchronizable = .no) throws -> ItemQuery {
        ItemQuery(.internetPassword, attributes: try attributes(), synchronizable: synchronizable)
    }
}

/// `find-internet-password`: prints an item's attributes, or its password with `-w`.
struct FindInternetPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-internet-password",
        abstract: "Find an internet password item.",
        discussion: "Exits 44 when no item matches, as security does."
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var match: InternetPasswordMatch
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

/// `delete-internet-password`: removes the first matching item (every match with `--all`).
struct DeleteInternetPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-internet-password",
        abstract: "Delete an internet password item.",
        discussion: "Deletes the first match, as security does; --all deletes every match. Exits 44 when none matches."
    )

    @OptionGroup var keychain: KeychainOptions
    @OptionGroup var match: InternetPasswordMatch
    @OptionGroup var synchronizable: SynchronizableScope
    @Flag(name: .customLong("all"), help: "Delete every matching item.") var all = false

    func run() throws {
        try runReportingErrors {
            let query = try match.query(synchronizable: synchronizable.scope)
            let store = try keychain.service()
            let count = try store.deleteMatches(query, all: all)
            print(count == 1 ? "password has been deleted." : "\(count) passwords have been deleted.")
        }
    }
}
