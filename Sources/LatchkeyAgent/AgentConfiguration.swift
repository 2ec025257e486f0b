import Foundation
import Latchkey
import Logging

/// How an agent runs: which keychain, which socket, which policy, when to lock by itself, where to log.
public struct AgentConfiguration: Sendable {
    /// The keychain file served to every client (`KeychainLocation.defaultKeychainPath()` by default).
    public var keychainPath: String
    /// The socket to listen on (`AgentLocation.socketPath()`); its directory is created with mode 0700.
    public var socketPath: String
    /// The access policy file (`AccessPolicy.defaultPath()`), read for each new connection.
    public var policyPath: String
    /// Where the agent remembers each keychain's last authenticated state (`$XDG_STATE_HOME/latchkey`, else
    /// `~/.local/state/latchkey`), to refuse a whole file rolled back to an older copy.
    public var stateDirectory: String
    /// How the keychain is opened (device secret, busy timeout, clock). The access groups are ignored:
    /// each client gets its own from its executable.
    public var storeOptions: KeychainStore.Options
    /// Lock the keychain after this many seconds without a request from any client; `nil` never.
    public var idleLock: TimeInterval?
    /// Lock the keychain for every client when the machine goes to sleep (logind's `PrepareForSleep` on the
    /// system bus, `DBUS_SYSTEM_BUS_ADDRESS` else the standard socket); off by default. Without a system bus the
    /// agent logs it once and runs on without it.
    public var lockOnSleep: Bool = false
    /// Where the idle time is measured; `SystemClock` unless a test injects one.
    public var clock: any KeychainClock
    /// At most this many connections of one client program (the peer's uid and executable, as the kernel
    /// reports it at accept) are served at once; more of that program's are closed at once (and logged),
    /// while other programs are still served. Above this, one limit holds for all connections together: the
    /// agent's descriptor limit (`RLIMIT_NOFILE`, whose soft value the agent raises to the hard one) less a
    /// reserve for its own files.
    public var connectionsPerClient: Int
    /// A new connection that has not sent its whole hello within this many seconds is closed.
    public var helloTimeout: TimeInterval
    /// Diagnostics: connections, refusals, lock changes, operation names. Never a secret or an attribute value.
    public var logger: Logger
    /// The pinentry program the agent asks the user with (absolute), or `nil` for no prompter: then a group
    /// the executable lacks is refused (-34018) and an item that needs user presence fails with
    /// `interactionNotAllowed` (-25308). `standard()` takes `AgentPrompter.locate(option:environment:)`.
    public var pinentry: String?
    /// How long a question of the prompter waits for an answer before it counts as refused, in seconds.
    public var promptTimeout: TimeInterval
    /// Whether the agent keeps its access log (`<keychain>.access-log`, docs/agent.md "The access log"); on by
    /// default (`latchkey agent --access-log off` turns it off, for benchmarks).
    public var accessLog: Bool = true
    /// The size in bytes past which the access log's current file is rotated to `<keychain>.access-log.1`
    /// (replacing the older one); 4 MiB by default.
    public var accessLogLimit: Int = 4 << 20

    /// The default configuration for this session.
    ///
    /// `LATCHKEY_AGENT_HELLO_TIMEOUT` (seconds, default 2) and `LATCHKEY_AGENT_CONNECTIONS_PER_CLIENT`
    /// (default 64) set `helloTimeout` and `connectionsPerClient`.
    ///
    /// - Throws: `KeychainError.Code.notAvailable` when there is no runtime directory for the socket, `param`
    ///   for a limit in the environment that is not a positive number.
    public static func standard(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeychainError) -> AgentConfiguration {
        guard let socketPath = AgentLocation.socketPath(environment: environment) else {
            throw KeychainError(
                .notAvailable,
                "There is no runtime directory for the agent's socket: XDG_RUNTIME_DIR is not set and /run/user/"
                    + "\(geteuid()) does not exist."
            )
        }
        var configuration = AgentConfiguration(
            keychainPath: KeychainLocation.defaultKeychainPath(environment: environment),
            socketPath: socketPath,
            policyPath: AccessPolicy.defaultPath(environment: environment),
            stateDirectory: LedgerMemory.defaultDirectory(environment: environment),
            pinentry: AgentPrompter.locate(option: nil, environment: environment)
        )
        if let text = environment["LATCHKEY_AGENT_HELLO_TIMEOUT"] {
            guard let seconds = TimeInterval(text), seconds > 0, seconds.isFinite else {
                throw KeychainError(.param, "LATCHKEY_AGENT_HELLO_TIMEOUT must be a positive number of seconds.")
            }
            configuration.helloTimeout = seconds
        }
        if let text = environment["LATCHKEY_AGENT_CONNECTIONS_PER_CLIENT"] {
            guard let count = Int(text), count > 0 else {
                throw KeychainError(.param, "LATCHKEY_AGENT_CONNECTIONS_PER_CLIENT must be a positive integer.")
            }
            configuration.connectionsPerClient = count
        }
        return configuration
    }

    /// Makes a configuration.
    public init(
        keychainPath: String,
        socketPath: String,
        policyPath: String,
        stateDirectory: String? = nil,
        storeOptions: KeychainStore.Options = KeychainStore.Options(),
        idleLock: TimeInterval? = nil,
        clock: any KeychainClock = SystemClock(),
        connectionsPerClient: Int = 64,
        helloTimeout: TimeInterval = 2,
        logger: Logger = AgentConfiguration.standardErrorLogger(),
        pinentry: String? = nil,
        promptTimeout: TimeInterval = 60
    ) {
        self.keychainPath = keychainPath
        self.socketPath = socketPath
        self.policyPath = policyPath
        self.stateDirectory =
            stateDirectory ?? LedgerMemory.defaultDirectory(environment: ProcessInfo.processInfo.environment)
        self.storeOptions = storeOptions
        self.idleLock = idleLock
        self.clock = clock
        self.connectionsPerClient = connectionsPerClient
        self.helloTimeout = helloTimeout
        self.logger = logger
        self.pinentry = pinentry
        self.promptTimeout = promptTimeout
    }

    /// A logger writing to standard error at `info` level (`latchkey.agent`).
    public static func standardErrorLogger() -> Logger {
        var logger = Logger(label: "latchkey.agent") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .info
        return logger
    }
}
