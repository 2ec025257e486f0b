import ArgumentParser
import Foundation
import Latchkey

/// `add-generic-password`: stores a password under service and account.
struct AddGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-generic-password",
        abstract: "Add a generic password item."
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: .customShort("a"), help: "Account name.") var account: String = ""
    @Option(name: .customShort("s"), help: "Service name.") var service: String = ""
    @Option(name: .customShort("l"), help: "Label.") var label: String?
    @Option(name: .customShort("j"), help: "Comment.") var comment: String?
    @Option(name: .customShort("w"), help: "The password (visible to other users in the process list: prefer --password-stdin).")
    var password: String?
    @Flag(name: .customLong("password-stdin"), help: "Read the password from standard input.") var passwordStdin = false
    @Flag(name: .customShort("U"), help: "Update the item if it already exists.") var update = false

    func run() throws {
        try runReportingErrors {
            let secret: SecretData
            if let password {
                secret = SecretData(string: password)
            } else if passwordStdin {
                secret = Terminal.readStandardInput()
            } else if Terminal.isInteractive {
                secret = try Terminal.readSecret(prompt: "password data for new item: ")
            } else {
                throw KeychainError(.param, "No password given: use -w PASSWORD or --password-stdin.")
            }
            let store = try keychain.open()
            var attributes: [AttributeName: AttributeValue] = [.account: .string(account), .service: .string(service)]
            if let label { attributes[.label] = .string(label) }
            if let comment { attributes[.comment] = .string(comment) }
            do {
                try store.add(.genericPassword, attributes: attributes, data: secret)
            } catch KeychainError.Code.duplicateItem where update {
                let query = ItemQuery(.genericPassword, attributes: [.account: .string(account), .service: .string(service)])
                var changes = attributes
                changes[.account] = nil
                changes[.service] = nil
                try store.update(query, with: ItemChanges(attributes: changes, data: secret))
            }
        }
    }
}

/// `find-generic-password`: prints an item's attributes, or its password with `-w`.
struct FindGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-generic-password",
        abstract: "Find a generic password item."
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: .customShort("a"), help: "Account name.") var account: String?
    @Option(name: .customShort("s"), help: "Service name.") var service: String?
    @Flag(name: .customShort("w"), help: "Print only the password.") var passwordOnly = false

    func run() throws {
        try runReportingErrors {
            let store = try keychain.open()
            var attributes: [AttributeName: AttributeValue] = [:]
            if let account { attributes[.account] = .string(account) }
            if let service { attributes[.service] = .string(service) }
            let item = try store.findOne(ItemQuery(.genericPassword, attributes: attributes), withData: passwordOnly)
            if passwordOnly {
                let bytes = item.data?.data ?? Data()
                FileHandle.standardOutput.write(bytes + Data("\n".utf8))
            } else {
                print("keychain: \"\(store.path)\"")
                print("class: \"genp\"")
                print("attributes:")
                for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) {
                    print("    \"\(name.rawValue)\"=\(AttributeText.render(value))")
                }
            }
        }
    }
}

/// `delete-generic-password`: removes matching items.
struct DeleteGenericPassword: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-generic-password",
        abstract: "Delete a generic password item."
    )

    @OptionGroup var keychain: KeychainOptions
    @Option(name: .customShort("a"), help: "Account name.") var account: String?
    @Option(name: .customShort("s"), help: "Service name.") var service: String?

    func run() throws {
        try runReportingErrors {
            let store = try keychain.open()
            var attributes: [AttributeName: AttributeValue] = [:]
            if let account { attributes[.account] = .string(account) }
            if let service { attributes[.service] = .string(service) }
            try store.delete(ItemQuery(.genericPassword, attributes: attributes))
            print("password has been deleted.")
        }
    }
}
