import Foundation
import Latchkey
import LatchkeyCrypto
import Logging
import Synchronization

/// The agent's prompter: asks the user through a pinentry program, speaking the Assuan protocol as
/// gpg-agent does, one question at a time.
///
/// For each question the agent starts the program with its own environment (`PATH`, `HOME`, locale,
/// `XDG_RUNTIME_DIR`, `DBUS_SESSION_BUS_ADDRESS`, `XAUTHORITY`) and the client's `TERM`, `DISPLAY` and
/// `WAYLAND_DISPLAY` (from its hello), sends `OPTION ttyname=` and `OPTION ttytype=` for the client's
/// terminal, then `SETTIMEOUT`, `SETTITLE`, `SETDESC`, `SETPROMPT`, `SETOK`/`SETNOTOK`/`SETCANCEL`, one
/// `CONFIRM` or `GETPIN`, and `BYE`. A question without an answer within `timeout` seconds is a refusal;
/// questions from concurrent clients wait for each other. A question asked for a client's connection
/// (`watching`) is cancelled, its pinentry killed, as soon as that client hangs up, and is never shown when
/// the client left while it waited for the questions before it. The passphrase of a `GETPIN` is held only as
/// `SecretData`; the buffers it passed through are wiped and it is never logged.
public final class AgentPrompter: Sendable {
    /// The pinentry program, absolute.
    public let program: String
    /// How long one question may wait for its answer, in seconds.
    public let timeout: TimeInterval
    private let logger: Logger
    private let serial = Mutex<Int>(0)

    /// Where a question is shown: the client's terminal and display, from its hello.
    public struct Target: Sendable, Hashable {
        /// The client's terminal device (`OPTION ttyname=`), when it has one.
        public var ttyName: String?
        /// The client's `TERM` (`OPTION ttytype=`).
        public var ttyType: String?
        /// The client's `DISPLAY`.
        public var display: String?
        /// The client's `WAYLAND_DISPLAY`.
        public var waylandDisplay: String?

        /// Makes a target.
        public init(
            ttyName: String? = nil,
            ttyType: String? = nil,
            display: String? = nil,
            waylandDisplay: String? = nil
        ) {
            self.ttyName = ttyName
            self.ttyType = ttyType
            self.display = display
            self.waylandDisplay = waylandDisplay
        }
    }

    /// The user's answer to "may this program use that access group?".
    public enum GroupAnswer: String, Sendable {
        /// Granted now and remembered in the access policy (by path and content hash).
        case always
        /// Granted for this connection only.
        case once
        /// Refused by the user: the Deny button (or Escape, or a closed window, which pinentry reports alike).
        case deny
        /// Refused without an answer: no answer in time, a failed pinentry, or the client went away. Nothing is
        /// remembered and no follow-up question is asked.
        case unanswered
    }

    /// Makes a prompter for `program`.
    ///
    /// - Parameters:
    ///   - program: The pinentry program (absolute, or found on `PATH`).
    ///   - timeout: Seconds a question may wait for its answer.
    ///   - logger: Where questions and their outcomes (never a passphrase) are logged.
    public init(
        program: String,
        timeout: TimeInterval,
        logger: Logger = Logger(label: "latchkey.prompter") { _ in SwiftLogNoOpLogHandler() }
    ) {
        self.program = program
        self.timeout = timeout
        self.logger = logger
    }

