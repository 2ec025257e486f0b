import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// Prompts on the controlling terminal with echo turned off.
enum Terminal {
    /// Whether standard input is a terminal (so a prompt can be answered).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from standard input without echo, prompting on standard error.
    ///
    /// - Throws: `interactionNotAllowed` when standard input is not a terminal (never waits for a pipe).
    static func readSecret(prompt: String) throws -> SecretData {
        guard isInteractive else {
            throw KeychainError(.interactionNotAllowed, "A passphrase is needed but standard input is not a terminal.")
        }
        return readLineWithoutEcho(input: STDIN_FILENO, output: STDERR_FILENO, prompt: prompt)
    }

    /// Reads one line without echo from the process's controlling terminal (`/dev/tty`), for commands whose
    /// standard input carries a protocol (the git credential helper).
    ///
    /// - Throws: `interactionNotAllowed` when the process has no controlling terminal.
    static func readSecretFromControllingTerminal(prompt: String) throws -> SecretData {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            throw KeychainError(.interactionNotAllowed, "A passphrase is needed but there is no terminal to ask on.")
        }
        defer { close(descriptor) }
        guard isatty(descriptor) == 1 else {
            throw KeychainError(.interactionNotAllowed, "A passphrase is needed but there is no terminal to ask on.")
        }
        return readLineWithoutEcho(input: descriptor, output: descriptor, prompt: prompt)
    }

    private static func readLineWithoutEcho(input: Int32, output: Int32, prompt: String) -> SecretData {
        // Echo goes off before the prompt appears, so nothing typed in answer to it can be echoed.
        var saved = termios()
        tcgetattr(input, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(input, TCSAFLUSH, &silent)
        writeAll(output, prompt)
        defer {
            tcsetattr(input, TCSAFLUSH, &saved)
            writeAll(output, "\n")
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(input, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count != 1 || byte == 0x0A { break }
            if byte != 0x0D { bytes.append(byte) }
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return SecretData(bytes)
    }

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Asks twice for a new passphrase and checks that both agree and it is not empty.
    ///
    /// - Parameter path: The keychain it will protect, named in the prompt when given.
    static func newPassphrase(for path: String? = nil) throws -> SecretData {
        let keychain = path.map { " for \($0)" } ?? ""
        let first = try readSecret(prompt: "New passphrase\(keychain): ")
        let second = try readSecret(prompt: "Repeat passphrase\(keychain): ")
        guard first == second else { throw KeychainError(.param, "The passphrases do not match.") }
        guard !first.isEmpty else {
            throw KeychainError(
                .param,
                "The passphrase must not be empty (a keychain protected by a key file alone is made with "
                    + "`latchkey create-keychain --new-key-file FILE`)."
            )
        }
        return first
    }

    /// Reads all of standard input as a secret, dropping one trailing line ending: LF, or CR LF. Everything
    /// else is kept, a lone trailing CR included (docs/cli.md).
    static func readStandardInput() -> SecretData {
        var bytes = [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        if bytes.last == 0x0A {
            bytes.removeLast()
            if bytes.last == 0x0D { bytes.removeLast() }
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return SecretData(bytes)
    }

    /// Reads one line of standard input without its line ending (LF, or CR LF), for commands that read
    /// several secrets; a last line without LF is kept whole, a trailing CR included.
    static func readStandardInputLine() -> SecretData? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        var sawAny = false
        var ended = false
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count != 1 { break }
            sawAny = true
            if byte == 0x0A {
                ended = true
                break
            }
            bytes.append(byte)
        }
        if ended, bytes.last == 0x0D { bytes.removeLast() }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return sawAny ? SecretData(bytes) : nil
    }
}
