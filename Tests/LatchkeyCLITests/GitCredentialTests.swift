import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// `latchkey git-credential` driven by the real `git credential fill/approve/reject` (the cases of git's
/// t/lib-credential.sh battery that Debian's git 2.39 can express), and by speaking the helper protocol
/// directly for the attributes newer gits send.
struct GitCredentialTests {
    /// The `git` program; a test that drives git fails (never skips) when it is missing.
    static func git() throws -> String { try Peer.require("git", package: "git") }

    /// A keychain, an askpass script answering `askpass-username` / `askpass-password`, and an environment
    /// in which git reads no user or system configuration.
    struct Fixture {
        let keychain: TemporaryKeychain
        let environment: [String: String]

        init() throws {
            keychain = try CLIRunner.keychain()
            let askpass = keychain.directory + "/askpass"
            let script = """
                #!/bin/sh
                case "$1" in Username*) echo askpass-username ;; *) echo askpass-password ;; esac

                """
            try Data(script.utf8).write(to: URL(fileURLWithPath: askpass))
            chmod(askpass, 0o755)
            let globalConfig = keychain.directory + "/gitconfig"
            _ = FileManager.default.createFile(atPath: globalConfig, contents: Data())
            environment = CLIRunner.environment(
                keychain,
                extra: [
                    "GIT_ASKPASS": askpass, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": globalConfig,
                    "GIT_TERMINAL_PROMPT": "0",
                ]
            )
        }

        /// Runs `git credential <operation>` with the helper configured as the README says.
        func git(_ operation: String, _ fields: [String], useHttpPath: Bool = false) throws -> CLIRunner.Result {
            var arguments = ["-c", "credential.helper=!\(BuiltExecutable.latchkey) git-credential"]
            if useHttpPath { arguments += ["-c", "credential.useHttpPath=true"] }
            arguments += ["credential", operation]
            let input = fields.map { $0 + "\n" }.joined() + "\n"
            let git = try GitCredentialTests.git()
            return try CLIRunner.run(git, arguments, environment: environment, input: Data(input.utf8))
        }

        /// `git credential fill`, as a dictionary of its output.
        func fill(_ fields: [String], useHttpPath: Bool = false, sourceLocation: SourceLocation = #_sourceLocation)
            throws
            -> [String: String]
        {
            let result = try git("fill", fields, useHttpPath: useHttpPath)
            #expect(result.status == 0, "git credential fill: \(result.stderr)", sourceLocation: sourceLocation)
            return GitCredentialTests.parse(result.stdout)
        }

        func approve(_ fields: [String], useHttpPath: Bool = false, sourceLocation: SourceLocation = #_sourceLocation)
            throws
        {
            let result = try git("approve", fields, useHttpPath: useHttpPath)
            #expect(result.status == 0, "git credential approve: \(result.stderr)", sourceLocation: sourceLocation)
        }

        func reject(_ fields: [String], useHttpPath: Bool = false, sourceLocation: SourceLocation = #_sourceLocation)
            throws
        {
            let result = try git("reject", fields, useHttpPath: useHttpPath)
            #expect(result.status == 0, "git credential reject: \(result.stderr)", sourceLocation: sourceLocation)
        }

        /// Speaks the helper protocol directly: `latchkey git-credential <operation>` with `input`.
        func helper(_ operation: String, _ input: String) throws -> CLIRunner.Result {
            try helper(operation, Data(input.utf8))
        }

        func helper(_ operation: String, _ input: Data) throws -> CLIRunner.Result {
            try CLIRunner.run(
                BuiltExecutable.latchkey,
                ["git-credential", operation],
                environment: environment,
                input: input
            )
        }
    }

    static func parse(_ output: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    static let askpassAnswer = ["username": "askpass-username", "password": "askpass-password"]

    func credential(_ fields: [String: String]) -> [String: String] {
        fields.filter { $0.key == "username" || $0.key == "password" }
    }

    // MARK: Through git

    @Test func noExistingDataFallsBackToAskpass() throws {
        let fixture = try Fixture()
        let filled = try fixture.fill(["protocol=https", "host=example.com"])
        #expect(credential(filled) == Self.askpassAnswer)
    }

    @Test func storesAndRetrieves() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=store-user", "password=store-pass"])
        let filled = try fixture.fill(["protocol=https", "host=example.com"])
        #expect(
            filled == ["protocol": "https", "host": "example.com", "username": "store-user", "password": "store-pass"]
        )
        let item = try fixture.keychain.open().findOne(ItemQuery(.internetPassword), withData: true)
        #expect(
            item.attributes[.server] == .string("example.com"),
            "stored as an internet password, as osxkeychain does"
        )
        #expect(item.attributes[.protocol] == .string("htps"))
        #expect(item.attributes[.account] == .string("store-user"))
        #expect(item.data == SecretData(string: "store-pass"))
    }

