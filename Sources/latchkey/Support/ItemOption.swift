import ArgumentParser
import Foundation
import Latchkey

/// One option of the item commands (`add-`, `find-`, `delete-*-password`) and of the keychain options they share,
/// as `security` spells it: its names, whether it takes a value, and what it sets.
///
/// This is the one table both parsers read. ArgumentParser's declarations take their names from it
/// (`@Option(name: ItemOption.account.name, …)`), and `FastPath` parses the hot command lines with the same
/// entries (`ItemCommand.fastOptions`), converting values with the same `attributeValue(_:)`; the defaults both
/// apply are `ItemDefaults`. *CLIFastPathAgreementTests* runs every option of these commands through both
/// parsers and expects the same answer.
struct ItemOption: Sendable {
    /// What an option sets.
    enum Effect: Sendable, Hashable {
        /// An attribute of the item, from the option's value (`attributeValue(_:)`).
        case attribute(AttributeName)
        /// The keychain (`-k`, `--keychain`).
        case keychain
        /// The passphrase KDF cost of new slots (`--kdf-cost`, hidden).
        case kdfCost
        /// The new item's password given on the command line (`-w VALUE` on the add commands).
        case password
        /// The new item's password read from standard input (`--password-stdin`).
        case passwordStdin
        /// A no-echo prompt for the new item's password (`--prompt-password`, hidden: what a final `-w` means).
        case promptPassword
        /// Update the item when it exists (`-U`).
        case update
        /// When the new item is readable (`--accessible`).
        case accessible
        /// Print only the password (`-w` on the find commands).
        case passwordOnly
        /// Also print the password, on standard error (`-g`).
        case showPassword
        /// JSON output (`--json`).
        case json
        /// A synchronizable new item (`--synchronizable`: `kSecAttrSynchronizable = true`).
        case synchronizable
    }

    /// The one-letter name (`a` for `-a`), if the option has one.
    let short: Character?
    /// The long name (`keychain` for `--keychain`), if the option has one.
    let long: String?
    /// Whether the option takes a value (declared with `@Option`) rather than being a flag (`@Flag`).
    let takesValue: Bool
    /// What the option sets.
    let effect: Effect

    /// The names as ArgumentParser declares them: the long name first, then the short one.
    var name: NameSpecification {
        var names: [NameSpecification.Element] = []
        if let long { names.append(.customLong(long)) }
        if let short { names.append(.customShort(short)) }
        return NameSpecification(names)
    }

    /// The spellings on a command line: `--keychain`, `-k`.
    var spellings: [String] {
        (long.map { ["--\($0)"] } ?? []) + (short.map { ["-\($0)"] } ?? [])
    }

    /// Whether `argument`, the word after an option that takes a value, is that value as both parsers read it:
    /// anything but a word that starts with `-`, except `-` itself. ArgumentParser reads such a word as the next
    /// option (and reports the value as missing); a final `-w` followed by one asks for a prompt.
    static func isValue(_ argument: String) -> Bool {
        !argument.hasPrefix("-") || argument == "-"
    }

    /// The attribute value `text` gives this option's attribute, as both parsers store it: the text, the bytes
    /// of `-G`, the four-character code of `-r` and `-t`, the number of `-P`.
    ///
    /// - Throws: `param` (-50) for a protocol or an authentication type that is neither one of Apple's
    ///   four-character codes nor a name for one (the message lists what is accepted), or a port that is not a
    ///   number in `ItemOption.ports`; `param` for an option that sets no attribute.
    func attributeValue(_ text: String) throws -> AttributeValue {
        guard case .attribute(let attribute) = effect else {
            throw KeychainError(.param, "\(spellings.joined(separator: ", ")) sets no attribute.")
        }
        switch attribute {
        case .generic:
            return .data(Data(text.utf8))
        case .protocol:
            guard let code = FourCharCodes.protocolCode(text) else {
                throw KeychainError(
                    .param,
                    "-r '\(text)' is not a protocol. Accepted: \(FourCharCodes.acceptedProtocols)."
                )
            }
            return .string(code)
        case .authenticationType:
            guard let code = FourCharCodes.authenticationTypeCode(text) else {
                throw KeychainError(
                    .param,
                    "-t '\(text)' is not an authentication type. Accepted: \(FourCharCodes.acceptedAuthenticationTypes)."
                )
            }
            return .string(code)
        case .port:
            // ArgumentParser reads an `Int` option with `Int(_:)`; `InternetAttributeOptions.validate()` checks the range.
            guard let port = Int(text), Self.ports.contains(port) else {
                throw KeychainError(.param, "The port must be between 0 and 65535.")
            }
            return .number(Int64(port))
        default:
            return .string(text)
        }
    }

    /// The ports `-P` accepts.
    static let ports = 0...65535

    /// The attributes `values` give, each converted by its option's `attributeValue(_:)`, in order; an option
    /// without a value sets nothing.
    ///
    /// - Throws: as `attributeValue(_:)`, for the first value it refuses.
    static func attributes(_ values: [(ItemOption, String?)]) throws -> [AttributeName: AttributeValue] {
        var attributes: [AttributeName: AttributeValue] = [:]
        for (option, text) in values {
            guard let text, case .attribute(let name) = option.effect else { continue }
            attributes[name] = try option.attributeValue(text)
        }
        return attributes
    }
}

