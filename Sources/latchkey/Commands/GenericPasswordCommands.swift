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
    @OptionGroup var common: CommonPasswordOptions
    @Option(name: .customShort("s"), help: "Service name.") var service: String?
    @Option(name: .customShort("G"), help: "Generic attribute value.") var generic: String?
    @OptionGroup var source: PasswordSourceOptions
    @OptionGroup var accessibility: AccessibilityOption
    @Flag(name: .customShort("U"), help: "Update the item if it already exists.") var update = false

    func run() throws {
        try runReportingErrors {
            try keychain.refuseIfMissing(.createDefault)
            let secret = try source.secret()
            var attributes = common.attributes
            attributes[.account] = attributes[.account] ?? .string("")
            attributes[.service] = .string(service ?? "")
            if let generic { attributes[.generic] = .data(Data(generic.utf8)) }
            if let accessible = try accessibility.value { attributes[.accessible] = .string(accessible.rawValue) }
            let store = try keychain.service(ifMissing: .createDefault)
            try store.addOrUpdate(.genericPassword, attributes: attributes, data: secret, update: update)
        }
    }
}

/// Matching options of the generic-password find and delete commands.
struct GenericPasswordMatch: ParsableArguments {
    @OptionGroup var common: CommonPasswordOptions
    @Option(name: .customShort("s"), help: "Service name.") var service: String?
    @Option(name: .customShort("G"), help: "Generic attribute value.") var generic: String?

    var query: ItemQuery {
        var attributes = common.attributes
        if let service { attributes[.service] = .string(service) }
        if let generic { attributes[.generic] = .data(Data(generic.utf8)) }
        return ItemQuery(.genericPassword, attributes: attributes)
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
    @OptionGroup var show: ShowSecretOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        try runReportingErrors {
            let store = try keychain.service()
            let item = try store.findOneConfirmingPresence(match.query, withData: show.wantsSecret)
            try show.print(item, keychain: keychain.path, json: output.json)
        }
    }
}

/// `-g` / `-w` on the find commands.
struct ShowSecretOptions: ParsableArguments {
    @Flag(name: .customShort("g"), help: "Also show the password (on stderr, as security does).") var showPassword =
        false
    @Flag(name: .customShort("w"), help: "Print only the password, on stdout.") var passwordOnly = false

    var wantsSecret: Bool { showPassword || passwordOnly }

    /// Prints a found item as asked: the password alone, JSON, or the attribute dump (+ `password:` on stderr).
    func print(_ item: FoundItem, keychain: String, json: Bool) throws {
        if json {
            try ItemOutput.json(item, keychain: keychain).print()
        } else if passwordOnly {
            FileHandle.standardOutput.write((item.data?.data ?? Data()) + Data("\n".utf8))
        } else {
            ItemOutput.write(ItemOutput.human(item, keychain: keychain))
            if showPassword {
                let shown = item.data.map(ItemOutput.humanSecret) ?? "\"\""
                FileHandle.standardError.write(Data("password: \(shown)\n".utf8))
            }
        }
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
    @Flag(name: .customLong("all"), help: "Delete every matching item.") var all = false

    func run() throws {
        try runReportingErrors {
            let store = try keychain.service()
            let count = try store.deleteMatches(match.query, all: all)
            print(count == 1 ? "password has been deleted." : "\(count) passwords have been deleted.")
        }
    }
}
