import ArgumentParser
import Foundation
import Latchkey

/// The exit statuses of `latchkey` (documented in docs/cli.md).
enum ExitStatus {
    /// Any keychain error other than "not found" (the OSStatus is printed on stderr).
    static let failure: Int32 = 1
    /// `errSecItemNotFound`, as macOS `security` exits.
    static let itemNotFound: Int32 = 44
    /// A command-line usage error (ArgumentParser's `validationFailure`), or an argument that is not valid UTF-8.
    static let usage: Int32 = 64
    /// `dump-keychain` or `export` with `--skip-damaged` left out items that failed authentication (each is
    /// named on stderr; sysexits' `EX_DATAERR`).
    static let damagedSkipped: Int32 = 65
}

/// Runs a command body, printing keychain errors on stderr and exiting with `security`'s codes.
///
/// The first line is the OSStatus text (what `SecCopyErrorMessageString` returns) and the status, as
/// `security` prints them; a second line gives Latchkey's own explanation when it says more.
func runReportingErrors(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as KeychainError {
        reportError(error)
        throw ExitCode(error.code == .itemNotFound ? ExitStatus.itemNotFound : ExitStatus.failure)
    }
}

/// Writes `error` on standard error in the format of `runReportingErrors`.
///
/// Where Apple's text for the code describes what happened in a `security` command's words (an item not
/// found, a duplicate item added, a wrong passphrase, no terminal to ask on, a bad parameter:
/// `appleTextFits`), it comes first, as `security` prints it, then Latchkey's own explanation. Everywhere else
/// Apple's text would name the wrong cause ("You may need to restart your computer." for a missing agent,
/// "The specified item already exists in the keychain." for an export file that exists), so Latchkey's own
/// explanation comes first, with the OSStatus code after it for scripts. Latchkey's own commands
/// (`ownCommands`) have no `security` output to match and always print their own explanation first.
func reportError(_ error: KeychainError) {
    let command = CommandLine.arguments.dropFirst().first { !$0.hasPrefix("-") } ?? "latchkey"
    let status = "(OSStatus \(error.code.rawValue))"
    var text: String
    let ownFirst = ownCommands.contains(command) || !appleTextFits(error.code, command: command)
    if error.message != error.code.statusMessage && ownFirst {
        text = "latchkey: \(command): \(error.message) \(status)\n"
    } else {
        text = "latchkey: \(command): \(error.code.statusMessage) \(status)\n"
        if error.message != error.code.statusMessage { text += "latchkey: \(error.message)\n" }
    }
    FileHandle.standardError.write(Data(text.utf8))
}

/// Whether Apple's text for `code` names the cause of a failure of `command` (see `reportError`).
func appleTextFits(_ code: KeychainError.Code, command: String) -> Bool {
    switch code {
    case .itemNotFound, .authFailed, .interactionNotAllowed, .param, .userCanceled: true
    case .duplicateItem: command.hasPrefix("add-") || command == "import"
    default: false
    }
}

/// The commands `security` has no counterpart of, whose errors are printed in their own words first.
let ownCommands: Set<String> = ["access", "agent", "unlock", "lock"]

/// Writes a line on standard error.
func warn(_ text: String) {
    FileHandle.standardError.write(Data("latchkey: \(text)\n".utf8))
}

/// Runs `body`, turning `errSecItemNotFound` into `nil` and rethrowing every other error.
func ignoringNotFound<T>(_ body: () throws -> T) throws -> T? {
    do {
        return try body()
    } catch let error as KeychainError {
        if error.code == .itemNotFound { return nil }
        throw error
    }
}
