import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// A real PAM login for the test user `latchkey-pam-test`: `pam_latchkey.so` compiled from contrib/pam into a
/// temporary directory, a service file `/etc/pam.d/latchkey-test-<random>` (pam_unix, then the module in the
/// auth, session and password stacks), and Debian's `pamtester` (a peer) to authenticate, open a session and
/// change the password. Needs root (CI runs as root).
///
/// The user (created when missing, `useradd --system`; no other account is touched) gets a fresh home and
/// runtime directory in the temporary directory for each harness, and the password `password`. `deinit`
/// stops the user's agents started from that runtime directory and removes the service file and the
/// directory.
///
/// ```swift
/// let login = try PamHarness(password: "first")
/// let opened = try login.pamtester(["authenticate", "open_session"], input: "first\n")
/// let info = try login.asUser(["show-keychain-info", "--json"])
/// ```
final class PamHarness: @unchecked Sendable {
    // SAFETY: every stored property is a `let`; the class exists for `deinit` cleanup.

    /// The test user's name.
    static let user = "latchkey-pam-test"

    /// The temporary directory (0755, root's) holding the module, `home` and `run`.
    let directory: String
    /// The user's home for this harness (0700, the user's).
    let home: String
    /// The user's runtime directory (`runtime_dir=` of the module; 0700, the user's).
    let runtime: String
    /// The PAM service name (`/etc/pam.d/<service>`).
    let service: String
    /// The user's uid and primary gid.
    let uid: uid_t
    let gid: gid_t
    /// The peers.
    let pamtesterPath: String
    let setprivPath: String
    /// The built `latchkey` the module runs.
    let latchkey: String
    /// The compiled module.
    let module: String
    /// The auth lines before the module.
    let authStack: String

    /// The agent's socket.
    var socketPath: String { runtime + "/latchkey/agent.sock" }
    /// The keychain the first login creates.
    var keychainPath: String { home + "/.local/share/latchkey/login.keychain-db" }

    /// Compiles the module, prepares the user (password `password`) and writes the service file.
    ///
    /// - Parameter authStack: The auth lines before the module (default `auth required pam_unix.so`).
    init(
        password: String,
        authStack: String = "auth required pam_unix.so",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try #require(geteuid() == 0, "the PAM tests need root (CI runs as root)", sourceLocation: sourceLocation)
        pamtesterPath = try Peer.require("pamtester", package: "pamtester", sourceLocation: sourceLocation)
        setprivPath = try Peer.require("setpriv", package: "util-linux", sourceLocation: sourceLocation)
        let compiler = try Peer.require("cc", package: "gcc", sourceLocation: sourceLocation)
        let useradd = try Peer.require("useradd", package: "passwd", sourceLocation: sourceLocation)
        let usermod = try Peer.require("usermod", package: "passwd", sourceLocation: sourceLocation)
        let chpasswd = try Peer.require("chpasswd", package: "passwd", sourceLocation: sourceLocation)
        latchkey = AgentLocation.canonical(BuiltExecutable.latchkey)

        let template = FileManager.default.temporaryDirectory.path + "/latchkey-pam-XXXXXX"
        var bytes = Array(template.utf8CString)
        let created = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(created != nil, "mkdtemp failed", sourceLocation: sourceLocation)
        directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(directory, 0o755)
        home = directory + "/home"
        runtime = directory + "/run"
        service = "latchkey-test-" + String(UUID().uuidString.prefix(8)).lowercased()

        let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        if getpwnam(Self.user) == nil {
            let added = try CLIRunner.run(
                useradd,
                ["--system", "--no-create-home", "--home-dir", home, "--shell", "/usr/sbin/nologin", Self.user],
                environment: environment
            )
            try #require(added.status == 0, "useradd: \(added.stderr)", sourceLocation: sourceLocation)
        } else {
            let moved = try CLIRunner.run(usermod, ["--home", home, Self.user], environment: environment)
            try #require(moved.status == 0, "usermod: \(moved.stderr)", sourceLocation: sourceLocation)
        }
        let account = try #require(getpwnam(Self.user), sourceLocation: sourceLocation)
        uid = account.pointee.pw_uid
        gid = account.pointee.pw_gid
        let changed = try CLIRunner.run(
            chpasswd,
            [],
            environment: environment,
            input: Data("\(Self.user):\(password)\n".utf8)
        )
        try #require(changed.status == 0, "chpasswd: \(changed.stderr)", sourceLocation: sourceLocation)
        for path in [home, runtime] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try #require(chown(path, uid, gid) == 0 && chmod(path, 0o700) == 0, sourceLocation: sourceLocation)
        }

