import ArgumentParser
import Foundation
import Latchkey

/// How a failed command's error is written on standard error: `security`'s lines, or with `--json` one JSON object
/// (docs/cli.md, "Errors and exit status").
enum ErrorReport {
    /// Whether the command line asks for JSON: `--json` among the arguments before a `--`.
    ///
    /// Only commands with `OutputOptions` accept `--json`; on any other ArgumentParser refuses it as a usage
    /// error, which is then itself reported as JSON.
    static var json: Bool {
        CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    /// The command word of the command line (`find-generic-password`, `access`), or `latchkey`.
    static var command: String {
        CommandLine.arguments.dropFirst().first { !$0.hasPrefix("-") } ?? "latchkey"
    }

    /// One error as a JSON object: `command`, `status` (the OSStatus), `name` (Apple's `errSec…` constant, or
    /// `null`), `message` (what happened and the next step, the text printed without `--json`), `hint` (the next
    /// step alone, or `null`), `appleMessage` (Apple's text for the status) and `exitStatus`.
    static func json(code: KeychainError.Code, message: String, exitStatus: Int32) -> JSONValue {
        .object([
            "command": .string(command),
            "status": .integer(Int64(code.rawValue)),
            "name": code.appleName.map(JSONValue.string) ?? .null,
            "message": .string(message),
            "hint": hint(in: message, code: code).map(JSONValue.string) ?? .null,
            "appleMessage": .string(code.statusMessage),
            "exitStatus": .integer(Int64(exitStatus)),
        ])
    }

    /// Writes `value` on standard error as one line of JSON.
    static func write(_ value: JSONValue) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            FileHandle.standardError.write(try encoder.encode(value) + Data("\n".utf8))
        } catch {
            // A JSONValue of strings and integers always encodes; say so rather than print nothing.
            FileHandle.standardError.write(
                Data("{\"status\":-26276,\"message\":\"The error could not be encoded.\"}\n".utf8)
            )
        }
    }

    /// Writes an error that reached ArgumentParser (a usage error; any other error a command threw) as the JSON
    /// object of `json(code:message:exitStatus:)`, with errSecParam (-50) for a usage error (exit status 64) and
    /// errSecInternal (-26276) otherwise, and returns the exit status ArgumentParser gives it; `nil` for what is not
    /// an error (`--help`, `--version`) or was reported already (an `ExitCode`), which ArgumentParser then handles
    /// as usual.
    static func writeParserError(_ error: any Error) -> Int32? {
        let status = LatchkeyCommand.exitCode(for: error).rawValue
        let message = LatchkeyCommand.message(for: error)
        // An `ExitCode` thrown after the command reported its error itself has no message: nothing to add.
        guard status != 0, !message.isEmpty else { return nil }
        let code: KeychainError.Code = status == ExitStatus.usage ? .param : .internal
        write(json(code: code, message: message, exitStatus: status))
        return status
    }

    /// The words a next step starts with ("Give --force", "use --password-stdin", "`latchkey unlock` first").
    private static let nextStepWords: Set<String> = [
        "add", "ask", "check", "choose", "convert", "create", "delete", "export", "fix", "free", "give", "grant",
        "import", "install", "make", "move", "name", "open", "pass", "protect", "put", "remove", "rename", "restart",
        "restore", "retry", "run", "see", "set", "start", "stop", "store", "try", "type", "unlock", "use", "wait",
    ]

    /// The next step in `message`: the text after the first sentence or clause break (". ", "; ", ": ", " — ")
    /// that starts with a next-step word or a `latchkey` command; else a fixed step for a few codes; else `nil`.
    static func hint(in message: String, code: KeychainError.Code) -> String? {
        var breaks: [Range<String.Index>] = []
        for separator in [". ", "; ", ": ", " — "] {
            var searchStart = message.startIndex
            while let range = message.range(of: separator, range: searchStart..<message.endIndex) {
                breaks.append(range)
                searchStart = range.upperBound
            }
        }
        for range in breaks.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            let rest = message[range.upperBound...]
            let word = rest.prefix { $0.isLetter }.lowercased()
            if nextStepWords.contains(word) || rest.hasPrefix("`latchkey") || rest.hasPrefix("latchkey ") {
                return String(rest)
            }
        }
        switch code {
        case .itemNotFound: return "Check the attributes given; `latchkey dump-keychain` lists the items there are."
        case .authFailed: return "Check the passphrase or key file (LATCHKEY_PASSPHRASE_FILE, LATCHKEY_KEY_FILE)."
        default: return nil
        }
    }
}
