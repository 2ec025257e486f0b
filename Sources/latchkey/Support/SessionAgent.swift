import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#endif

/// The user's agent as a login finds it (`latchkey pam-unlock`): the one that answers on the session's
/// socket (an agent that runs, or systemd's socket unit, which starts one), else a new one started here.
///
/// A new agent is `latchkey agent --foreground`, plus `--secret-service` when the session has a bus
/// (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`, where systemd's user bus listens); it runs in a
/// session of its own (`setsid`), with standard input from `/dev/null` and its output appended to
/// `$XDG_RUNTIME_DIR/latchkey/agent.log`, which is where its "ready" line is awaited. When it cannot serve
/// the Secret Service (another provider owns the name) it is started again without.
enum SessionAgent {
    /// How long a new agent has to print its ready line(s): less than the PAM module's 10 s, so that the login
    /// hears why.
    static let readyTimeout: TimeInterval = 8

    /// How a started agent ended the wait.
    enum Start: Equatable {
        /// It printed its ready line(s).
        case ready
        /// It exited first.
        case exited
        /// Neither within `readyTimeout`.
        case timedOut
    }

    /// The agent of this session: connected to, or started and then connected to.
    ///
    /// - Throws: `notAvailable` (-25291) without a runtime directory, or when a started agent does not get
    ///   ready (the message names its log); the agent's refusal of the connection.
    static func connectOrStart(
        environment given: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> AgentClient {
        var environment = given
        environment["LATCHKEY_AGENT"] = AgentMode.auto.rawValue
        guard let runtime = AgentLocation.runtimeDirectory(environment: environment),
            let socketPath = AgentLocation.socketPath(environment: environment)
        else {
            throw KeychainError(
                .notAvailable,
                "The session has no runtime directory (XDG_RUNTIME_DIR, /run/user/<uid>) for the agent's socket, "
                    + "so no agent can run: the keychain stays locked until `latchkey unlock`."
            )
        }
        if let agent = try AgentClient.discover(environment: environment) { return agent }
        try start(socketPath: socketPath, runtime: runtime, environment: environment)
        guard let agent = try AgentClient.discover(environment: environment) else {
            throw KeychainError(
                .notAvailable,
                "The latchkey agent started for this login printed its ready line but does not answer on "
                    + "\(socketPath); see \(logPath(socketPath))."
            )
        }
        return agent
    }

    /// The log of agents started here: beside the socket.
    static func logPath(_ socketPath: String) -> String {
        (socketPath as NSString).deletingLastPathComponent + "/agent.log"
    }

    /// The session bus address a new agent serves the Secret Service on, or `nil` when there is no bus.
    static func sessionBus(environment: [String: String], runtime: String) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        var info = stat()
        let path = runtime + "/bus"
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=" + path
    }

    /// Starts an agent (with the Secret Service when there is a bus, else or failing that without) and waits
    /// for its ready line(s).
    private static func start(socketPath: String, runtime: String, environment: [String: String]) throws {
        let directory = (socketPath as NSString).deletingLastPathComponent
        try ensurePrivateDirectory(directory)
        let log = logPath(socketPath)
        let descriptor = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "Cannot open the agent's log \(log): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var agentEnvironment = environment
        agentEnvironment["LATCHKEY_AGENT"] = nil
        let bus = sessionBus(environment: environment, runtime: runtime)
        if let bus {
            agentEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus
            let started = try launch(
                ["--secret-service"],
                log: descriptor,
                logPath: log,
                socketPath: socketPath,
                environment: agentEnvironment
            )
            if started == .ready { return }
            if started == .timedOut { throw notReady(log, started) }
            warn("the agent could not serve the Secret Service on the session bus (see \(log)); starting it without")
        }
        let started = try launch(
            [],
            log: descriptor,
            logPath: log,
            socketPath: socketPath,
            environment: agentEnvironment
        )
        if started != .ready { throw notReady(log, started) }
    }

    private static func notReady(_ log: String, _ outcome: Start) -> KeychainError {
        let what = outcome == .exited ? "exited before it was ready" : "did not get ready within \(Int(readyTimeout)) s"
        return KeychainError(
            .notAvailable,
            "The latchkey agent started for this login \(what); see \(log). The keychain stays locked until "
                + "`latchkey unlock`."
        )
    }