        let compiledModule = directory + "/pam_latchkey.so"
        let source =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path + "/contrib/pam/pam_latchkey.c"
        let compiled = try CLIRunner.run(
            compiler,
            ["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror", "-o", compiledModule, source],
            environment: ProcessInfo.processInfo.environment
        )
        try #require(compiled.status == 0, "cc: \(compiled.stderr)", sourceLocation: sourceLocation)
        module = compiledModule
        self.authStack = authStack
        // A debug build's first unlock (scrypt, the keys written) takes seconds: the login waits up to 120 s.
        try writeService(program: latchkey, timeout: 120)
    }

    /// (Re)writes the service file: pam_unix, then the module with `latchkey=program` and `timeout=`.
    func writeService(program: String, timeout: Int) throws {
        let arguments = "latchkey=\(program) runtime_dir=\(runtime) timeout=\(timeout)"
        let lines = [
            authStack,
            "auth optional \(module) \(arguments)",
            "account required pam_permit.so",
            "session optional \(module) \(arguments)",
            "password required pam_unix.so",
            "password optional \(module) \(arguments)",
        ]
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: "/etc/pam.d/" + service,
            atomically: true,
            encoding: .utf8
        )
    }

    deinit {
        for pid in agentProcesses() {
            kill(pid, SIGTERM)
            Self.waitForExit(pid, timeout: 30)
        }
        unlink("/etc/pam.d/" + service)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `pamtester <service> latchkey-pam-test <operations>`, answering its prompts from `input`.
    func pamtester(_ operations: [String], input: String, environment extra: [String: String] = [:]) throws
        -> CLIRunner.Result
    {
        try CLIRunner.run(
            pamtesterPath,
            ["-v", service, Self.user] + operations,
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"].merging(extra) { _, new in new },
            input: Data(input.utf8),
            timeout: 300
        )
    }

    /// The environment of the user's processes: their home and runtime directory, nothing else of the test's.
    var userEnvironment: [String: String] {
        ["HOME": home, "XDG_RUNTIME_DIR": runtime, "PATH": "/usr/bin:/bin", "USER": Self.user]
    }

    /// Runs `program` (the built `latchkey` by default) as the test user (util-linux `setpriv`, with the user's
    /// groups: the agent identifies only clients of its own uid and gid).
    func asUser(
        _ arguments: [String],
        program: String? = nil,
        input: String? = nil,
        environment extra: [String: String] = [:]
    ) throws -> CLIRunner.Result {
        try CLIRunner.run(
            setprivPath,
            ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups", program ?? latchkey] + arguments,
            environment: userEnvironment.merging(extra) { _, new in new },
            input: input.map { Data($0.utf8) },
            timeout: 300
        )
    }

    /// Starts `program` as the test user without waiting for it.
    func spawnAsUser(_ arguments: [String], program: String, environment extra: [String: String] = [:]) throws
        -> ChildProcess
    {
        try BuiltExecutable.spawn(
            ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups", program] + arguments,
            environment: userEnvironment.merging(extra) { _, new in new },
            executable: setprivPath
        )
    }

    /// The agent's state as `show-keychain-info --json` run as the user reports it (`lockState`, `agent.pid`).
    func keychainInfo(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let info = try asUser(["show-keychain-info", "--json"])
        try #require(info.status == 0, "show-keychain-info: \(info.stderr)", sourceLocation: sourceLocation)
        return try #require(
            try JSONSerialization.jsonObject(with: info.stdoutData) as? [String: Any],
            sourceLocation: sourceLocation
        )
    }

    /// The processes of the test user whose environment names this harness's runtime directory and that run
    /// `latchkey agent`: the agents a login started (found through `/proc`, as root).
    func agentProcesses() -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> pid_t? in
            guard let pid = pid_t(name) else { return nil }
            // Not the owner of /proc/<pid>: a non-dumpable process's (the agent's) belongs to root.
            guard let status = try? String(contentsOfFile: "/proc/\(name)/status", encoding: .utf8),
                status.split(separator: "\n").contains(where: { $0.hasPrefix("Uid:\t\(uid)\t") }),
                let command = FileManager.default.contents(atPath: "/proc/\(name)/cmdline"),
                let environment = FileManager.default.contents(atPath: "/proc/\(name)/environ")
            else { return nil }
            let words = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard words.dropFirst().first == "agent", variables.contains("XDG_RUNTIME_DIR=\(runtime)") else {
                return nil
            }
            return pid
        }
    }

    /// Stops the user's agents (SIGTERM) and waits for each to exit.
    func stopAgents() {
        for pid in agentProcesses() {
            kill(pid, SIGTERM)
            Self.waitForExit(pid, timeout: 60)
        }
    }

    /// The paths of the files under `root` (recursively) whose bytes contain `secret`.
    static func files(under root: String, containing secret: String) -> [String] {
        let needle = Data(secret.utf8)
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                let contents = FileManager.default.contents(atPath: path)
            else { continue }
            if contents.range(of: needle) != nil { found.append(path) }
        }
        return found
    }

    private typealias PidfdOpen = @convention(c) (Int32, UInt32) -> Int32

    /// glibc's `pidfd_open`, looked up at run time (Swift's Glibc module does not import `<sys/pidfd.h>`).
    private static let pidfdOpen: PidfdOpen? = dlsym(nil, "pidfd_open").map { unsafeBitCast($0, to: PidfdOpen.self) }

    /// Waits (poll on a pidfd) until `pid`, which is not this process's child, exits, or `timeout` passes.
    @discardableResult
    static func waitForExit(_ pid: pid_t, timeout: TimeInterval) -> Bool {
        guard let openPidfd = pidfdOpen else { return false }
        let descriptor = openPidfd(pid, 0)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, Int32(timeout * 1000)) == 1
    }
}
