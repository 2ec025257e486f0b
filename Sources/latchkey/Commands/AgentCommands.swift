import ArgumentParser
import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeySecretService

/// `agent`: runs the per-user agent that unlocks once for every process of the user.
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the per-user agent: one unlock and one lock state for every latchkey client of this user.",
        discussion: """
            The agent listens on $XDG_RUNTIME_DIR/latchkey/agent.sock (directory 0700, socket 0600) and serves the \
            keychain (-k, else $LATCHKEY_KEYCHAIN, else the default keychain) to every process of this user; \
            processes of other users are disconnected. It starts locked (unless its own environment names a \
            credential): run `latchkey unlock` once. With no keychain yet (a first login) it makes one that \
            waits locked, and the first unlock creates it with that passphrase. Each client gets the access \
            groups of its executable (its resolved path, plus those granted with `latchkey access grant`). When the socket is ready the agent \
            prints one line, "ready <socket>", on standard output. With --secret-service it also owns \
            org.freedesktop.secrets ("secret-service ready org.freedesktop.secrets"); when that name is taken it \
            says who holds it and exits 1. --replace takes the name from its owner unless that provider has an \
            unlocked collection (then it refuses, exit 1; --replace-unlocked replaces anyway) or does not allow \
            replacement (gnome-keyring: stop it first); an agent replaced later prints "secret-service lost \
            org.freedesktop.secrets" and keeps serving its socket. SIGTERM, SIGINT or SIGHUP stop it and remove \
            the socket. It refuses to start (exit 1) when another agent runs on the socket. --lock-on-sleep (or \
            the keychain's set-keychain-settings -l) locks the keychain for every client when the machine goes to \
            sleep (logind's PrepareForSleep on the system bus). The agent always \
            runs in the foreground for now (--foreground is accepted for scripts and systemd units); use the \
            systemd user units in contrib/systemd or your session's autostart to run it in the background. \
            See docs/agent.md.
            """
    )

    @OptionGroup var keychain: KeychainOptions
    @Flag(name: .customLong("foreground"), help: "Stay in the foreground (the only mode for now).")
    var foreground = false
    @Option(
        name: .customLong("idle-lock"),
        help: ArgumentHelp("Lock after this many seconds without a request from any client.", valueName: "seconds")
    )
    var idleLock: Double?
    @Flag(
        name: .customLong("lock-on-sleep"),
        help: "Lock for every client when the machine goes to sleep (default: set-keychain-settings -l)."
    )
    var lockOnSleep = false
    @Option(
        name: .customLong("pinentry"),
        help: ArgumentHelp(
            "The pinentry program that asks the user (access groups, protected items); default: $LATCHKEY_PINENTRY, "
                + "else pinentry on PATH; 'none' for no prompter.",
            valueName: "path"
        )
    )
    var pinentry: String?
    @Flag(
        name: .customLong("secret-service"),
        help: "Also own org.freedesktop.secrets on the session bus (docs/secret-service.md)."
    )
    var secretService = false
    @Flag(
        name: .customLong("replace"),
        help: ArgumentHelp(
            "Take org.freedesktop.secrets from its current owner (implies --secret-service); refused while that "
                + "provider has an unlocked collection, or when it does not allow replacement (gnome-keyring: stop "
                + "it first). See docs/install.md."
        )
    )
    var replace = false
    @Flag(
        name: .customLong("replace-unlocked"),
        help: "Like --replace, even when the current owner is unlocked (its session's secrets become locked)."
    )
    var replaceUnlocked = false
    @Option(
        name: .customLong("secret-service-access"),
        help: ArgumentHelp(
            "confined: each application sees its own Secret Service items and is asked for others' (the default); "
                + "shared: every client of the session bus sees every item, as with gnome-keyring. Default: "
                + "$LATCHKEY_SECRET_SERVICE_ACCESS, else confined.",
            valueName: "confined|shared"
        )
    )
    var secretServiceAccess: SecretServiceApplications.Mode?
    @Option(
        name: .customLong("access-log"),
        help: ArgumentHelp(
            "on: record every secret read, write and access decision in the encrypted access log beside the "
                + "keychain (the default; `latchkey access log` reads it); off: keep no log (for benchmarks).",
            valueName: "on|off"
        )
    )
    var accessLog: String = "on"
    @Option(
        name: .customLong("access-log-limit"),
        help: ArgumentHelp("Rotate the access log past this many bytes (default 4194304).", valueName: "bytes")
    )
    var accessLogLimit: Int?
    @Option(
        name: .customLong("hello-timeout"),
        help: ArgumentHelp(
            "Close a new connection that has not sent its whole hello within this many seconds (default: "
                + "$LATCHKEY_AGENT_HELLO_TIMEOUT, else 2).",
            valueName: "seconds"
        )
    )
    var helloTimeout: Double?
    @Option(
        name: .customLong("connections-per-client"),
        help: ArgumentHelp(
            "Serve at most this many connections of one program (uid and executable) at once (default: "
                + "$LATCHKEY_AGENT_CONNECTIONS_PER_CLIENT, else 64).",
            valueName: "count"
        )
    )
    var connectionsPerClient: Int?

    func validate() throws {
        if let idleLock, !(idleLock > 0) { throw ValidationError("--idle-lock takes a positive number of seconds.") }
        if let helloTimeout, !(helloTimeout > 0 && helloTimeout.isFinite) {
            throw ValidationError("--hello-timeout takes a positive number of seconds.")
        }
        if let connectionsPerClient, connectionsPerClient < 1 {
            throw ValidationError("--connections-per-client takes a positive integer.")
        }
        guard accessLog == "on" || accessLog == "off" else { throw ValidationError("--access-log is on or off.") }
        if let accessLogLimit, accessLogLimit < 1 { throw ValidationError("--access-log-limit takes a positive size.") }
    }

    func run() throws {
        try runReportingErrors {
            var configuration = try AgentConfiguration.standard()
            configuration.keychainPath = keychain.path
            configuration.storeOptions = keychain.storeOptions
            configuration.idleLock = try idleLock ?? KeychainSettings.load(for: keychain.path).idleLock.map(Double.init)
            configuration.lockOnSleep = try lockOnSleep || KeychainSettings.load(for: keychain.path).lockOnSleep
            if let helloTimeout { configuration.helloTimeout = helloTimeout }
            if let connectionsPerClient { configuration.connectionsPerClient = connectionsPerClient }
            configuration.accessLog = accessLog == "on"
            if let accessLogLimit { configuration.accessLogLimit = accessLogLimit }
            if let pinentry {
                configuration.pinentry = AgentPrompter.locate(
                    option: pinentry,
                    environment: ProcessInfo.processInfo.environment
                )
            }
            _ = try AgentServer.runUntilTerminated(configuration) { server in
                AgentKeyringImport.offer(on: server)
                FileHandle.standardOutput.write(Data("ready \(server.socketPath)\n".utf8))
                if secretService || replace || replaceUnlocked {
                    AgentSecretService.start(
                        server,
                        access: secretServiceAccess,
                        takeover: replaceUnlocked ? .evenUnlocked : replace ? .whenLocked : .none
                    )
                }
            }
        }
    }
}

