import ArgumentParser
import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// `pam-unlock` (hidden): unlocks the user's keychain with the login password, which `pam_latchkey.so` writes
/// on standard input (docs/install.md, "Unlock at login (PAM)").
///
/// At the session's start (no flag) it finds the user's agent, or starts one (`SessionAgent`), and unlocks it;
/// an agent that has no keychain yet creates it at that first unlock, with the login password. With
/// `--if-running` (the module's auth step: a screen unlock, a second login) it unlocks only an agent that
/// answers and a keychain that exists, so that a password the stack goes on to refuse never creates one.
struct PamUnlock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pam-unlock",
        abstract: "Unlock the login keychain with the login password on standard input (run by pam_latchkey.so).",
        discussion: """
            Exit status 0 when the agent's keychain is unlocked (already, or now), 1 otherwise, with the reason on \
            standard error. See docs/install.md.
            """,
        shouldDisplay: false
    )

    @Flag(
        name: .customLong("if-running"),
        help: "Only unlock an agent that answers, and only a keychain that exists (the auth step)."
    )
    var ifRunning = false

    func run() throws {
        try PamInput.reportingErrors {
            var bytes = try PamInput.read()
            defer { PamInput.wipe(&bytes) }
            let password = SecretData(bytes)
            guard !password.isEmpty else {
                throw KeychainError(.param, "No password on standard input: nothing to unlock with.")
            }
            let agent: AgentClient
            if ifRunning {
                var environment = ProcessInfo.processInfo.environment
                environment["LATCHKEY_AGENT"] = AgentMode.auto.rawValue
                guard let running = try AgentClient.discover(environment: environment) else {
                    throw KeychainError(.notAvailable, "No latchkey agent runs for this user yet: the session unlocks.")
                }
                agent = running
                if agent.welcome.lockState == .unlocked { return }
                guard try PamInput.keychainIsCreated(agent.welcome.keychain) else {
                    throw KeychainError(
                        .notAvailable,
                        "The keychain \(agent.welcome.keychain) is not created yet: the session's start creates it."
                    )
                }
            } else {
                agent = try SessionAgent.connectOrStart()
                if agent.welcome.lockState == .unlocked { return }
            }
            do throws(KeychainError) {
                _ = try agent.perform(.unlock(.passphrase(password)))
            } catch {
                guard error.code == .authFailed else { throw error }
                throw KeychainError(
                    .authFailed,
                    "The login password does not open the keychain \(agent.welcome.keychain): it stays locked. "
                        + "Unlock it with `latchkey unlock`, or make its passphrase the login password with "
                        + "`latchkey set-keychain-password`."
                )
            }
        }
    }
}

/// `pam-passwd` (hidden): changes the keychain's passphrase from the old login password to the new one, both
/// on standard input separated by a NUL byte (`pam_latchkey.so`, password step).
///
/// Through the agent when one answers (unlocked with the old password first when it is locked, then one
/// `.changeCredential`), else in process on the default keychain. Only a keychain the old password opens
/// changes; a keychain not created yet is left to be created at the next login, with the new password.
struct PamPasswd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pam-passwd",
        abstract: "Change the keychain passphrase with the login password (run by pam_latchkey.so).",
        discussion: """
            Standard input: the old password, a NUL byte, the new password. Exit status 0 when the passphrase \
            changed or there is no keychain yet; 1 when the old password does not open the keychain (nothing \
            changes) or another error, with the reason on standard error. See docs/install.md.
            """,
        shouldDisplay: false
    )

    func run() throws {
        try PamInput.reportingErrors {
            var input = try PamInput.read()
            defer { PamInput.wipe(&input) }
            guard let separator = input.firstIndex(of: 0) else {
                throw KeychainError(.param, "Standard input must hold the old password, a NUL byte and the new one.")
            }
            let old = SecretData(Array(input[..<separator]))
            let new = SecretData(Array(input[(separator + 1)...]))
            guard !old.isEmpty, !new.isEmpty else {
                throw KeychainError(.param, "The old and the new password must not be empty.")
            }
            let path = KeychainOptions.path(nil)
            var environment = ProcessInfo.processInfo.environment
            environment["LATCHKEY_AGENT"] = AgentMode.auto.rawValue
            if let agent = try AgentClient.discover(environment: environment) {
                try Self.change(agent.welcome.keychain) { () throws(KeychainError) -> Bool in
                    guard try PamInput.keychainIsCreated(agent.welcome.keychain) else { return false }
                    if agent.welcome.lockState != .unlocked { _ = try agent.perform(.unlock(.passphrase(old))) }
                    try agent.changeCredential(current: .passphrase(old), to: .passphrase(new))
                    return true
                }
                return
            }
            try Self.change(path) { () throws(KeychainError) -> Bool in
                guard try PamInput.keychainIsCreated(path) else { return false }
                try KeychainFile(path: path).open().changeCredential(current: .passphrase(old), to: .passphrase(new))
                return true
            }
        }
    }

    /// Runs `body` (which says whether there was a keychain to change), turning a wrong old password into
    /// the message a password change shows.
    private static func change(_ keychain: String, _ body: () throws(KeychainError) -> Bool) throws(KeychainError) {
        do throws(KeychainError) {
            if try !body() {
                warn("no keychain at \(keychain) yet: the next login creates it with the new password.")
            }
        } catch {
            guard error.code == .authFailed else { throw error }
            throw KeychainError(
                .authFailed,
                "The old password does not open the keychain \(keychain), so its passphrase was not changed. "
                    + "Change it with `latchkey set-keychain-password`."
            )
        }
    }
}

/// What both PAM helpers share: the password input, the keychain check and the error report.
enum PamInput {
    /// The most standard input holds (two PAM passwords, whose limit is 512 bytes each, and a separator).
    static let limit = 64 * 1024

    /// All of standard input, byte for byte (no line ending is removed: the module writes the password alone).
    ///
    /// - Throws: `param` when it holds more than `limit` bytes.
    static func read() throws(KeychainError) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer { for index in buffer.indices { buffer[index] = 0 } }
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            guard bytes.count + count <= limit else {
                wipe(&bytes)
                throw KeychainError(.param, "Standard input holds more than \(limit) bytes: not a password.")
            }
            bytes.append(contentsOf: buffer[..<count])
        }
        return bytes
    }

    /// Zeroes `bytes` (a password read from standard input) before they are released.
    static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }

    /// Whether the keychain at `path` exists with its keys (not a file that waits for its first unlock).
    static func keychainIsCreated(_ path: String) throws(KeychainError) -> Bool {
        let file = KeychainFile(path: path)
        guard file.exists else { return false }
        return try !file.facts().isWaitingForFirstUnlock
    }

    /// Runs `body`; a `KeychainError` is written on standard error as "latchkey: <command>: <message>
    /// (OSStatus <code>)", which the module logs, and the process exits 1.
    static func reportingErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as KeychainError {
            let command = CommandLine.arguments.dropFirst().first ?? "latchkey"
            FileHandle.standardError.write(
                Data("latchkey: \(command): \(error.message) (OSStatus \(error.code.rawValue))\n".utf8)
            )
            throw ExitCode(ExitStatus.failure)
        }
    }
}