    @Test func requiresMatchingProtocol() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=u", "password=p"])
        #expect(credential(try fixture.fill(["protocol=http", "host=example.com"])) == Self.askpassAnswer)
    }

    @Test(
        arguments: [
            "other.com", "example.com.evil.org", "evil-example.com", "sub.example.com", "example.co", "xample.com",
            "EXAMPLE.COM", "example.com:443",
        ]
    )
    func requiresExactHost(other: String) throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=u", "password=p"])
        #expect(credential(try fixture.fill(["protocol=https", "host=\(other)"])) == Self.askpassAnswer)
    }

    @Test func requiresMatchingPort() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com:8443", "username=u", "password=p"])
        #expect(credential(try fixture.fill(["protocol=https", "host=example.com"])) == Self.askpassAnswer)
        #expect(credential(try fixture.fill(["protocol=https", "host=example.com:8444"])) == Self.askpassAnswer)
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com:8443"])) == [
                "username": "u", "password": "p",
            ]
        )
        let item = try fixture.keychain.open().findOne(ItemQuery(.internetPassword))
        #expect(item.attributes[.port]?.numberValue == 8443)
        #expect(item.attributes[.server] == .string("example.com"))
    }

    @Test func requiresMatchingUsername() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=user1", "password=pass1"])
        let filled = try fixture.fill(["protocol=https", "host=example.com", "username=user2"])
        #expect(credential(filled) == ["username": "user2", "password": "askpass-password"])
    }

    @Test func requiresMatchingPathWhenGitSendsIt() throws {
        let fixture = try Fixture()
        try fixture.approve(
            ["protocol=http", "host=path.tld", "path=foo.git", "username=user", "password=pass"],
            useHttpPath: true
        )
        #expect(
            credential(try fixture.fill(["protocol=http", "host=path.tld", "path=bar.git"], useHttpPath: true))
                == Self.askpassAnswer
        )
        #expect(
            credential(try fixture.fill(["protocol=http", "host=path.tld", "path=foo.git"], useHttpPath: true)) == [
                "username": "user", "password": "pass",
            ]
        )
        #expect(
            credential(try fixture.fill(["protocol=http", "host=path.tld"])) == [
                "username": "user", "password": "pass",
            ],
            "without useHttpPath git sends no path"
        )
    }

    @Test func overwritesOnStoreAndRejectForgets() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=store-user", "password=pass1"])
        try fixture.approve(["protocol=https", "host=example.com", "username=store-user", "password=pass2"])
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com"])) == [
                "username": "store-user", "password": "pass2",
            ]
        )
        #expect(try fixture.keychain.open().find(ItemQuery(.internetPassword), limit: .all).count == 1)
        try fixture.reject(["protocol=https", "host=example.com", "username=store-user", "password=pass2"])
        #expect(credential(try fixture.fill(["protocol=https", "host=example.com"])) == Self.askpassAnswer)
    }

    @Test func keepsMultipleUsersApartAndForgetsOneUser() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=user1", "password=pass1"])
        try fixture.approve(["protocol=https", "host=example.com", "username=user2", "password=pass2"])
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com", "username=user1"])) == [
                "username": "user1", "password": "pass1",
            ]
        )
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com", "username=user2"])) == [
                "username": "user2", "password": "pass2",
            ]
        )
        try fixture.reject(["protocol=https", "host=example.com", "username=user1"])
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com", "username=user1"])) == [
                "username": "user1", "password": "askpass-password",
            ]
        )
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com", "username=user2"])) == [
                "username": "user2", "password": "pass2",
            ]
        )
    }

    @Test func forgettingAHostErasesEveryUser() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=user1", "password=pass1"])
        try fixture.approve(["protocol=https", "host=example.com", "username=user2", "password=pass2"])
        try fixture.approve(["protocol=https", "host=other.com", "username=user1", "password=kept"])
        try fixture.reject(["protocol=https", "host=example.com"])
        #expect(credential(try fixture.fill(["protocol=https", "host=example.com"])) == Self.askpassAnswer)
        #expect(
            credential(try fixture.fill(["protocol=https", "host=other.com"])) == [
                "username": "user1", "password": "kept",
            ]
        )
    }

    @Test func doesNotEraseADistinctPassword() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=example.com", "username=user1", "password=pass1"])
        try fixture.reject(["protocol=https", "host=example.com", "username=user1", "password=other"])
        #expect(
            credential(try fixture.fill(["protocol=https", "host=example.com"])) == [
                "username": "user1", "password": "pass1",
            ]
        )
    }

    @Test func emptyUsernameRoundTrips() throws {
        let fixture = try Fixture()
        try fixture.approve(["protocol=https", "host=sso.tld", "username=", "password="])
        let filled = try fixture.fill(["protocol=https", "host=sso.tld"])
        #expect(filled == ["protocol": "https", "host": "sso.tld", "username": "", "password": ""])
    }

    @Test func helperConfiguredInGitConfigWorks() throws {
        let fixture = try Fixture()
        let git = try Self.git()
        let configured = try CLIRunner.run(
            git,
            ["config", "--global", "credential.helper", "!\(BuiltExecutable.latchkey) git-credential"],
            environment: fixture.environment
        )
        #expect(configured.status == 0, "\(configured.stderr)")
        let approve = try CLIRunner.run(
            git,
            ["credential", "approve"],
            environment: fixture.environment,
            input: Data("protocol=https\nhost=config.tld\nusername=c\npassword=from-config\n\n".utf8)
        )
        #expect(approve.status == 0)
        let filled = try CLIRunner.run(
            git,
            ["credential", "fill"],
            environment: fixture.environment,
            input: Data("protocol=https\nhost=config.tld\n\n".utf8)
        )
        #expect(Self.parse(filled.stdout)["password"] == "from-config", "\(filled.stderr)")
    }

    // MARK: Protocol spoken directly (attributes newer than Debian's git)

    @Test func expiryIsStoredReturnedOverwrittenAndErased() throws {
        let fixture = try Fixture()
        let stored = try fixture.helper(
            "store",
            "protocol=https\nhost=example.com\nusername=u\npassword=p\npassword_expiry_utc=9999999999\n\n"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let got = try fixture.helper("get", "protocol=https\nhost=example.com\n\n")
        #expect(got.stdout == "username=u\npassword=p\npassword_expiry_utc=9999999999\n")

        _ = try fixture.helper(
            "store",
            "protocol=https\nhost=example.com\nusername=u\npassword=p\npassword_expiry_utc=8888888888\n\n"
        )
        #expect(
            try fixture.helper("get", "protocol=https\nhost=example.com\n\n").stdout.contains(
                "password_expiry_utc=8888888888\n"
            )
        )
        _ = try fixture.helper("store", "protocol=https\nhost=example.com\nusername=u\npassword=p\n\n")
        #expect(
            try fixture.helper("get", "protocol=https\nhost=example.com\n\n").stdout == "username=u\npassword=p\n",
            "a store without expiry drops it"
        )

        let erased = try fixture.helper("erase", "protocol=https\nhost=example.com\nusername=u\npassword=p\n\n")
        #expect(erased.status == 0)
        #expect(try fixture.helper("get", "protocol=https\nhost=example.com\n\n").stdout.isEmpty)
    }

    @Test func oauthRefreshTokenRoundTripsAndStaysSecret() throws {
        let fixture = try Fixture()
        _ = try fixture.helper(
            "store",
            "protocol=https\nhost=example.com\nusername=u\npassword=access\noauth_refresh_token=refresh-xyz\n\n"
        )
        let got = try fixture.helper("get", "protocol=https\nhost=example.com\nusername=u\n\n")
        #expect(got.stdout == "username=u\npassword=access\noauth_refresh_token=refresh-xyz\n")
        let dumped = try CLIRunner.latchkey(["dump-keychain"], environment: fixture.environment)
        #expect(!dumped.stdout.contains("refresh-xyz"), "the refresh token is part of the secret, not an attribute")
    }

    @Test func longWWWAuthHeaderNamingAnotherHostDiscloseNothing() throws {
        let fixture = try Fixture()
        _ = try fixture.helper("store", "protocol=https\nhost=victim.example\nusername=v\npassword=victim-secret\n\n")
        let padding = String(repeating: "A", count: 1024)
        let request =
            "protocol=https\nhost=attacker.example\nwwwauth[]=Bearer realm=\"\(padding)\nhost=victim.example\"\n"
            + "wwwauth[]=\(padding)host=victim.example\n\n"
        let got = try fixture.helper("get", request)
        #expect(got.status == 0)
        #expect(!got.stdout.contains("victim-secret"), "\(got.stdout)")
    }

    @Test func capabilityAndUnknownLinesAreTolerated() throws {
        let fixture = try Fixture()
        let store =
            "capability[]=authtype\ncapability[]=state\nprotocol=https\nhost=example.com\nusername=u\npassword=p\n"
            + "state[]=helper:x\ncontinue=1\nfuture_attribute=whatever\nline without equals\n\n"
        #expect(try fixture.helper("store", store).status == 0)
        let got = try fixture.helper(
            "get",
            "capability[]=authtype\nprotocol=https\nhost=example.com\nwwwauth[]=Basic\n\n"
        )
        #expect(got.stdout == "username=u\npassword=p\n")
        #expect(!got.stdout.contains("capability"), "the helper does not claim capabilities it lacks")
        let ephemeral = try fixture.helper(
            "store",
            "protocol=https\nhost=eph.example\nusername=e\npassword=e\nephemeral=1\n\n"
        )
        #expect(ephemeral.status == 0)
        #expect(
            try fixture.helper("get", "protocol=https\nhost=eph.example\n\n").stdout.isEmpty,
            "ephemeral credentials are not stored"
        )
    }

    @Test func overlongOrHostileFieldsNeverMatchAnotherHost() throws {
        let fixture = try Fixture()
        let longHost = String(repeating: "a", count: 3000) + ".example"
        _ = try fixture.helper("store", "protocol=https\nhost=\(longHost)\nusername=long\npassword=long-secret\n\n")
        _ = try fixture.helper("store", "protocol=https\nhost=short.example\nusername=s\npassword=short-secret\n\n")
        #expect(
            try fixture.helper("get", "protocol=https\nhost=\(longHost)\n\n").stdout
                == "username=long\npassword=long-secret\n"
        )
        #expect(try fixture.helper("get", "protocol=https\nhost=\(longHost.dropLast())\n\n").stdout.isEmpty)
        #expect(try fixture.helper("get", "protocol=https\nhost=\(longHost.dropFirst(1000))\n\n").stdout.isEmpty)

        let huge = "protocol=https\nhost=" + String(repeating: "b", count: 70_000) + "short.example\n\n"
        let rejected = try fixture.helper("get", huge)
        #expect(rejected.stdout.isEmpty)
        #expect(rejected.status != 0)

        var withNul = Data("protocol=https\nhost=short.example".utf8)
        withNul.append(0)
        withNul.append(contentsOf: Data(".evil\n\n".utf8))
        let nul = try fixture.helper("get", withNul)
        #expect(nul.stdout.isEmpty, "a NUL byte cannot truncate a host into another")
        #expect(nul.status != 0)

        for host in [
            "short.example:99999", "short.example:", "short.example:0443", "short.example:443x", "short.example/x",
        ] {
            let got = try fixture.helper("get", "protocol=https\nhost=\(host)\n\n")
            #expect(got.stdout.isEmpty, "\(host)")
        }
        let crlf = try fixture.helper("get", "protocol=https\r\nhost=short.example\r\n\r\n")
        #expect(crlf.stdout == "username=s\npassword=short-secret\n", "a CR before LF is tolerated")
    }

    @Test func urlLineIsUnderstood() throws {
        let fixture = try Fixture()
        _ = try fixture.helper("store", "url=https://url-user@url.example:8443/repo.git\npassword=url-pass\n\n")
        let got = try fixture.helper("get", "protocol=https\nhost=url.example:8443\npath=repo.git\n\n")
        #expect(got.stdout == "username=url-user\npassword=url-pass\n")
    }

    @Test func unknownOperationsAndMissingKeychainsAreQuiet() throws {
        let fixture = try Fixture()
        let unknown = try fixture.helper("list", "protocol=https\nhost=x\n\n")
        #expect(unknown.status == 0 && unknown.stdout.isEmpty && unknown.stderr.isEmpty)

        let missing = TemporaryKeychain()
        let environment = CLIRunner.environment(missing)
        let got = try CLIRunner.run(
            BuiltExecutable.latchkey,
            ["git-credential", "get"],
            environment: environment,
            input: Data("protocol=https\nhost=x\n\n".utf8)
        )
        #expect(got.status == 0 && got.stdout.isEmpty, "\(got.stderr)")
        #expect(!FileManager.default.fileExists(atPath: missing.path), "get never creates a keychain")
    }

    @Test func storedCredentialsAreVisibleAsInternetPasswords() throws {
        let fixture = try Fixture()
        _ = try fixture.helper(
            "store",
            "protocol=https\nhost=git.example:8443\npath=team/repo.git\nusername=dev\npassword=tok\n\n"
        )
        let found = try CLIRunner.latchkey(
            [
                "find-internet-password", "-s", "git.example", "-r", "https", "-P", "8443", "-p", "team/repo.git", "-a",
                "dev", "-w",
            ],
            environment: fixture.environment
        )
        #expect(found.stdout == "tok\n", "\(found.stderr)")
    }
}
