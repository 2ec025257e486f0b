import ArgumentParser
import Foundation
import Latchkey

/// The hot commands of scripts — `find-*-password [-w]` and `add-*-password` with plain options — parsed
/// without ArgumentParser.
///
/// A `latchkey` process lives for a few milliseconds, and ArgumentParser's reflection (type metadata and
/// protocol-conformance look-ups for every option of the command) costs a large share of that. This path
/// accepts only a strict subset of the full commands' syntax and behaves exactly like them; anything else
/// (`--help`, `-g`, `--json`, `-w` without a value, an unknown or malformed option, ...) returns `nil` and
/// goes through ArgumentParser as usual.
enum FastPath {
    /// The store a fast command used, kept open until the process exits.
    ///
    /// Closing the last connection makes SQLite checkpoint and delete the WAL, and the next process's
    /// pool then recreates it with a write — four `fdatasync` calls for a read-only lookup. Every change is
    /// already durable when its transaction commits (`synchronous = FULL`), so the process exits with the
    /// connection open, as after a crash at an idle moment: the WAL stays and the next opener reuses it.
    nonisolated(unsafe) static var openStore: KeychainStore?

    /// Runs `arguments` when they are in the subset; returns the exit status, or `nil` to parse normally.
    static func run(_ arguments: [String]) -> Int32? {
        guard let command = arguments.first else { return nil }
        let itemClass: ItemClass
        let isAdd: Bool
        switch command {
        case "find-generic-password": (itemClass, isAdd) = (.genericPassword, false)
        case "find-internet-password": (itemClass, isAdd) = (.internetPassword, false)
        case "add-generic-password": (itemClass, isAdd) = (.genericPassword, true)
        case "add-internet-password": (itemClass, isAdd) = (.internetPassword, true)
        default: return nil
        }
        guard let parsed = parse(Array(arguments.dropFirst()), itemClass: itemClass, isAdd: isAdd) else { return nil }
        do {
            try runReportingErrors {
                if isAdd { try add(parsed, itemClass: itemClass) } else { try find(parsed, itemClass: itemClass) }
            }
            return 0
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch {
            warn("\(error)")
            return ExitStatus.failure
        }
    }

    struct Parsed {
        var attributes: [AttributeName: AttributeValue] = [:]
        var keychain: String?
        var passwordOnly = false
        var password: String?
        var passwordStdin = false
        var update = false
    }

    /// Options taking a value, by letter, for each class.
    static func attribute(for option: String, itemClass: ItemClass) -> AttributeName? {
        switch (option, itemClass) {
        case ("-a", _): .account
        case ("-l", _): .label
        case ("-j", _): .comment
        case ("-D", _): .itemDescription
        case ("-c", _): .creator
        case ("-C", _): .type
        case ("-s", .genericPassword): .service
        case ("-G", .genericPassword): .generic
        case ("-s", .internetPassword): .server
        case ("-r", .internetPassword): .protocol
        case ("-P", .internetPassword): .port
        case ("-p", .internetPassword): .path
        case ("-t", .internetPassword): .authenticationType
        case ("-d", .internetPassword): .securityDomain
        default: nil
        }
    }

    static func parse(_ arguments: [String], itemClass: ItemClass, isAdd: Bool) -> Parsed? {
        var parsed = Parsed()
        var index = 0
        func value() -> String? {
            guard index + 1 < arguments.count else { return nil }
            let next = arguments[index + 1]
            guard !next.hasPrefix("-") || next == "-" else { return nil }
            index += 2
            return next
        }
        while index < arguments.count {
            let option = arguments[index]
            if let name = attribute(for: option, itemClass: itemClass) {
                guard let text = value() else { return nil }
                switch name {
                case .port:
                    guard let port = Int64(text), (0...65535).contains(port) else { return nil }
                    parsed.attributes[name] = .number(port)
                case .protocol:
                    // An unknown protocol or authentication type is refused by the full parser, with its message.
                    guard let code = FourCharCodes.protocolCode(text) else { return nil }
                    parsed.attributes[name] = .string(code)
                case .authenticationType:
                    guard let code = FourCharCodes.authenticationTypeCode(text) else { return nil }
                    parsed.attributes[name] = .string(code)
                case .generic: parsed.attributes[name] = .data(Data(text.utf8))
                default: parsed.attributes[name] = .string(text)
                }
                continue
            }
            switch option {
            case "-k", "--keychain":
                guard let text = value(), !text.isEmpty else { return nil }
                parsed.keychain = text
            case "-w" where isAdd:
                guard let text = value() else { return nil }
                parsed.password = text
            case "-w":
                parsed.passwordOnly = true
                index += 1
            case "-U" where isAdd:
                parsed.update = true
                index += 1
            case "--password-stdin" where isAdd:
                parsed.passwordStdin = true
                index += 1
            case _ where index == arguments.count - 1 && !option.hasPrefix("-") && parsed.keychain == nil:
                // `security`'s keychain as the last argument (`find-generic-password -s svc login.keychain-db`).
                guard !option.isEmpty else { return nil }
                parsed.keychain = option
                index += 1
            default:
                return nil
            }
        }
        if isAdd && parsed.passwordStdin && parsed.password != nil { return nil }
        return parsed
    }

    static func path(_ parsed: Parsed) -> String {
        KeychainOptions.path(parsed.keychain)
    }

    static func find(_ parsed: Parsed, itemClass: ItemClass) throws {
        let path = path(parsed)
        let store = try KeychainOpener.service(
            path: path,
            named: KeychainName.isNamed(parsed.keychain),
            options: KeychainStore.Options()
        )
        openStore = store as? KeychainStore
        let item = try store.findOneConfirmingPresence(
            ItemQuery(itemClass, attributes: parsed.attributes),
            withData: parsed.passwordOnly
        )
        if parsed.passwordOnly {
            FileHandle.standardOutput.write((item.data?.data ?? Data()) + Data("\n".utf8))
        } else {
            ItemOutput.write(ItemOutput.human(item, keychain: path))
        }
    }

    static func add(_ parsed: Parsed, itemClass: ItemClass) throws {
        guard
            let secret = try SecretInput.itemPassword(
                value: parsed.password,
                fromStandardInput: parsed.passwordStdin,
                prompt: false
            )
        else { return }
        var attributes = parsed.attributes
        attributes[.account] = attributes[.account] ?? .string("")
        if itemClass == .genericPassword { attributes[.service] = attributes[.service] ?? .string("") }
        let store = try KeychainOpener.service(
            path: path(parsed),
            named: KeychainName.isNamed(parsed.keychain),
            options: KeychainStore.Options(),
            ifMissing: .createDefault
        )
        openStore = store as? KeychainStore
        try store.addOrUpdate(itemClass, attributes: attributes, data: secret, update: parsed.update)
    }
}