/// `unlock`: hands a credential to the agent, which unlocks the keychain for every client.
struct UnlockAgent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the agent's keychain for every latchkey client of this user.",
        discussion: """
            The passphrase comes from --passphrase-stdin, else from the pinentry program named by \
            $LATCHKEY_PINENTRY (the Assuan protocol, as gpg-agent uses it), else a no-echo prompt on the terminal; \
            --key-file gives a key file instead. Needs a running agent (latchkey agent). The agent derives the keys once and \
            keeps them until `latchkey lock`, its idle lock, or its exit. A wrong passphrase exits 1 with \
            OSStatus -25293. When the agent finds the keychain file older than the last state it saw (rolled \
            back to an older copy), it refuses with OSStatus -26275; --accept-rollback unlocks and accepts the \
            file as it is now.
            """
    )

    @Flag(name: .customLong("passphrase-stdin"), help: "Read the passphrase from standard input.")
    var passphraseStdin = false
    @Option(name: .customLong("key-file"), help: "A key file (32 random bytes, or 64 hex digits).")
    var keyFile: String?
    @Flag(
        name: .customLong("accept-rollback"),
        help: "Accept a keychain file the agent refuses as rolled back to an older copy (a restore made on purpose)."
    )
    var acceptRollback = false

    func run() throws {
        try runReportingErrors {
            let agent = try RunningAgent.client(acceptingRollback: acceptRollback)
            let credential: UnlockCredential
            if let keyFile {
                credential = try .keyFile(at: keyFile)
            } else if passphraseStdin {
                credential = .passphrase(Terminal.readStandardInput())
            } else if let program = ProcessInfo.processInfo.environment["LATCHKEY_PINENTRY"]
                .flatMap({ AgentPrompter.locate(option: $0, environment: ProcessInfo.processInfo.environment) })
            {
                let terminal = AgentHandshake.Hello.ownTerminal()
                credential = .passphrase(
                    try AgentPrompter(program: program, timeout: 300).askPassphrase(
                        description: "Unlock the keychain \(agent.welcome.keychain) for every latchkey client.",
                        target: AgentPrompter.Target(
                            ttyName: terminal["ttyname"],
                            ttyType: terminal["TERM"],
                            display: terminal["DISPLAY"],
                            waylandDisplay: terminal["WAYLAND_DISPLAY"]
                        )
                    )
                )
            } else {
                guard Terminal.isInteractive else {
                    throw KeychainError(
                        .interactionNotAllowed,
                        "No terminal to ask for the passphrase on: use --passphrase-stdin or --key-file."
                    )
                }
                let keychainPath = agent.welcome.keychain
                let waiting = (try? KeychainFile(path: keychainPath).facts().isWaitingForFirstUnlock) ?? false
                if waiting {
                    // The first unlock creates the keychain with this passphrase: ask twice (docs/install.md).
                    FileHandle.standardError.write(Data("There is no keychain yet: this creates it.\n".utf8))
                    credential = .passphrase(try Terminal.newPassphrase(for: keychainPath))
                } else {
                    credential = .passphrase(try Terminal.readSecret(prompt: "Passphrase for \(keychainPath): "))
                }
            }
            _ = try agent.perform(.unlock(credential))
        }
    }
}