    /// The pinentry program the agent uses: `option` (`--pinentry`), else `LATCHKEY_PINENTRY`, else
    /// `pinentry` on `PATH`; `nil` for none (also when the chosen value is empty or `none`, or is a name
    /// not found on `PATH`).
    public static func locate(option: String?, environment: [String: String]) -> String? {
        let chosen = option ?? environment["LATCHKEY_PINENTRY"] ?? "pinentry"
        if chosen.isEmpty || chosen == "none" { return nil }
        if chosen.contains("/") { return AgentLocation.canonical(chosen) }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(chosen)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Asks whether `identity` (process `process`) may use the items of access group `group`, with the
    /// buttons Always allow (OK), Allow once (Not OK) and Deny (Cancel).
    ///
    /// pinentry's three-button `CONFIRM` (pinentry/pinentry.c, `cmd_confirm`, gpg/pinentry at 572b3f3)
    /// answers `OK` for the OK button, `ERR` with `GPG_ERR_NOT_CONFIRMED` (114) for the button set with
    /// `SETNOTOK`, and `ERR` with `GPG_ERR_CANCELED` (99) for Cancel, Escape or a closed window; the error
    /// value carries the source (pinentry, 5) in its high bits, so only its low 16 bits are compared.
    ///
    /// - Parameters:
    ///   - description: The question's text; by default "Allow <identity> (pid <process>) to use the
    ///     keychain items of access group <group>?".
    ///   - client: The socket of the connection the question is for: its hang-up cancels the question
    ///     (`.deny`); `nil` when the asker has no socket (the Secret Service).
    public func askForGroup(
        identity: String,
        process: Int32,
        group: String,
        target: Target,
        description: String? = nil,
        watching client: Int32? = nil
    ) -> GroupAnswer {
        let answer: GroupAnswer
        let text =
            description ?? "Allow \(identity) (pid \(process)) to use the keychain items of access group \(group)?"
        do throws(PinentryProcess.Failure) {
            answer = try converse(target, watching: client) {
                (pinentry) throws(PinentryProcess.Failure) -> GroupAnswer in
                try pinentry.command("SETDESC " + Assuan.escape(text))
                try pinentry.command("SETOK " + Assuan.escape("Always allow"))
                try pinentry.command("SETNOTOK " + Assuan.escape("Allow once"))
                try pinentry.command("SETCANCEL " + Assuan.escape("Deny"))
                switch try pinentry.command("CONFIRM") {
                case .ok: return .always
                case .error(let code, _) where Assuan.errorCode(code) == Assuan.notConfirmed: return .once
                case .error(let code, _) where Assuan.errorCode(code) == Assuan.canceled: return .deny
                default: return .unanswered  // pinentry's own timeout, or an error
                }
            }
        } catch .clientGone {
            logger.info("group question cancelled: the client went away", metadata: ["pid": "\(process)"])
            return .unanswered
        } catch {
            logger.warning(
                "prompt failed: the group is refused",
                metadata: ["pid": "\(process)", "reason": "\(error)"]
            )
            answer = .unanswered
        }
        logger.info("group question answered", metadata: ["pid": "\(process)", "answer": "\(answer.rawValue)"])
        return answer
    }

    /// Asks for the keychain passphrase (`GETPIN`) to confirm the user's presence.
    ///
    /// - Parameter client: The socket of the connection the question is for, whose hang-up cancels it.
    /// - Throws: `userCanceled` (-128) when the user cancels or does not answer in time, or the client went
    ///   away; `interactionNotAllowed` (-25308) when pinentry cannot be started or fails.
    public func askPassphrase(
        description: String,
        target: Target,
        watching client: Int32? = nil
    ) throws(KeychainError) -> SecretData {
        try mapping { () throws(PinentryProcess.Failure) -> Result<SecretData, KeychainError> in
            try converse(target, watching: client) {
                (pinentry) throws(PinentryProcess.Failure) -> Result<SecretData, KeychainError> in
                try pinentry.command("SETDESC " + Assuan.escape(description))
                try pinentry.command("SETPROMPT " + Assuan.escape("Passphrase:"))
                var data: [UInt8] = []
                defer { wipe(&data) }
                let response = try pinentry.command("GETPIN", data: &data)
                guard case .ok = response else { return .failure(Self.refusal(response)) }
                return .success(SecretData(data))
            }
        }.get()
    }

    /// Asks for the passphrase of a keychain being created (`GETPIN` after `SETREPEAT`: pinentry asks twice
    /// and answers only when both match).
    ///
    /// - Throws: As `askPassphrase(description:target:watching:)`; `param` (-50) for an empty passphrase.
    public func askNewPassphrase(description: String, target: Target) throws(KeychainError) -> SecretData {
        let passphrase = try mapping { () throws(PinentryProcess.Failure) -> Result<SecretData, KeychainError> in
            try converse(target, watching: nil) {
                (pinentry) throws(PinentryProcess.Failure) -> Result<SecretData, KeychainError> in
                try pinentry.command("SETDESC " + Assuan.escape(description))
                try pinentry.command("SETPROMPT " + Assuan.escape("New passphrase:"))
                try pinentry.command("SETREPEAT " + Assuan.escape("Repeat:"))
                try pinentry.command("SETREPEATERROR " + Assuan.escape("The passphrases do not match."))
                var data: [UInt8] = []
                defer { wipe(&data) }
                let response = try pinentry.command("GETPIN", data: &data)
                guard case .ok = response else { return .failure(Self.refusal(response)) }
                return .success(SecretData(data))
            }
        }.get()
        guard !passphrase.isEmpty else {
            throw KeychainError(.param, "An empty passphrase would leave the new keychain unprotected; none was set.")
        }
        return passphrase
    }

    /// Asks for a plain confirmation (`CONFIRM` with OK and Cancel), for a keychain without a passphrase.
    ///
    /// - Parameter client: The socket of the connection the question is for, whose hang-up cancels it.
    /// - Throws: As `askPassphrase(description:target:watching:)`.
    public func confirm(description: String, target: Target, watching client: Int32? = nil) throws(KeychainError) {
        try mapping { () throws(PinentryProcess.Failure) -> Result<Void, KeychainError> in
            try converse(target, watching: client) {
                (pinentry) throws(PinentryProcess.Failure) -> Result<Void, KeychainError> in
                try pinentry.command("SETDESC " + Assuan.escape(description))
                try pinentry.command("SETOK " + Assuan.escape("Allow"))
                try pinentry.command("SETCANCEL " + Assuan.escape("Deny"))
                let response = try pinentry.command("CONFIRM")
                guard case .ok = response else { return .failure(Self.refusal(response)) }
                return .success(())
            }
        }.get()
    }

    /// After a "Deny": asks whether to remember the denial, with the buttons Deny always (OK) and Only this
    /// time (Cancel); returns whether to remember it. Cancel, a closed window, no answer in time or a failed
    /// pinentry are "only this time".
    public func askToRememberDenial(
        identity: String,
        process: Int32,
        group: String,
        target: Target,
        watching client: Int32? = nil
    ) -> Bool {
        let text =
            "Remember this denial? \(identity) (pid \(process)) will not be asked again for access group \(group)."
        let remember: Bool
        do throws(PinentryProcess.Failure) {
            remember = try converse(target, watching: client) { (pinentry) throws(PinentryProcess.Failure) -> Bool in
                try pinentry.command("SETDESC " + Assuan.escape(text))
                try pinentry.command("SETOK " + Assuan.escape("Deny always"))
                try pinentry.command("SETCANCEL " + Assuan.escape("Only this time"))
                if case .ok = try pinentry.command("CONFIRM") { return true }
                return false
            }
        } catch {
            logger.warning(
                "prompt failed: the denial is not remembered",
                metadata: ["pid": "\(process)", "reason": "\(error)"]
            )
            remember = false
        }
        logger.info("denial question answered", metadata: ["pid": "\(process)", "remember": "\(remember)"])
        return remember
    }

    private static func refusal(_ response: Assuan.Response) -> KeychainError {
        if case .error(let code, _) = response {
            let reason = Assuan.errorCode(code)
            if reason == Assuan.canceled || reason == Assuan.notConfirmed || reason == Assuan.timeout {
                return KeychainError(.userCanceled, "The user canceled the authentication.")
            }
        }
        return KeychainError(.interactionNotAllowed, "The agent's prompter (pinentry) failed to ask.")
    }

    private func mapping<T>(
        _ body: () throws(PinentryProcess.Failure) -> Result<T, KeychainError>
    ) -> Result<T, KeychainError> {
        do throws(PinentryProcess.Failure) {
            return try body()
        } catch .timedOut {
            return .failure(
                KeychainError(.userCanceled, "Nobody answered the agent's prompt within \(Int(timeout)) s.")
            )
        } catch .clientGone {
            logger.info("prompt cancelled: the client went away")
            return .failure(KeychainError(.userCanceled, "The client went away before the prompt was answered."))
        } catch {
            logger.warning("prompt failed", metadata: ["reason": "\(error)"])
            return .failure(
                KeychainError(.interactionNotAllowed, "The agent's prompter (pinentry) cannot ask: \(error).")
            )
        }
    }

    /// Runs one conversation with a new pinentry, after the questions before it: options, title and
    /// timeout, then `body`, then `BYE`. With a `client` socket, the conversation is not started when the
    /// client already hung up, and is ended (`clientGone`) as soon as it does.
    private func converse<T>(
        _ target: Target,
        watching client: Int32?,
        _ body: (PinentryProcess) throws(PinentryProcess.Failure) -> T
    ) throws(PinentryProcess.Failure) -> T {
        try serial.withLock { (count: inout Int) throws(PinentryProcess.Failure) -> T in
            count += 1
            let pinentry = try PinentryProcess.start(
                program,
                environment: environment(for: target),
                timeout: timeout,
                watching: client
            )
            defer { pinentry.finish() }
            if let tty = target.ttyName { _ = try pinentry.command("OPTION ttyname=" + Assuan.escape(tty)) }
            if let type = target.ttyType { _ = try pinentry.command("OPTION ttytype=" + Assuan.escape(type)) }
            _ = try pinentry.command("SETTIMEOUT \(max(1, Int(timeout.rounded(.up))))")
            _ = try pinentry.command("SETTITLE " + Assuan.escape("Latchkey"))
            return try body(pinentry)
        }
    }

    private func environment(for target: Target) -> [String] {
        let own = ProcessInfo.processInfo.environment
        var environment: [String: String] = [:]
        let kept = [
            "PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "XDG_RUNTIME_DIR",
            "DBUS_SESSION_BUS_ADDRESS", "XAUTHORITY", "TERM", "DISPLAY", "WAYLAND_DISPLAY",
        ]
        for key in kept { environment[key] = own[key] }
        if let type = target.ttyType { environment["TERM"] = type }
        if let display = target.display { environment["DISPLAY"] = display }
        if let wayland = target.waylandDisplay { environment["WAYLAND_DISPLAY"] = wayland }
        return environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}
