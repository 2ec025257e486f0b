import ArgumentParser
import Foundation
import Latchkey

/// `set-keychain-settings`: the keychain's auto-lock, as `security set-keychain-settings`.
struct SetKeychainSettings: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-settings",
        abstract: "Set a keychain's auto-lock (idle timeout, lock on sleep).",
        discussion: """
            As `security`: -u locks after -t seconds of inactivity (300 when -t is not given); -t alone also \
            sets the timeout; -l locks on sleep; no option resets both (no timeout, no lock on sleep). The \
            settings are kept in <keychain>.settings.json. The idle lock is the agent's (latchkey agent \
            --idle-lock): Latchkey without the agent keeps nothing unlocked between commands, so there is \
            nothing to time out. Lock on sleep is the agent's too (latchkey agent --lock-on-sleep). A running \
            agent keeps the settings it was started with; show-keychain-info shows them.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Flag(name: .customShort("l"), help: "Lock when the machine sleeps (by the agent).") var lockOnSleep = false
    @Flag(name: .customShort("u"), help: "Lock after the timeout.") var lockAfterTimeout = false
    @Option(name: .customShort("t"), help: "Timeout in seconds (default 300 with -u).") var timeout: Int?

    func validate() throws {
        if let timeout, timeout <= 0 { throw ValidationError("-t takes a number of seconds above 0.") }
    }

    func run() throws {
        try runReportingErrors {
            let path = keychain.path
            guard FileManager.default.fileExists(atPath: path) else {
                throw KeychainName.missing(path, named: keychain.isNamed)
            }
            var settings = KeychainSettings()
            settings.lockOnSleep = lockOnSleep
            if lockAfterTimeout || timeout != nil { settings.idleLock = timeout ?? 300 }
            try settings.save(for: path)
        }
    }
}
