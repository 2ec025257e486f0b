import Foundation
import Latchkey

/// What `add-*-password` and `find-*-password` do once their command line is parsed: the one implementation that
/// ArgumentParser's commands and `FastPath` both call, so the two parsers give the same answer.
enum ItemCommandRun {
    /// Adds an item of `itemClass` (or upserts it with `-U`); keychain errors are printed as every command prints
    /// them (`runReportingErrors`).
    ///
    /// A keychain that does not exist and is not created here is refused first, before the password is read or
    /// asked for; then the add commands' defaults are applied (`ItemDefaults.newItem`).
    static func add(_ itemClass: ItemClass, _ arguments: ItemArguments) throws {
        try runReportingErrors {
            try arguments.keychain.refuseIfMissing(.createDefault)
            let secret = try SecretInput.itemPassword(
                value: arguments.password,
                fromStandardInput: arguments.passwordStdin,
                prompt: arguments.promptPassword
            )
            var attributes = ItemDefaults.newItem(arguments.attributes, itemClass)
            if let accessible = try AccessibilityOption.resolve(arguments.accessible) {
                attributes[.accessible] = .string(accessible.rawValue)
            }
            if arguments.synchronizable { attributes[.synchronizable] = .number(1) }
            let service = try arguments.keychain.service(ifMissing: .createDefault)
            KeptOpen.service = service
            try service.addOrUpdate(itemClass, attributes: attributes, data: secret, update: arguments.update)
        }
    }

    /// Finds the first item `query` matches and prints it as asked: the password alone (`-w`), JSON (`--json`), or
    /// `security`'s attribute dump (and `password:` on standard error with `-g`). Not found exits 44.
    static func find(_ query: ItemQuery, _ arguments: ItemArguments) throws {
        try runReportingErrors {
            let service = try arguments.keychain.service()
            KeptOpen.service = service
            let item = try service.findOneConfirmingPresence(
                query,
                withData: arguments.showPassword || arguments.passwordOnly
            )
            try show(item, arguments)
        }
    }

    /// Prints a found item as `arguments` ask.
    static func show(_ item: FoundItem, _ arguments: ItemArguments) throws {
        let keychain = arguments.keychain.path
        if arguments.json {
            try ItemOutput.json(item, keychain: keychain).print()
        } else if arguments.passwordOnly {
            FileHandle.standardOutput.write((item.data?.data ?? Data()) + Data("\n".utf8))
        } else {
            ItemOutput.write(ItemOutput.human(item, keychain: keychain))
            if arguments.showPassword {
                let shown = item.data.map(ItemOutput.humanSecret) ?? "\"\""
                FileHandle.standardError.write(Data("password: \(shown)\n".utf8))
            }
        }
    }
}
