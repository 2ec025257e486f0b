#if !canImport(Darwin)
import Foundation
import Latchkey
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The default authenticator on Linux: asks for the keychain passphrase on the controlling terminal
/// (`/dev/tty`, echo off), three tries (Latchkey-specific).
///
/// Without a terminal it fails with `.notInteractive`, which the keychain reports as
/// `errSecInteractionNotAllowed`; an empty line or end of input is `.userCancel`. There is no biometry:
/// the biometric-only policies are unavailable (`.biometryNotAvailable`).
public struct LATerminalAuthenticator: LAAuthenticator {
    /// The terminal device to use.
    public var terminalPath: String
    /// How many wrong passphrases are allowed before `.authenticationFailed`.
    public var attempts: Int

    /// Makes a terminal authenticator.
    public init(terminalPath: String = "/dev/tty", attempts: Int = 3) {
        self.terminalPath = terminalPath
        self.attempts = attempts
    }

    /// `nil` for the passcode policies; `.biometryNotAvailable` for the biometric-only ones.
    public func availability(of policy: LAPolicy) -> LAError.Code? {
        switch policy {
        case .deviceOwnerAuthentication: nil
        case .deviceOwnerAuthenticationWithBiometrics: .biometryNotAvailable
        case .deviceOwnerAuthenticationWithWatch, .deviceOwnerAuthenticationWithBiometricsOrWatch,
            .deviceOwnerAuthenticationWithWristDetection:
            .companionNotAvailable
        }
    }

    /// Prompts on the terminal and checks the passphrase with `request.verifyPassphrase`.
    public func authenticate(_ request: LAAuthenticationRequest) throws(LAError) {
        let descriptor = open(terminalPath, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw LAError(.notInteractive) }
        defer { close(descriptor) }
        var original = termios()
        let hasTermios = tcgetattr(descriptor, &original) == 0
        for attempt in 0..<max(attempts, 1) {
            let header = attempt == 0 ? request.localizedReason + "\n" : "Wrong passphrase, try again.\n"
            write(descriptor, header + "Keychain passphrase: ")
            if hasTermios {
                var silent = original
                silent.c_lflag &= ~tcflag_t(ECHO)
                tcsetattr(descriptor, TCSANOW, &silent)
            }
            var typed = readLine(descriptor) ?? []
            if hasTermios { tcsetattr(descriptor, TCSANOW, &original) }
            write(descriptor, "\n")
            if typed.isEmpty { throw LAError(.userCancel) }
            let passphrase = SecretData(typed)
            typed.withUnsafeMutableBytes { bytes in
                for index in bytes.indices { bytes[index] = 0 }
            }
            if request.verifyPassphrase(passphrase) { return }
        }
        throw LAError(.authenticationFailed)
    }

    private func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    private func readLine(_ descriptor: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count <= 0 { return bytes.isEmpty ? nil : bytes }
            if byte == 0x0A || byte == 0x0D { return bytes }
            bytes.append(byte)
        }
    }
}

/// An authenticator that answers from a script, for tests and headless runs (Latchkey-specific).
///
/// Each `authenticate` call consumes the next outcome (`nil` = success); when the script is exhausted
/// the last outcome repeats. `requests` records every request's reason.
public final class LAScriptedAuthenticator: LAAuthenticator, @unchecked Sendable {
    // SAFETY: all mutable state is behind `state`, a Mutex.
    private let state: Mutex<(outcomes: [LAError.Code?], reasons: [String])>
    private let unavailable: LAError.Code?

    /// Makes a scripted authenticator.
    ///
    /// - Parameters:
    ///   - outcomes: Successive results; `nil` means success.
    ///   - unavailable: What `availability(of:)` reports for every policy (`nil` = available).
    public init(outcomes: [LAError.Code?] = [nil], unavailable: LAError.Code? = nil) {
        self.state = Mutex((outcomes.isEmpty ? [nil] : outcomes, []))
        self.unavailable = unavailable
    }

    /// How many times `authenticate` was called.
    public var callCount: Int { state.withLock { $0.reasons.count } }
    /// The reasons shown, in order.
    public var reasons: [String] { state.withLock { $0.reasons } }

    /// The configured availability.
    public func availability(of policy: LAPolicy) -> LAError.Code? { unavailable }

    /// Returns or throws the next scripted outcome.
    public func authenticate(_ request: LAAuthenticationRequest) throws(LAError) {
        let outcome = state.withLock { state -> LAError.Code? in
            state.reasons.append(request.localizedReason)
            return state.outcomes.count > 1 ? state.outcomes.removeFirst() : state.outcomes[0]
        }
        if let outcome { throw LAError(outcome) }
    }
}
#endif
