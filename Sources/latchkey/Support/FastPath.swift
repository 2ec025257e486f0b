import ArgumentParser
import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The hot commands of scripts — `find-*-password [-w]` and `add-*-password` with plain options — parsed
/// without ArgumentParser.
///
/// A `latchkey` process lives for a few milliseconds, and ArgumentParser's reflection (type metadata and
/// protocol-conformance look-ups for every option of the command) costs a large share of that. This path
/// accepts only a strict subset of the full commands' syntax: the options of `ItemCommand.fastOptions`, taken from
/// the table ArgumentParser's declarations take their names from (`ItemOption`), with their values converted by
/// the same functions, then runs the same code (`ItemCommandRun`) with the same defaults (`ItemDefaults`).
/// Anything else (`--help`, `-g`, `--json`, `-w` without a value, an unknown or malformed option, a value either
/// parser would refuse, ...) returns `nil` and goes through ArgumentParser as usual, which says what is wrong.
///
/// `LATCHKEY_FAST_PATH` chooses (docs/cli.md, "Performance"): `off` sends every command line through
/// ArgumentParser, `only` refuses one the fast path does not parse instead (exit status 64). Both are for checking
/// the two paths: *CLIFastPathAgreementTests* runs every option of these commands both ways and expects the same
/// output and exit status.
enum FastPath {
    /// What `LATCHKEY_FAST_PATH` says.
    enum Mode {
        /// The fast path answers the command lines it parses (the default).
        case on
        /// Every command line goes through ArgumentParser (`off`).
        case off
        /// A command line the fast path does not parse is refused (`only`).
        case only
    }

    /// The mode `LATCHKEY_FAST_PATH` sets: `off`, `only`, else (unset too) `on`.
    static var mode: Mode {
        guard let value = getenv("LATCHKEY_FAST_PATH") else { return .on }
        switch String(cString: value) {
        case "off": return .off
        case "only": return .only
        default: return .on
        }
    }

    /// Runs `arguments` when they are in the subset; returns the exit status, or `nil` to parse normally.
    ///
    /// An error is reported as `LatchkeyCommand.run(_:)` reports one, and the process exits.
    static func run(_ arguments: [String]) -> Int32? {
        let mode = Self.mode
        guard mode != .off else { return nil }
        guard let word = arguments.first, let command = ItemCommand(rawValue: word),
            let parsed = parse(Array(arguments.dropFirst()), for: command)
        else {
            guard mode == .only else { return nil }
            reportError(
                KeychainError(
                    .param,
                    "LATCHKEY_FAST_PATH=only, and the fast path does not parse this command line: unset "
                        + "LATCHKEY_FAST_PATH to run it."
                )
            )
            return ExitStatus.usage
        }
        do {
            if command.isAdd {
                try ItemCommandRun.add(command.itemClass, parsed)
            } else {
                try ItemCommandRun.find(ItemQuery(command.itemClass, attributes: parsed.attributes), parsed)
            }
            return 0
        } catch {
            LatchkeyCommand.exit(reporting: error)
        }
    }

    /// The arguments after the command word as `ItemArguments`, or `nil` when they are not all in the subset.
    ///
    /// The subset: options of `command.fastOptions`, each value a word `ItemOption.isValue(_:)` accepts and that
    /// converts (`ItemOption.attributeValue(_:)`); a non-empty `-k`; not both `-w` and `--password-stdin`; and
    /// `security`'s keychain as the last argument when no `-k` came before it.
    static func parse(_ arguments: [String], for command: ItemCommand) -> ItemArguments? {
        var parsed = ItemArguments()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard let option = command.fastOption(spelled: argument) else {
                // `security`'s keychain as the last argument (`find-generic-password -s svc login.keychain-db`).
                guard index == arguments.count - 1, !argument.hasPrefix("-"), !argument.isEmpty,
                    parsed.keychain.name == nil
                else { return nil }
                parsed.keychain.name = argument
                index += 1
                continue
            }
            var value: String?
            if option.takesValue {
                guard index + 1 < arguments.count, ItemOption.isValue(arguments[index + 1]) else { return nil }
                value = arguments[index + 1]
            }
            index += option.takesValue ? 2 : 1
            guard set(option, value, in: &parsed) else { return nil }
        }
        if parsed.passwordStdin && parsed.password != nil { return nil }
        return parsed
    }

    /// Records `option` (with its `value`) in `parsed`; `false` when the value is one the full parser should judge.
    private static func set(_ option: ItemOption, _ value: String?, in parsed: inout ItemArguments) -> Bool {
        switch option.effect {
        case .attribute(let name):
            guard let value, let converted = try? option.attributeValue(value) else { return false }
            parsed.attributes[name] = converted
        case .keychain:
            // An empty name is errSecParam from `KeychainOptions.validate()`.
            guard let value, !value.isEmpty else { return false }
            parsed.keychain.name = value
        case .password: parsed.password = value
        case .passwordStdin: parsed.passwordStdin = true
        case .update: parsed.update = true
        case .passwordOnly: parsed.passwordOnly = true
        case .kdfCost, .promptPassword, .accessible, .showPassword, .json, .synchronizable: return false
        }
        return true
    }
}
