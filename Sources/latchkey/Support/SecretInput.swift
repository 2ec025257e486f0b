import Foundation
import Latchkey

/// Where secrets come from: an explicit value, standard input, or a no-echo prompt on a terminal — never a
/// hang when there is neither.
enum SecretInput {
    /// The secret of a new or updated item.
    ///
    /// - Parameters:
    ///   - value: The value of `-w PASSWORD` (the user insisted on the command line).
    ///   - fromStandardInput: `--password-stdin` was given.
    ///   - prompt: `-w` was given without a value (`security`'s "put -w last to be prompted").
    ///   - required: Whether a missing source is an error (adds) or means "keep the secret" (`nil`).
    static func itemPassword(
        value: String?,
        fromStandardInput: Bool,
        prompt: Bool,
        required: Bool = true
    )
        throws -> SecretData?
    {
        if fromStandardInput { return Terminal.readStandardInput() }
        if let value, !prompt { return SecretData(string: value) }
        if prompt {
            guard Terminal.isInteractive else {
                throw KeychainError(
                    .interactionNotAllowed,
                    "-w without a value prompts on a terminal, but standard input is not one: use --password-stdin."
                )
            }
            return try promptTwice(first: "password data for new item: ", second: "retype password for new item: ")
        }
        guard required else { return nil }
        guard Terminal.isInteractive else {
            throw KeychainError(
                .param,
                "No password given: use --password-stdin (or -w alone to be prompted on a terminal)."
            )
        }
        return try promptTwice(first: "password data for new item: ", second: "retype password for new item: ")
    }

    /// A passphrase for an archive: from standard input, a file, or a prompt (asked twice when `confirm`).
    static func archivePassphrase(
        fromStandardInput: Bool,
        file: String?,
        confirm: Bool
    ) throws
        -> SecretData
    {
        if fromStandardInput { return Terminal.readStandardInput() }
        if let file {
            guard let contents = FileManager.default.contents(atPath: file) else {
                throw KeychainError(.param, "Cannot read the passphrase file \(file).")
            }
            var bytes = [UInt8](contents)
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            defer { for index in bytes.indices { bytes[index] = 0 } }
            return SecretData(bytes)
        }
        guard Terminal.isInteractive else {
            throw KeychainError(
                .interactionNotAllowed,
                "The archive passphrase is needed but standard input is not a terminal: use --passphrase-stdin or --passphrase-file."
            )
        }
        if confirm { return try promptTwice(first: "Archive passphrase: ", second: "Repeat archive passphrase: ") }
        return try Terminal.readSecret(prompt: "Archive passphrase: ")
    }

    private static func promptTwice(first: String, second: String) throws -> SecretData {
        let entered = try Terminal.readSecret(prompt: first)
        let repeated = try Terminal.readSecret(prompt: second)
        guard entered == repeated else { throw KeychainError(.param, "The two entries do not match.") }
        return entered
    }
}
