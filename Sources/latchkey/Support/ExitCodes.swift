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
        let status = error.code == .itemNotFound ? ExitStatus.itemNotFound : ExitStatus.failure
        reportError(error, exitStatus: status)
        throw ExitCode(status)
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
///
/// With `--json` the error is one JSON object on standard error instead (`ErrorReport.json`): the OSStatus, Apple's
/// name for it, the message, the next step and `exitStatus` (what the command exits with; by default 44 for
/// "not found", else 1).
func reportError(_ error: KeychainError, exitStatus: Int32? = nil) {
    ProgressBar.current?.finish()
    if ErrorReport.json {
        let status = exitStatus ?? (error.code == .itemNotFound ? ExitStatus.itemNotFound : ExitStatus.failure)
        ErrorReport.write(ErrorReport.json(code: error.code, message: error.message, exitStatus: status))
        return
    }
    let command = ErrorReport.command
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
let ownCommands: Set<String> = ["access", "agent", "unlock", "lock", "sync"]

/// Writes a line on standard error (erasing a progress bar first).
func warn(_ text: String) {
    ProgressBar.current?.finish()
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
