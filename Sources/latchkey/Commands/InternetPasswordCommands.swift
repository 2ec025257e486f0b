import ArgumentParser
import Foundation
import Latchkey

/// The internet-password attributes (`security`'s letters): server, protocol, port, path, authentication
/// type and security domain.
struct InternetAttributeOptions: ParsableArguments {
    @Option(name: .customShort("s"), help: "Server name.") var server: String?
    @Option(name: .customShort("r"), help: "Protocol: a four-character code (htps) or a scheme name (https).")
    var protocolName: String?
    @Option(name: .customShort("P"), help: "Port number.") var port: Int?
    @Option(name: .customShort("p"), help: "Path.") var path: String?
    @Option(name: .customShort("t"), help: "Authentication type: a four-character code (dflt, form, http) or a name.")
    var authenticationType: String?
    @Option(name: .customShort("d"), help: "Security domain.") var securityDomain: String?

    /// The attributes named on the command line.
    ///
    /// - Throws: `param` (-50) for a protocol or authentication type that is neither one of Apple's
    ///   four-character codes nor a name for one; the message lists what is accepted.
    func attributes() throws -> [AttributeName: AttributeValue] {
        var attributes: [AttributeName: AttributeValue] = [:]
        if let server { attributes[.server] = .string(server) }
        if let protocolName {
            guard let code = FourCharCodes.protocolCode(protocolName) else {
                throw KeychainError(
                    .param,
                    "-r '\(protocolName)' is not a protocol. Accepted: \(FourCharCodes.acceptedProtocols)."
                )
            }
            attributes[.protocol] = .string(code)
        }
        if let port { attributes[.port] = .number(Int64(port)) }
        if let path { attributes[.path] = .string(path) }
        if let authenticationType {
            guard let code = FourCharCodes.authenticationTypeCode(authenticationType) else {
                throw KeychainError(
                    .param,
                    "-t '\(authenticationType)' is not an authentication type. Accepted: "
                        + "\(FourCharCodes.acceptedAuthenticationTypes)."
                )
            }
            attributes[.authenticationType] = .string(code)
        }
        if let securityDomain { attributes[.securityDomain] = .string(securityDomain) }
        return attributes
    }

    func validate() throws {
        if let port, !(0...65535).contains(port) { throw ValidationError("The port must be between 0 and 65535.") }
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
    @OptionGroup var common: CommonPasswordOptions
    @OptionGroup var internet: InternetAttributeOptions
    @OptionGroup var source: PasswordSourceOptions
    @OptionGroup var accessibility: AccessibilityOption
    @Flag(name: .customShort("U"), help: "Update the item if it already exists.") var update = false

    func run() throws {
        try runReportingErrors {
            var attributes = common.attributes.merging(try internet.attributes()) { _, new in new }
            try keychain.refuseIfMissing(.createDefault)
            let secret = try source.secret()
            attributes[.account] = attributes[.account] ?? .string("")
            if let accessible = try accessibility.value { attributes[.accessible] = .string(accessible.rawValue) }
            let store = try keychain.service(ifMissing: .createDefault)
            try store.addOrUpdate(.internetPassword, attributes: attributes, data: secret, update: update)
        }
    }
}

/// Matching options of the internet-password find and delete commands.
struct InternetPasswordMatch: ParsableArguments {
    @OptionGroup var common: CommonPasswordOptions
    @OptionGroup var internet: InternetAttributeOptions

    /// The query the options describe; throws as `InternetAttributeOptions.attributes()` does.
    func query() throws -> ItemQuery {
        ItemQuery(.internetPassword, attributes: common.attributes.merging(try internet.attributes()) { _, new in new })
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
    @OptionGroup var show: ShowSecretOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let query = try match.query()
            let store = try keychain.service()
            let item = try store.findOneConfirmingPresence(query, withData: show.wantsSecret)
            try show.print(item, keychain: keychain.path, json: output.json)
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
    @Flag(name: .customLong("all"), help: "Delete every matching item.") var all = false

    func run() throws {
        try runReportingErrors {
            let query = try match.query()
            let store = try keychain.service()
            let count = try store.deleteMatches(query, all: all)
            print(count == 1 ? "password has been deleted." : "\(count) passwords have been deleted.")
        }
    }
}
