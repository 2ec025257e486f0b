import Foundation
import LatchkeyCrypto
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Keyring files written by the real gnome-keyring (Debian's `gnome-keyring-daemon`, a peer) in a temporary
/// `XDG_DATA_HOME`: a private bus (`dbus-daemon --session`), the daemon started with `--unlock` and the login
/// password on standard input (it creates the `login` keyring with it), items stored with `secret-tool`,
/// collections made through gnome-keyring's `CreateWithMasterPassword` (Debian's python3 with `dbus`), and
/// what gnome-keyring itself shows of every item (`dump`), read before it is stopped.
///
/// ```swift
/// let peer = try GnomeKeyringPeer(password: "login password")
/// _ = try peer.secretTool(["store", "--label", "L", "service", "S"], input: "pw")
/// let shown = try peer.dump()
/// peer.stop()
/// ```
final class GnomeKeyringPeer: @unchecked Sendable {
    // SAFETY: every stored property is a `let`; `ChildProcess` is safe to share.

    /// The temporary directory (removed when released).
    let directory: String
    /// The `XDG_DATA_HOME` gnome-keyring writes `keyrings/` under.
    let dataHome: String
    /// `$XDG_DATA_HOME/keyrings`.
    var keyrings: String { dataHome + "/keyrings" }
    /// The environment of the daemon and its clients (the private bus's address).
    let environment: [String: String]
    let bus: ChildProcess
    let daemon: ChildProcess
    let secretToolPath: String
    /// Debian's python3 with `dbus` (dbus-python).
    let python: String
    /// The script that prints every collection and item the Secret Service on the bus shows (`dump`).
    let dumpScript: String

    /// Starts a private bus and gnome-keyring's secrets component on it, unlocked with `password`, and waits
    /// for it to own `org.freedesktop.secrets` (`gdbus wait`, no timer).
    init(password: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let dbusDaemon = try Peer.require("dbus-daemon", package: "dbus-daemon", sourceLocation: sourceLocation)
        let keyringDaemon = try Peer.require(
            "gnome-keyring-daemon",
            package: "gnome-keyring",
            sourceLocation: sourceLocation
        )
        let gdbus = try Peer.require("gdbus", package: "libglib2.0-bin", sourceLocation: sourceLocation)
        secretToolPath = try Peer.require("secret-tool", package: "libsecret-tools", sourceLocation: sourceLocation)
        python = try Peer.require("/usr/bin/python3", package: "python3", sourceLocation: sourceLocation)
        let probe = try CLIRunner.run(python, ["-c", "import dbus"], environment: ProcessInfo.processInfo.environment)
        try #require(
            probe.status == 0,
            "peer python3-dbus missing: install the Debian package python3-dbus (.ci/run installs every peer)",
            sourceLocation: sourceLocation
        )
        let template = FileManager.default.temporaryDirectory.path + "/latchkey-gnome-keyring-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw GnomeKeyringPeerError.notReady("mkdtemp failed")
        }
        directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        dataHome = directory + "/data"
        for path in [directory + "/home", directory + "/run", dataHome] {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory + "/home",
            "XDG_DATA_HOME": dataHome,
            "XDG_RUNTIME_DIR": directory + "/run",
            "XDG_CONFIG_HOME": directory + "/home/.config",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
        ]
        bus = try BuiltExecutable.spawn(
            ["--session", "--print-address=1", "--nofork"],
            environment: environment,
            executable: dbusDaemon
        )
        guard bus.waitForLines(1, timeout: 60), let address = bus.stdoutLines.first, !address.isEmpty else {
            throw GnomeKeyringPeerError.notReady("dbus-daemon printed no address")
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
        daemon = try BuiltExecutable.spawn(
            ["--foreground", "--unlock", "--components=secrets"],
            environment: environment,
            input: password,
            executable: keyringDaemon
        )
        let waited = try CLIRunner.run(
            gdbus,
            ["wait", "--session", "--timeout", "60", "org.freedesktop.secrets"],
            environment: environment
        )
        guard waited.status == 0 else {
            daemon.kill(SIGKILL)
            let finished = daemon.waitForExit(timeout: 10)
            throw GnomeKeyringPeerError.notReady("gnome-keyring-daemon: \(waited.stderr) \(finished.stderr)")
        }
        dumpScript = directory + "/dump.py"
        try Data(Self.dumpSource.utf8).write(to: URL(fileURLWithPath: dumpScript))
        try Data(Self.createSource.utf8).write(to: URL(fileURLWithPath: directory + "/create.py"))
    }

    deinit {
        daemon.kill(SIGKILL)
        bus.kill(SIGKILL)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `secret-tool` against gnome-keyring.
    func secretTool(_ arguments: [String], input: String? = nil) throws -> CLIRunner.Result {
        try CLIRunner.run(secretToolPath, arguments, environment: environment, input: input.map { Data($0.utf8) })
    }

    /// Makes a keyring labelled `label` with `password` through gnome-keyring's
    /// `InternalUnsupportedGuiltRiddenInterface.CreateWithMasterPassword` (no prompter needed; an empty password
    /// makes a plain keyring) and returns its collection's path.
    func createCollection(label: String, password: String) throws -> String {
        let result = try CLIRunner.run(python, [directory + "/create.py", label, password], environment: environment)
        guard result.status == 0, let path = result.stdout.split(separator: "\n").last else {
            throw GnomeKeyringPeerError.notReady("CreateWithMasterPassword: \(result.stderr)")
        }
        return String(path)
    }

    /// Stores `count` items in the collection at `collection` through gnome-keyring's `CreateItem`, in one
    /// python process (faster than one `secret-tool` each): labels `Item <n>`, attributes `service` and
    /// `username` `user<n>`, secrets `secret-<n>`.
    func storeMany(_ count: Int, in collection: String) throws {
        let script = """
            import dbus, sys
            bus = dbus.SessionBus()
            service = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
            _, session = service.OpenSession('plain', dbus.String('', variant_level=1),
                dbus_interface='org.freedesktop.Secret.Service')
            target = dbus.Interface(bus.get_object('org.freedesktop.secrets', sys.argv[1]),
                'org.freedesktop.Secret.Collection')
            for n in range(int(sys.argv[2])):
                properties = {
                    'org.freedesktop.Secret.Item.Label': dbus.String('Item %d' % n, variant_level=1),
                    'org.freedesktop.Secret.Item.Attributes': dbus.Dictionary(
                        {'service': 'bulk.example', 'username': 'user%d' % n}, signature='ss', variant_level=1),
                }
                secret = dbus.Struct((session, dbus.ByteArray(b''), dbus.ByteArray(b'secret-%d' % n), 'text/plain'))
                target.CreateItem(properties, secret, True)
            """
        let result = try CLIRunner.run(python, ["-c", script, collection, String(count)], environment: environment)
        guard result.status == 0 else { throw GnomeKeyringPeerError.notReady("CreateItem: \(result.stderr)") }
    }

    /// Every collection (but `session`) and item the Secret Service on `environment`'s bus shows, one sorted line
    /// each: `collection <name> <label> items=<n>`, `item [collection, label, attributes, secret hex, created,
    /// modified]` (JSON), and `default <collection>`.
    func dump(environment other: [String: String]? = nil) throws -> [String] {
        let result = try CLIRunner.run(python, [dumpScript], environment: other ?? environment)
        guard result.status == 0 else { throw GnomeKeyringPeerError.notReady("dump: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// Stops gnome-keyring and waits for it to exit, so that nothing writes its files any more. It writes a
    /// keyring's file (atomically: a temporary file renamed) before it answers the call that changed the keyring,
    /// so the files are complete once every call has returned; SIGKILL, because a SIGTERM can stay pending in a
    /// child of the test process (the daemon then exits only at the deadline).
    func stop() {
        daemon.kill(SIGKILL)
        _ = daemon.waitForExit(timeout: 60)
    }

    /// The SHA-256 of every file in `keyrings`, by name.
    func hashes() throws -> [String: String] {
        var hashes: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: keyrings) {
            let data = try Data(contentsOf: URL(fileURLWithPath: keyrings + "/" + name))
            hashes[name] = Self.sha256(data)
        }
        return hashes
    }

    private static func sha256(_ data: Data) -> String {
        HashAlgorithm.sha256.digest([UInt8](data)).map { String(format: "%02x", $0) }.joined()
    }

    private static let createSource = """
        import dbus, sys
        bus = dbus.SessionBus()
        service = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
        _, session = service.OpenSession('plain', dbus.String('', variant_level=1),
            dbus_interface='org.freedesktop.Secret.Service')
        guilt = dbus.Interface(service, 'org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface')
        properties = {'org.freedesktop.Secret.Collection.Label': dbus.String(sys.argv[1], variant_level=1)}
        secret = (session, dbus.ByteArray(b''), dbus.ByteArray(sys.argv[2].encode()), 'text/plain')
        print(guilt.CreateWithMasterPassword(properties, secret))
        """

    private static let dumpSource = """
        import dbus, json
        bus = dbus.SessionBus()
        service = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/secrets')
        _, session = service.OpenSession('plain', dbus.String('', variant_level=1),
            dbus_interface='org.freedesktop.Secret.Service')
        properties = dbus.Interface(service, 'org.freedesktop.DBus.Properties')
        lines = []
        for path in properties.Get('org.freedesktop.Secret.Service', 'Collections'):
            name = str(path).rsplit('/', 1)[1]
            if name == 'session':
                continue
            collection = dbus.Interface(bus.get_object('org.freedesktop.secrets', path),
                'org.freedesktop.DBus.Properties')
            label = str(collection.Get('org.freedesktop.Secret.Collection', 'Label'))
            items = collection.Get('org.freedesktop.Secret.Collection', 'Items')
            lines.append('collection %s %s items=%d' % (name, label, len(items)))
            for item_path in items:
                item = bus.get_object('org.freedesktop.secrets', item_path)
                shown = dbus.Interface(item, 'org.freedesktop.DBus.Properties').GetAll('org.freedesktop.Secret.Item')
                secret = dbus.Interface(item, 'org.freedesktop.Secret.Item').GetSecret(session)
                attributes = {str(k): str(v) for k, v in shown['Attributes'].items()}
                lines.append('item ' + json.dumps([name, str(shown['Label']), attributes, bytes(secret[2]).hex(),
                    int(shown['Created']), int(shown['Modified'])], sort_keys=True))
        alias = service.ReadAlias('default', dbus_interface='org.freedesktop.Secret.Service')
        lines.append('default ' + str(alias).rsplit('/', 1)[1])
        print('\\n'.join(sorted(lines)))
        """
}

/// Why the gnome-keyring peer could not be set up.
enum GnomeKeyringPeerError: Error {
    /// A step failed, with what it printed.
    case notReady(String)
}
