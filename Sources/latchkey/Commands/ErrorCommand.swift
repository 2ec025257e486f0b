import ArgumentParser
import Foundation
import Latchkey

/// `error`: the text of an OSStatus code, as `security error -25300` prints it.
struct ErrorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "error",
        abstract: "Describe OSStatus error codes.",
        discussion: """
            Prints `Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain.` for each \
            code, given in decimal (-25300) or hexadecimal (0xFFFF9D2C, as a 32-bit value). A code Latchkey \
            has no text for is printed with `unknown error`.
            """
    )

    @Argument(parsing: .allUnrecognized, help: "OSStatus codes, decimal or 0x-prefixed hexadecimal.") var codes:
        [String]

    func validate() throws {
        guard !codes.isEmpty else { throw ValidationError("Give at least one error code.") }
        for code in codes where Self.parse(code) == nil {
            throw ValidationError("'\(code)' is not an error code (decimal, or hexadecimal with 0x).")
        }
    }

    func run() throws {
        var out = ""
        for text in codes {
            guard let code = Self.parse(text) else { continue }
            out += Self.describe(code) + "\n"
        }
        ItemOutput.write(out)
    }

    /// `text` as a 32-bit OSStatus: decimal (signed), or `0x` hexadecimal read as an unsigned 32-bit value.
    static func parse(_ text: String) -> Int32? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("0x") || lowered.hasPrefix("-0x") {
            let negative = lowered.hasPrefix("-")
            guard let value = UInt32(lowered.dropFirst(negative ? 3 : 2), radix: 16) else { return nil }
            let status = Int32(bitPattern: value)
            return negative ? (status == .min ? nil : -status) : status
        }
        return Int32(text)
    }

    /// `security`'s line for `code`.
    static func describe(_ code: Int32) -> String {
        let hex = String(format: "0x%08X", UInt32(bitPattern: code))
        let known = KeychainError.Code(rawValue: code).statusMessage
        let message = known == "OSStatus \(code)" ? "unknown error \(code)" : known
        return "Error: \(hex) \(code) \(message)"
    }
}
