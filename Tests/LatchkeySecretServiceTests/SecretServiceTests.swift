import Crypto
import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

@testable import LatchkeySecretService

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// `latchkey agent --secret-service` on a private session bus, driven by real Secret Service clients:
/// Debian's `secret-tool` (libsecret, which opens a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session) and
/// python's `secretstorage` (its own Diffie-Hellman over jeepney, plus a `plain` session, properties and
/// signals), and the `latchkey` CLI reading what they stored.
struct SecretServiceTests {
    @Test func secretToolStoresLooksUpSearchesAndClearsThroughTheAgent() throws {
        let harness = try SecretServiceHarness()
        let stored = try harness.secretTool(
            ["store", "--label", "Example login", "service", "example.com", "username", "alice"],
            input: "s3cret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")

        let looked = try harness.secretTool(["lookup", "service", "example.com", "username", "alice"])
        #expect(looked.status == 0, "\(looked.stderr)")
        #expect(looked.stdout == "s3cret")

        let searched = try harness.secretTool(["search", "service", "example.com"])
        #expect(searched.status == 0, "\(searched.stderr)")
        #expect(searched.stdout.contains("label = Example login"), "\(searched.stdout)")
        // secret-tool prints the attributes on standard error.
        #expect(searched.stderr.contains("attribute.username = alice"), "\(searched.stderr)")
        #expect(searched.stdout.contains("secret = s3cret"), "\(searched.stdout)")

        let replaced = try harness.secretTool(
            ["store", "--label", "Example login", "service", "example.com", "username", "alice"],
            input: "n3w"
        )
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try harness.secretTool(["lookup", "service", "example.com", "username", "alice"]).stdout == "n3w")
        let other = try harness.secretTool(["store", "--label", "Other", "service", "example.com"], input: "x")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try harness.secretTool(["lookup", "service", "example.com"]).status == 0)

        let cleared = try harness.secretTool(["clear", "service", "example.com", "username", "alice"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        let gone = try harness.secretTool(["lookup", "service", "example.com", "username", "alice"])
        #expect(gone.status == 1)
        #expect(gone.stdout.isEmpty)
        #expect(try harness.secretTool(["lookup", "service", "example.com"]).stdout == "x")
    }

    @Test func itemStoredBySecretToolIsReadByFindGenericPassword() throws {
        let harness = try SecretServiceHarness()
        let stored = try harness.secretTool(
            ["store", "--label", "API", "service", "api.example.com", "username", "bob"],
            input: "t0ken"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        // The CLI sees only its own access group until the user grants it the Secret Service's.
        let hidden = try harness.latchkey(["find-generic-password", "-s", "api.example.com", "-a", "bob", "-w"])
        #expect(hidden.status != 0)
        let granted = try harness.latchkey([
            "access", "grant", AgentLocation.canonical(BuiltExecutable.latchkey), SecretServiceBackend.accessGroup,
        ])
        #expect(granted.status == 0, "\(granted.stderr)")
        let found = try harness.latchkey(["find-generic-password", "-s", "api.example.com", "-a", "bob", "-w"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "t0ken\n")
        let shown = try harness.latchkey(["find-generic-password", "-s", "api.example.com", "-a", "bob"])
        #expect(shown.stdout.contains("API"), "\(shown.stdout)")
        // The same file opened in process, with the group, dumps it (attribute map in gena, digest in vwht).
        let dumped = try CLIRunner.latchkey(
            ["dump-keychain"],
            environment: harness.environment.merging([
                "LATCHKEY_AGENT": "off", "LATCHKEY_PASSPHRASE": SecretServiceHarness.passphrase,
                "LATCHKEY_ACCESS_GROUPS": SecretServiceBackend.accessGroup,
            ]) { _, new in new }
        )
        #expect(dumped.status == 0, "\(dumped.stderr)")
        #expect(dumped.stdout.contains("\"svce\"=<blob>=\"api.example.com\""), "\(dumped.stdout)")
        #expect(dumped.stdout.contains("\"agrp\"=<blob>=\"org.freedesktop.secrets\""), "\(dumped.stdout)")
        #expect(dumped.stdout.contains("\"vwht\"=<blob>=\"secret-service:"), "\(dumped.stdout)")
    }

    @Test func lockedKeychainListsItsItemsLockedAndUnlocksThroughThePrompt() throws {
        let harness = try SecretServiceHarness()
        let stored = try harness.secretTool(["store", "--label", "L", "service", "s", "username", "u"], input: "pw")
        #expect(stored.status == 0, "\(stored.stderr)")
        let locked = try harness.latchkey(["lock"])
        #expect(locked.status == 0, "\(locked.stderr)")

        // The search finds the item through the index (locked); libsecret's Unlock prompts; Cancel refuses.
        let refused = try harness.secretTool(["lookup", "service", "s", "username", "u"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(harness.pinentry.commands(named: "GETPIN").count == 1)
        let refusedStore = try harness.secretTool(["store", "--label", "M", "service", "t"], input: "pw")
        #expect(refusedStore.status != 0)
        let searched = try harness.secretTool(["search", "service", "s"])
        #expect(!searched.stdout.contains("pw"), "\(searched.stdout)")

        // The passphrase in the prompt: the same lookup reads the secret.
        harness.pinentry.answer(["PIN \(SecretServiceHarness.passphrase)"])
        let looked = try harness.secretTool(["lookup", "service", "s", "username", "u"])
        #expect(looked.stdout == "pw", "\(looked.stderr)")

        // `latchkey unlock` opens it for the bus as well, without a prompt.
        #expect(try harness.latchkey(["lock"]).status == 0)
        try harness.unlock()
        let asked = harness.pinentry.commands(named: "GETPIN").count
        #expect(try harness.secretTool(["lookup", "service", "s", "username", "u"]).stdout == "pw")
        #expect(harness.pinentry.commands(named: "GETPIN").count == asked)
    }

    @Test func lockAndUnlockOfTheAgentAreAnnouncedOnTheBus() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let watcher = try BuiltExecutable.spawn(
            ["-c", Self.lockedWatcherScript],
            environment: harness.environment,
            executable: python
        )
        defer { watcher.kill(SIGKILL) }
        try #require(watcher.waitForLines(1, timeout: 60), "the watcher did not subscribe")
        #expect(try harness.latchkey(["lock"]).status == 0)
        #expect(watcher.waitForLines(2, timeout: 60))
        try harness.unlock()
        #expect(watcher.waitForLines(3, timeout: 60))
        #expect(watcher.stdoutLines == ["watching", "Locked True", "Locked False"])
    }

    @Test func secretStorageUsesPropertiesSignalsAndBothSessionAlgorithms() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let result = try harness.run(python, ["-c", Self.secretStorageScript])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        for check in [
            "unlocked", "created", "found", "dh secret", "attributes", "label set", "signal ItemCreated",
            "plain secret", "no session", "set secret", "attributes set", "introspected", "deleted",
        ] {
            #expect(result.stdout.contains("ok \(check)\n"), "\(check): \(result.stdout)\n\(result.stderr)")
        }
    }

    @Test func pythonKeyringStoresReadsAndDeletesThroughTheAgent() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let script = """
            import keyring
            assert type(keyring.get_keyring()).__module__ == 'keyring.backends.SecretService', keyring.get_keyring()
            keyring.set_password('py-keyring.example', 'dora', 'kr-secret')
            print(keyring.get_password('py-keyring.example', 'dora'))
            keyring.set_password('py-keyring.example', 'erin', 'other')
            keyring.delete_password('py-keyring.example', 'erin')
            print(keyring.get_password('py-keyring.example', 'erin'))
            """
        let result = try harness.run(python, ["-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "kr-secret\nNone\n")
        // secret-tool is another application: the agent asks once ("Allow once") before it reads python's item.
        harness.pinentry.answer(["NOTOK"])
        let looked = try harness.secretTool(["lookup", "service", "py-keyring.example", "username", "dora"])
        #expect(looked.stdout == "kr-secret", "\(looked.stderr)")
        #expect(harness.pinentry.commands(named: "CONFIRM").count == 1)
    }

    @Test func gitCredentialLibsecretStoresAndReadsAGitPassword() throws {
        let harness = try SecretServiceHarness()
        let git = try Peer.require("git", package: "git")
        let compiler = try Peer.require("gcc", package: "gcc")
        let pkgConfig = try Peer.require("pkg-config", package: "pkg-config")
        let source = "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c"
        try #require(FileManager.default.fileExists(atPath: source), "peer \(source) missing: install git")
        let flags = try harness.run(pkgConfig, ["--cflags", "--libs", "libsecret-1", "glib-2.0"])
        try #require(flags.status == 0, "peer libsecret-1 missing: install libsecret-1-dev (\(flags.stderr))")
        // git's contrib helper, built as its Makefile does.
        let helper = harness.keychain.directory + "/git-credential-libsecret"
        let built = try harness.run(
            compiler,
            ["-O2", "-o", helper, source]
                + flags.stdout.split(separator: " ").map {
                    $0.trimmingCharacters(in: .whitespacesAndNewlines)
                }.filter { !$0.isEmpty }
        )
        try #require(built.status == 0, "building git-credential-libsecret: \(built.stderr)")
        let gitArguments = ["-c", "credential.helper=", "-c", "credential.helper=\(helper)", "credential"]
        let request = "protocol=https\nhost=git.example.com\n"
        let approved = try harness.run(
            git,
            gitArguments + ["approve"],
            input: request + "username=alice\npassword=g1t-secret\n\n"
        )
        #expect(approved.status == 0, "\(approved.stderr)")
        let filled = try harness.run(git, gitArguments + ["fill"], input: request + "\n")
        #expect(filled.status == 0, "\(filled.stderr)")
        #expect(filled.stdout.contains("username=alice\npassword=g1t-secret\n"), "\(filled.stdout)")
        // The helper's attributes are not service/username: found by reading the candidates' attributes.
        // secret-tool is another application than the helper: "Always allow" once.
        harness.pinentry.answer(["OK"])
        let looked = try harness.secretTool(["lookup", "server", "git.example.com", "user", "alice"])
        #expect(looked.stdout == "g1t-secret", "\(looked.stderr)")
        let rejected = try harness.run(git, gitArguments + ["reject"], input: request + "username=alice\n\n")
        #expect(rejected.status == 0, "\(rejected.stderr)")
        #expect(try harness.secretTool(["lookup", "server", "git.example.com", "user", "alice"]).status == 1)
    }

    @Test func agentKilledMidCreateItemLosesNoAcknowledgedItem() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let writer = """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            for n in range(100000):
                collection.create_item('crash %d' % n, {'service': 'crash.example', 'n': str(n)}, b'value %d' % n)
                print(n, flush=True)
            """
        let client = try BuiltExecutable.spawn(["-c", writer], environment: harness.environment, executable: python)
        #expect(client.waitForLines(25, timeout: 120), "the writer did not get 25 items acknowledged")
        harness.agent.kill(SIGKILL)
        let finished = client.waitForExit(timeout: 60)
        #expect(finished.status != 0, "the writer must fail once the agent is gone")
        let acknowledged = finished.stdoutLines.compactMap { Int($0) }
        #expect(acknowledged.count >= 25)

        // The bus releases the dead agent's name when it notices the closed connection: wait for that event.
        let released = try harness.run(python, ["-c", Self.waitForReleasedName])
        #expect(released.stdout == "released\n", "\(released.stderr)")
        let restarted = try harness.startAnotherAgent()
        defer { restarted.kill(SIGKILL) }
        try harness.unlock()
        let reader = """
            import secretstorage, sys
            connection = secretstorage.dbus_init()
            missing = []
            for n in sys.argv[1:]:
                found = list(secretstorage.search_items(connection, {'service': 'crash.example', 'n': n}))
                if len(found) != 1 or found[0].get_secret() != b'value ' + n.encode():
                    missing.append(n)
            print('missing', ' '.join(missing))
            """
        let checked = try harness.run(python, ["-c", reader] + acknowledged.map(String.init))
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout == "missing \n", "acknowledged items lost: \(checked.stdout)")
    }

    @Test func secondServiceOnTheSameBusIsRefused() throws {
        let harness = try SecretServiceHarness(unlock: false)
        let second = TemporaryKeychain()
        var environment = CLIRunner.environment(second)
        environment["DBUS_SESSION_BUS_ADDRESS"] = harness.environment["DBUS_SESSION_BUS_ADDRESS"]
        environment["XDG_RUNTIME_DIR"] = second.directory + "/run"
        environment["LATCHKEY_PASSPHRASE"] = nil
        try FileManager.default.createDirectory(
            atPath: second.directory + "/run",
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let created = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "--passphrase-stdin"],
            environment: environment,
            input: "other"
        )
        #expect(created.status == 0, "\(created.stderr)")
        let refused = try BuiltExecutable.spawn(["agent", "--secret-service"], environment: environment)
        let finished = refused.waitForExit(timeout: 60)
        #expect(finished.status == 1)
        #expect(finished.stderr.contains("org.freedesktop.secrets is already owned"), "\(finished.stderr)")
        #expect(!finished.stdout.contains("secret-service ready"))
    }

    @Test func agentWithoutSessionBusRefusesTheSecretService() throws {
        let keychain = TemporaryKeychain()
        var environment = CLIRunner.environment(keychain)
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["XDG_RUNTIME_DIR"] = keychain.directory + "/run"
        try FileManager.default.createDirectory(
            atPath: keychain.directory + "/run",
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let created = try CLIRunner.latchkey(["create-keychain", "--kdf-cost", "testing"], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let refused = try BuiltExecutable.spawn(["agent", "--secret-service"], environment: environment)
        let finished = refused.waitForExit(timeout: 60)
        #expect(finished.status == 1)
        #expect(finished.stderr.contains("DBUS_SESSION_BUS_ADDRESS is not set"), "\(finished.stderr)")
    }

    @Test(arguments: [
        ("/org/freedesktop/secrets", ObjectPath.service),
        ("/org/freedesktop/secrets/collection/login", .collection("login")),
        ("/org/freedesktop/secrets/aliases/default", .alias("default")),
        ("/org/freedesktop/secrets/collection/login/67656e70ab", .item(collection: "login", id: "67656e70ab")),
        ("/org/freedesktop/secrets/aliases/default/67656e70ab", .aliasItem(alias: "default", id: "67656e70ab")),
        ("/org/freedesktop/secrets/session/s1", .session("s1")),
        ("/org/freedesktop/secrets/prompt/p1", .prompt("p1")),
        ("/org/freedesktop/secrets/collection/other", .collection("other")),
        ("/org/freedesktop/secrets/collection/login/a/b", .unknown),
        ("/org/freedesktop/secrets/collection//a", .unknown),
        ("/org/freedesktop/secretsx", .unknown),
    ])
    func objectPathsNameTheSpecificationsObjects(_ path: String, _ expected: ObjectPath) {
        #expect(ObjectPath(path) == expected)
    }

    @Test(arguments: [
        (BusValue.stringDictionary(["service": "s"]), "a{ss}"),
        (.properties(["Label": .string("l")]), "a{sv}"),
        (.objectPaths(["/"]), "ao"),
        (.structure([.objectPath("/"), .bytes(Data()), .bytes(Data([1])), .string("text/plain")]), "(oayays)"),
        (.dictionary(key: "o", value: "(oayays)", []), "a{o(oayays)}"),
        (.variant(.bytes(Data([2]))), "v"),
    ])
    func busValuesCarryTheSpecificationsSignatures(_ value: BusValue, _ signature: String) {
        #expect(value.signature == signature)
    }

    @Test(arguments: [
        ("67656e70ab", Data([0x67, 0x65, 0x6e, 0x70, 0xab]) as Data?), ("6", nil), ("zz", nil), ("", nil),
    ])
    func itemIdentifiersAreHexPersistentReferences(_ id: String, _ expected: Data?) {
        #expect(SecretItemStore.reference(from: id) == expected)
    }

    @Test func diffieHellmanAgreesWithAnIndependentComputation() throws {
        // Python's own big integers and hmac compute what a libsecret client derives from the service's key.
        let python = try Peer.require("python3", package: "python3")
        let clientPrivate = Data((1...128).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let servicePrivate = Data((1...128).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
        let script = """
            import hashlib, hmac, sys
            p = int.from_bytes(bytes.fromhex(sys.argv[1]), 'big')
            a = int.from_bytes(bytes.fromhex(sys.argv[2]), 'big')
            b = int.from_bytes(bytes.fromhex(sys.argv[3]), 'big')
            A, B = pow(2, a, p), pow(2, b, p)
            shared = pow(B, a, p).to_bytes(128, 'big')
            prk = hmac.new(b'\\0' * 32, shared, hashlib.sha256).digest()
            key = hmac.new(prk, b'\\x01', hashlib.sha256).digest()[:16]
            print(A.to_bytes(128, 'big').hex(), B.to_bytes(128, 'big').lstrip(b'\\0').hex(), key.hex())
            """
        let result = try CLIRunner.run(
            python,
            [
                "-c", script, Self.hex(Data(DiffieHellmanExchange.prime)), Self.hex(clientPrivate),
                Self.hex(servicePrivate),
            ],
            environment: ProcessInfo.processInfo.environment
        )
        let fields = result.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(fields.count == 3, "\(result.stderr)")
        let clientPublic = try #require(Self.bytes(fromHex: fields[0]))
        let exchange = try DiffieHellmanExchange.respond(to: clientPublic, privateKey: servicePrivate)
        #expect(Self.hex(exchange.publicKey) == fields[1])
        #expect(exchange.key.withUnsafeBytes { Self.hex(Data($0)) } == fields[2])
    }

    @Test(arguments: [Data([0]), Data([1]), Data(DiffieHellmanExchange.prime), Self.primeMinusOne])
    func diffieHellmanRefusesDegeneratePublicKeys(_ key: Data) {
        #expect(throws: SecretServiceError.self) { try DiffieHellmanExchange.respond(to: key) }
    }
}
