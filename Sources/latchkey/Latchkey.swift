import ArgumentParser
import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The `latchkey` command line, modelled on macOS `security`.
@main
struct LatchkeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "An encrypted keychain for Linux, modelled on macOS `security`.",
        discussion: """
            The keychain is -k, else $LATCHKEY_KEYCHAIN, else the default keychain (default-keychain), else \
            $XDG_DATA_HOME/latchkey/login.keychain-db. It is unlocked from LATCHKEY_KEY_FILE, \
            LATCHKEY_PASSPHRASE_FILE or LATCHKEY_PASSPHRASE (CI only), or by a no-echo passphrase prompt on a \
            terminal; without either a command fails at once instead of waiting. Secrets are read from \
            standard input (--password-stdin) or a prompt (-w given last); -w VALUE puts the secret in the \
            process list. Errors are printed on stderr with their OSStatus text. Exit codes: 0 success, 44 \
            item not found, 1 any other keychain error, 64 usage error (an argument that is not valid UTF-8 \
            included), 65 damaged items left out by --skip-damaged. See docs/cli.md.
            """,
        version: LatchkeyVersion.line,
        subcommands: [
            CreateKeychain.self, DeleteKeychain.self, ListKeychains.self, DefaultKeychain.self,
            LockKeychain.self, UnlockKeychain.self, SetKeychainPassword.self, SetKeychainSettings.self,
            ShowKeychainInfo.self,
            VerifyKeychain.self,
            AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self,
            AddInternetPassword.self, FindInternetPassword.self, DeleteInternetPassword.self,
            DumpKeychain.self, FindCertificate.self, FindKey.self,
            AddCertificates.self, DeleteCertificate.self, FindIdentity.self,
            Export.self, Import.self, ErrorCommand.self,
            GitCredential.self,
            AgentCommand.self, UnlockAgent.self, LockAgent.self, AccessCommand.self,
            Doctor.self,
            PamUnlock.self, PamPasswd.self,
            SyncCommand.self,
            Debug.self,
        ]
    )

    /// Parses `security`-style arguments: on the add commands a `-w` with no value after it (last, or
    /// followed by another option) asks for a no-echo prompt.
    ///
    /// An argument that is not valid UTF-8 is refused first (exit status 64): `CommandLine.arguments` would
    /// replace its bytes with U+FFFD, so two different byte strings would name the same item.
    static func main() {
        if let position = RawArguments.firstInvalidUTF8() {
            warn("argument \(position) is not valid UTF-8; arguments are stored as text, so it is refused, not altered")
            Glibc.exit(ExitStatus.usage)
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let status = FastPath.run(arguments) { Glibc.exit(status) }
        if let unknown = unknownCommand(arguments) {
            let message = "unknown command '\(unknown)'. See 'latchkey --help' for the list of commands."
            if ErrorReport.json {
                ErrorReport.write(ErrorReport.json(code: .param, message: message, exitStatus: ExitStatus.usage))
            } else {
                warn(message)
            }
            Glibc.exit(ExitStatus.usage)
        }
        run(TrailingKeychain.rewrite(rewritingPromptFlags(arguments)))
    }

    /// ArgumentParser's `main(_:)`, except that with `--json` a usage error is written as a JSON object
    /// (`ErrorReport.writeParserError`) instead of its text; the exit status is the same.
    static func run(_ arguments: [String]) {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            exit(reporting: error)
        }
    }

    /// Reports an error that ended a command (nothing for an `ExitCode`, whose command reported it already) and
    /// exits with its status: ArgumentParser's `exit(withError:)`, or a JSON object with `--json`. The fast path
    /// ends its errors here too.
    static func exit(reporting error: any Error) -> Never {
        ProgressBar.current?.finish()
        if ErrorReport.json, let status = ErrorReport.writeParserError(error) {
            Glibc.exit(status)
        }
        exit(withError: error)
    }

    /// The command words of `arguments` that name no command, as typed (`nosuch`, `access nosuch`), or `nil`.
    ///
    /// ArgumentParser reports a word that is not a subcommand as an unexpected argument, and its `help` command
    /// shows the root help (exit 0) for a name it does not know; both are caught here. Words are followed down
    /// the command tree while the command reached has subcommands and no default one; an option (`-…`) ends
    /// the walk and is left to ArgumentParser.
    static func unknownCommand(_ arguments: [String]) -> String? {
        var words = arguments[...]
        if words.first == "help" { words = words.dropFirst() }
        var command: any ParsableCommand.Type = Self.self
        var typed: [String] = []
        for word in words {
            let configuration = command.configuration
            guard !configuration.subcommands.isEmpty, configuration.defaultSubcommand == nil, !word.hasPrefix("-")
            else { return nil }
            typed.append(word)
            let next = configuration.subcommands.first {
                $0._commandName == word || $0.configuration.aliases.contains(word)
            }
            guard let next else { return word == "help" && typed.count == 1 ? nil : typed.joined(separator: " ") }
            command = next
        }
        return nil
    }

    static func rewritingPromptFlags(_ arguments: [String]) -> [String] {
        guard let command = arguments.first.flatMap(ItemCommand.init(rawValue:)), command.isAdd else {
            return arguments
        }
        var rewritten: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rewritten += arguments[index...]
                break
            }
            if ItemOption.password.spellings.contains(argument) {
                let next = index + 1 < arguments.count ? arguments[index + 1] : nil
                guard let next, ItemOption.isValue(next) else {
                    rewritten += ItemOption.promptPassword.spellings.prefix(1)
                    index += 1
                    continue
                }
                rewritten += [argument, next]
                index += 2
                continue
            }
            rewritten.append(argument)
            index += 1
        }
        return rewritten
    }
}
