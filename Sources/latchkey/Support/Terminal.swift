import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// Prompts on the controlling terminal with echo turned off.
enum Terminal {
    /// Whether standard input is a terminal (so a prompt can be answered).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line without echo.
    static func readSecret(prompt: String) throws -> SecretData {
        guard isInteractive else {
            throw KeychainError(.interactionNotAllowed, "A passphrase is needed but standard input is not a terminal.")
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(STDIN_FILENO, &byte, 1) == 1, byte != 0x0A {
            if byte != 0x0D { bytes.append(byte) }
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return SecretData(bytes)
    }

    /// Asks twice for a new passphrase and checks that both agree and it is not empty.
    static func newPassphrase() throws -> SecretData {
        let first = try readSecret(prompt: "New passphrase: ")
        let second = try readSecret(prompt: "Repeat passphrase: ")
        guard first == second else { throw KeychainError(.param, "The passphrases do not match.") }
        guard !first.isEmpty else { throw KeychainError(.param, "The passphrase must not be empty.") }
        return first
    }

    /// Reads all of standard input as a secret, dropping one trailing newline.
    static func readStandardInput() -> SecretData {
        var bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return SecretData(bytes)
    }
}