    /// Creates the agent's directory (0700) when it is missing; refuses one that is not this user's directory.
    private static func ensurePrivateDirectory(_ directory: String) throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw KeychainError(.io, "Cannot create \(directory): \(String(cString: strerror(errno))).")
        }
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            throw KeychainError(
                .io,
                "\(directory) is not a directory of this user: the agent's socket cannot be made there."
            )
        }
    }

    /// Spawns `latchkey agent --foreground` with `extra` arguments, in a session of its own, its output
    /// appended to `log`, and waits for "ready <socket>" (and "secret-service ready" with `--secret-service`)
    /// among the lines it appends, for its exit, or for `readyTimeout`.
    private static func launch(
        _ extra: [String],
        log: Int32,
        logPath: String,
        socketPath: String,
        environment: [String: String]
    ) throws -> Start {
        let offset = lseek(log, 0, SEEK_END)
        let watch = try LogWatch(path: logPath)
        let executable = ownExecutable()
        let arguments = [executable, "agent", "--foreground"] + extra
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        _ = "/dev/null".withCString { posix_spawn_file_actions_addopen(&actions, 0, $0, O_RDONLY, 0) }
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | spawnSetSID))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw KeychainError(.io, "Cannot start \(executable) agent: \(String(cString: strerror(status))).")
        }
        let wanted = ["ready \(socketPath)"] + (extra.contains("--secret-service") ? ["secret-service ready"] : [])
        let deadline = Date(timeIntervalSinceNow: readyTimeout)
        while true {
            let lines = appendedLines(logPath, from: Int(max(offset, 0)))
            if wanted.allSatisfy({ prefix in lines.contains { $0.hasPrefix(prefix) } }) { return .ready }
            var exitStatus: Int32 = 0
            if waitpid(pid, &exitStatus, WNOHANG) == pid { return .exited }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .timedOut }
            watch.wait(process: pid, timeout: remaining)
        }
    }

    /// glibc's `POSIX_SPAWN_SETSID` (2.26+, `<spawn.h>` under `_GNU_SOURCE`, which Swift's Glibc module does not
    /// import): the child runs `setsid()`, so the login's terminal and session are not the agent's.
    private static let spawnSetSID: Int32 = 0x80

    /// The complete lines appended to `path` after `offset`.
    private static func appendedLines(_ path: String, from offset: Int) -> [String] {
        guard let data = FileManager.default.contents(atPath: path), data.count > offset else { return [] }
        var lines = String(decoding: data.dropFirst(offset), as: UTF8.self).split(
            separator: "\n",
            omittingEmptySubsequences: false
        ).map(String.init)
        lines.removeLast()  // the unterminated rest
        return lines
    }

    /// This program's path, which the agent is started from: the absolute path it was run by (the PAM module
    /// runs it so), else the kernel's.
    private static func ownExecutable() -> String {
        if let first = CommandLine.arguments.first, first.hasPrefix("/") { return first }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "latchkey"
    }
}

/// Wakes when a file is written to (inotify) or a process exits (a pidfd): what `SessionAgent` waits on for a
/// new agent's ready line.
private final class LogWatch {
    private let inotify: Int32

    init(path: String) throws {
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0, inotify_add_watch(inotify, path, UInt32(IN_MODIFY)) >= 0 else {
            let reason = String(cString: strerror(errno))
            if inotify >= 0 { close(inotify) }
            throw KeychainError(.io, "Cannot watch the agent's log \(path): \(reason).")
        }
    }

    deinit { close(inotify) }

    /// Waits until the file is written, `process` exits, or `timeout` passes; without a pidfd (Linux < 5.3)
    /// it wakes at least every 50 ms to let the caller ask for the exit.
    func wait(process: pid_t, timeout: TimeInterval) {
        let pidfd = Self.pidfdOpen.map { $0(process, 0) } ?? -1
        defer { if pidfd >= 0 { close(pidfd) } }
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0),
        ]
        var milliseconds = Int32(min(timeout * 1000, 60_000)) + 1
        if pidfd < 0 { milliseconds = min(milliseconds, 50) }
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
    }

    private typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32

    /// glibc's `pidfd_open` (2.36+), looked up at run time: Swift's Glibc module does not import `<sys/pidfd.h>`.
    private static let pidfdOpen: PidfdOpen? = dlsym(nil, "pidfd_open").map { unsafeBitCast($0, to: PidfdOpen.self) }
}