/// `lock`: locks the agent's keychain for every client.
struct LockAgent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the agent's keychain for every latchkey client of this user.",
        discussion: """
            Items accessible when-unlocked (and its this-device-only variant) become unavailable to every client \
            (OSStatus -25308) until `latchkey unlock`; after-first-unlock items stay readable until the agent \
            stops, as on iOS. Needs a running agent.
            """
    )

    func run() throws {
        try runReportingErrors {
            _ = try RunningAgent.client().perform(.lock)
        }
    }
}

/// The agent the `unlock` and `lock` commands talk to.
enum RunningAgent {
    /// The session's agent, whatever `LATCHKEY_AGENT` says (these commands exist only for the agent).
    ///
    /// - Throws: `notAvailable` naming the socket when no agent answers.
    static func client(acceptingRollback: Bool = false) throws -> AgentClient {
        var environment = ProcessInfo.processInfo.environment
        environment["LATCHKEY_AGENT"] = AgentMode.required.rawValue
        guard let agent = try AgentClient.discover(environment: environment, acceptingRollback: acceptingRollback)
        else {
            throw KeychainError(
                .notAvailable,
                "No latchkey agent runs for this session: start one with `latchkey agent`."
            )
        }
        return agent
    }
}

extension SecretServiceApplications.Mode: ExpressibleByArgument {}