extension ItemOption {
    /// `-k`, `--keychain`: the keychain file or name.
    static let keychain = ItemOption(short: "k", long: "keychain", takesValue: true, effect: .keychain)
    /// `--kdf-cost`: `standard` or `testing` (hidden).
    static let kdfCost = ItemOption(short: nil, long: "kdf-cost", takesValue: true, effect: .kdfCost)

    /// `-a`: the account.
    static let account = attribute("a", .account)
    /// `-l`: the label.
    static let label = attribute("l", .label)
    /// `-j`: the comment.
    static let comment = attribute("j", .comment)
    /// `-D`: the kind (the item's description).
    static let kind = attribute("D", .itemDescription)
    /// `-c`: the creator.
    static let creator = attribute("c", .creator)
    /// `-C`: the type.
    static let type = attribute("C", .type)
    /// `-s` on the generic-password commands: the service.
    static let service = attribute("s", .service)
    /// `-G`: the generic attribute, stored as bytes.
    static let generic = attribute("G", .generic)
    /// `-s` on the internet-password commands: the server.
    static let server = attribute("s", .server)
    /// `-r`: the protocol, a four-character code or a scheme name.
    static let `protocol` = attribute("r", .protocol)
    /// `-P`: the port.
    static let port = attribute("P", .port)
    /// `-p`: the path.
    static let path = attribute("p", .path)
    /// `-t`: the authentication type, a four-character code or a name.
    static let authenticationType = attribute("t", .authenticationType)
    /// `-d`: the security domain.
    static let securityDomain = attribute("d", .securityDomain)

    /// `-w PASSWORD` on the add commands (a final `-w` without a value becomes `promptPassword`).
    static let password = ItemOption(short: "w", long: nil, takesValue: true, effect: .password)
    /// `--password-stdin` on the add commands.
    static let passwordStdin = ItemOption(short: nil, long: "password-stdin", takesValue: false, effect: .passwordStdin)
    /// `--prompt-password` on the add commands (hidden).
    static let promptPassword = ItemOption(
        short: nil,
        long: "prompt-password",
        takesValue: false,
        effect: .promptPassword
    )
    /// `-U` on the add commands.
    static let update = ItemOption(short: "U", long: nil, takesValue: false, effect: .update)
    /// `--accessible` on the add commands.
    static let accessible = ItemOption(short: nil, long: "accessible", takesValue: true, effect: .accessible)
    /// `-w` on the find commands.
    static let passwordOnly = ItemOption(short: "w", long: nil, takesValue: false, effect: .passwordOnly)
    /// `-g` on the find commands.
    static let showPassword = ItemOption(short: "g", long: nil, takesValue: false, effect: .showPassword)
    /// `--json` on the read commands.
    static let json = ItemOption(short: nil, long: "json", takesValue: false, effect: .json)
    /// `--synchronizable` (full parser only).
    static let synchronizable = ItemOption(
        short: nil,
        long: "synchronizable",
        takesValue: false,
        effect: .synchronizable
    )

    /// The attributes every password item has an option for, in the order of the help.
    static let commonAttributes: [ItemOption] = [account, label, comment, kind, creator, type]
    /// The generic-password attributes.
    static let genericAttributes: [ItemOption] = [service, generic]
    /// The internet-password attributes.
    static let internetAttributes: [ItemOption] = [server, `protocol`, port, path, authenticationType, securityDomain]

    private static func attribute(_ short: Character, _ name: AttributeName) -> ItemOption {
        ItemOption(short: short, long: nil, takesValue: true, effect: .attribute(name))
    }
}

/// The item commands `FastPath` answers without ArgumentParser, with the options it parses for each.
enum ItemCommand: String, CaseIterable, Sendable {
    /// `find-generic-password`.
    case findGenericPassword = "find-generic-password"
    /// `find-internet-password`.
    case findInternetPassword = "find-internet-password"
    /// `add-generic-password`.
    case addGenericPassword = "add-generic-password"
    /// `add-internet-password`.
    case addInternetPassword = "add-internet-password"

    /// The class of the items the command finds or adds.
    var itemClass: ItemClass {
        switch self {
        case .findGenericPassword, .addGenericPassword: .genericPassword
        case .findInternetPassword, .addInternetPassword: .internetPassword
        }
    }

    /// Whether the command adds an item (else it finds one).
    var isAdd: Bool { self == .addGenericPassword || self == .addInternetPassword }

    /// The options the fast path parses for the command: entries of the table its ArgumentParser command declares
    /// too, less those that need the full parser (`--kdf-cost`, `--accessible`, `--prompt-password`, `-g`,
    /// `--json`). A command line with any other argument (but a keychain given last) goes to ArgumentParser.
    var fastOptions: [ItemOption] {
        let attributes =
            ItemOption.commonAttributes
            + (itemClass == .genericPassword ? ItemOption.genericAttributes : ItemOption.internetAttributes)
        let own: [ItemOption] =
            isAdd ? [.password, .passwordStdin, .update] : [.passwordOnly]
        return [.keychain] + attributes + own
    }

    /// The fast path's option spelled `argument` (`-a`, `--keychain`) for the command, or `nil`.
    func fastOption(spelled argument: String) -> ItemOption? {
        fastOptions.first { $0.spellings.contains(argument) }
    }
}
