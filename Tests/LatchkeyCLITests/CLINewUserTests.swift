import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// What a new user hit (issue 23), through the built binary: reads that created keychains, relative paths
/// remembered as typed, protocols stored as given, and small command-line errors.
struct CLINewUserTests {
    /// An environment that names no keychain (the default is `<data dir>/login.keychain-db`) but holds a
    /// passphrase, so that a command that wrongly creates a keychain would succeed in doing so.
    func bareEnvironment(_ keychain: TemporaryKeychain) -> [String: String] {
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_KEYCHAIN"] = nil
        return environment
    }

    /// The data directory of `bareEnvironment`.
    func dataDirectory(_ keychain: TemporaryKeychain) -> String { keychain.directory + "/data/latchkey" }

    /// Every command that reads, deletes, dumps, exports, verifies or changes a keychain without adding to it.
    static let refusingCommands: [[String]] = [
        ["find-generic-password", "-s", "a", "-w"],  // the fast path
        ["find-generic-password", "-s", "a", "--json"],
        ["find-internet-password", "-s", "a", "-w"],
        ["find-internet-password", "-s", "a", "-g"],
        ["delete-generic-password", "-s", "a"],
        ["delete-internet-password", "-s", "a"],
        ["dump-keychain"],
        ["dump-keychain", "--json"],
        ["find-certificate", "-a"],
        ["find-key", "-a"],
        ["export", "-o", "/dev/null", "--force", "--passphrase-stdin"],
        ["verify-keychain"],
        ["set-keychain-password", "-o", "x", "-p", "y"],
        ["show-keychain-info"],
    ]

    @Test(arguments: refusingCommands)
    func aReadOfAMissingKeychainIsRefusedAndCreatesNothing(command: [String]) throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        let directory = keychain.directory + "/no/such/dir"
        let missing = directory + "/x.keychain-db"
        let named = try CLIRunner.latchkey(command + ["-k", missing], environment: environment, input: "p\n")
        #expect(named.status == 1, "\(command): \(named.stderr)")
        // With --json the error is a JSON object (docs/cli.md, "Errors and exit status").
        let code = { (status: Int) in ["OSStatus \(status)", "\"status\":\(status)"] }
        #expect(code(-25294).contains { named.stderr.contains($0) }, "a named keychain: \(command): \(named.stderr)")
        #expect(named.stderr.contains(missing), "the message names the file: \(named.stderr)")
        #expect(
            named.stderr.contains("latchkey create-keychain \(missing)"),
            "the message gives the next step: \(named.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: keychain.directory + "/no"), "\(command) made a directory")

        let typo = try CLIRunner.latchkey(command + ["-k", "nosuchname"], environment: environment, input: "p\n")
        #expect(typo.status == 1, "\(command): \(typo.stderr)")
        #expect(typo.stderr.contains(dataDirectory(keychain) + "/nosuchname.keychain-db"), "\(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory(keychain)), "\(command) made the data dir")

        let defaultKeychain = try CLIRunner.latchkey(command, environment: environment, input: "p\n")
        #expect(defaultKeychain.status == 1, "\(command): \(defaultKeychain.stderr)")
        #expect(code(-25307).contains { defaultKeychain.stderr.contains($0) }, "\(command): \(defaultKeychain.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: dataDirectory(keychain)),
            "a read does not create even the default keychain"
        )
    }

    @Test func gitCredentialGetOnAMissingKeychainPrintsNothingAndCreatesNothing() throws {
        let keychain = TemporaryKeychain()
        let got = try CLIRunner.latchkey(
            ["git-credential", "get"],
            environment: bareEnvironment(keychain),
            input: "protocol=https\nhost=example.com\n\n"
        )
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dataDirectory(keychain)))
    }

    @Test func theQuickStartCreatesTheDefaultKeychainOnFirstUse() throws {
        let keychain = TemporaryKeychain()
        var environment = bareEnvironment(keychain)
        // The README's line, unchanged; a key file instead of LATCHKEY_PASSPHRASE only spares the test two
        // scrypt runs at the standard cost (creation is the same either way).
        let keyFile = keychain.directory + "/key"
        _ = try UnlockCredential.createKeyFile(at: keyFile)
        environment["LATCHKEY_PASSPHRASE"] = nil
        environment["LATCHKEY_KEY_FILE"] = keyFile
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-U", "-s", "example.com", "-a", "alice", "-w", "s3cret"],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        #expect(FileManager.default.fileExists(atPath: dataDirectory(keychain) + "/login.keychain-db"))
        let found = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "example.com", "-w"],
            environment: environment
        )
        #expect(found.stdout == "s3cret\n", "\(found.stderr)")
    }

    @Test func aWriteCreatesTheDefaultKeychainEvenNamedWithKButNoOther() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        let login = dataDirectory(keychain) + "/login.keychain-db"
        let other = keychain.directory + "/elsewhere/other.keychain-db"
        for arguments in [
            ["add-generic-password", "-s", "s", "-a", "a", "-w", "x"],  // the fast path
            ["add-generic-password", "-s", "s", "-a", "a", "-w", "x", "--kdf-cost", "testing"],
            ["add-internet-password", "-s", "h", "-a", "a", "-w", "x"],
            ["add-internet-password", "-s", "h", "-a", "a", "-w", "x", "--kdf-cost", "testing"],
        ] {
            let refused = try CLIRunner.latchkey(arguments + ["-k", other], environment: environment)
            #expect(refused.status == 1, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("OSStatus -25294"), "\(refused.stderr)")
            #expect(refused.stderr.contains("latchkey create-keychain \(other)"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: keychain.directory + "/elsewhere"))
        }
        let typo = try CLIRunner.latchkey(
            ["add-generic-password", "-k", "logn", "-s", "s", "-a", "a", "-w", "x"],
            environment: environment
        )
        #expect(typo.status == 1, "a typo in -k is not a new keychain: \(typo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory(keychain)))

        let explicit = try CLIRunner.latchkey(
            ["add-generic-password", "-k", "login", "-s", "s", "-a", "a", "-w", "x", "--kdf-cost", "testing"],
            environment: environment
        )
        #expect(explicit.status == 0, "-k naming the default keychain may create it: \(explicit.stderr)")
        #expect(FileManager.default.fileExists(atPath: login))
    }

    @Test func importIntoAMissingKeychainOtherThanTheDefaultIsRefused() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        try store.add(.genericPassword, attributes: [.service: .string("s")], data: SecretData(string: "v"))
        let environment = CLIRunner.environment(keychain)
        let archive = keychain.directory + "/backup.lkarchive"
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: environment,
            input: "archive pass\n"
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        let other = keychain.directory + "/new/other.keychain-db"
        let refused = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin", "-k", other],
            environment: environment,
            input: "archive pass\n"
        )
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("OSStatus -25294"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: keychain.directory + "/new"))
    }

    @Test func relativePathsAreRememberedAbsoluteAndWithoutSymlinks() throws {
        let keychain = TemporaryKeychain()
        let environment = bareEnvironment(keychain)
        for directory in ["work/kc", "elsewhere"] {
            try FileManager.default.createDirectory(
                atPath: keychain.directory + "/" + directory,
                withIntermediateDirectories: true
            )
        }
        let work = AgentLocation.canonical(keychain.directory + "/work")
        let elsewhere = keychain.directory + "/elsewhere"
        // `link` → `work`: a keychain created through the link is remembered by its real path.
        try FileManager.default.createSymbolicLink(atPath: keychain.directory + "/link", withDestinationPath: work)
        let created = try shell(
            in: keychain.directory,
            ["create-keychain", "--kdf-cost", "testing", "link/kc/x"],
            environment: environment
        )
        #expect(created.status == 0, "\(created.stderr)")
        let real = work + "/kc/x"
        #expect(created.stdout == "created \(real)\n")
        let set = try shell(in: work, ["default-keychain", "-s", "kc/x"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")

        let config = try #require(FileManager.default.contents(atPath: dataDirectory(keychain) + "/keychains.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: config) as? [String: Any])
        #expect(object["defaultKeychain"] as? String == real, "\(object)")
        #expect(object["searchList"] as? [String] == [real], "\(object)")

        let listed = try shell(in: elsewhere, ["list-keychains", "--json"], environment: environment)
        #expect((try JSONSerialization.jsonObject(with: listed.stdoutData) as? [String]) == [real], "\(listed.stderr)")
        let found = try shell(in: elsewhere, ["find-generic-password", "-s", "nothing"], environment: environment)
        #expect(found.status == 44, "the default keychain is found from another directory: \(found.stderr)")
    }

    @Test(arguments: [
        ["-r", "bogusproto"], ["-r", "htp"], ["-t", "weird"], ["-t", "basic"],
    ])
    func anUnknownProtocolOrAuthenticationTypeIsRefused(option: [String]) throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        for extra in [[], ["--accessible", "always"]] {  // the fast path, then the full parser
            let added = try CLIRunner.latchkey(
                ["add-internet-password", "-s", "h", "-a", "a", "-w", "x"] + option + extra,
                environment: environment
            )
            #expect(added.status == 1, "\(option): \(added.stderr)")
            #expect(added.stderr.contains("OSStatus -50"), "\(added.stderr)")
            #expect(added.stderr.contains(option[1]), "the message names what was refused: \(added.stderr)")
            let accepted = option[0] == "-r" ? "'htps'" : "'dflt'"
            #expect(added.stderr.contains(accepted), "the message lists what is accepted: \(added.stderr)")
        }
        let found = try CLIRunner.latchkey(["find-internet-password", "-s", "h"] + option, environment: environment)
        #expect(found.status == 1 && found.stderr.contains("OSStatus -50"), "\(found.stderr)")
        let stored = try CLIRunner.latchkey(["find-internet-password", "-s", "h"], environment: environment)
        #expect(stored.status == 44, "nothing was stored: \(stored.stdout)")
    }

    @Test(arguments: [
        (["-r", "https"], "ptcl", "htps"), (["-r", "HTPS"], "ptcl", "htps"), (["-r", "ftp"], "ptcl", "ftp "),
        (["-r", "sox"], "ptcl", "sox "), (["-t", "htmlform"], "atyp", "form"), (["-t", "DFLT"], "atyp", "dflt"),
    ])
    func protocolsAndAuthenticationTypesAreStoredAsAppleCodes(option: [String], key: String, code: String) throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let added = try CLIRunner.latchkey(
            ["add-internet-password", "-s", "h", "-a", "a", "-w", "x"] + option,
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        let found = try CLIRunner.latchkey(["find-internet-password", "-s", "h", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: found.stdoutData) as? [String: Any])
        let attributes = try #require(object["attributes"] as? [String: Any])
        #expect(attributes[key] as? String == code, "\(attributes)")
    }

    @Test func protocolAndAuthenticationTypeAreAlwaysStringsInJSON() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        for arguments in [["-s", "with", "-r", "https", "-t", "form"], ["-s", "without"]] {
            let added = try CLIRunner.latchkey(
                ["add-internet-password", "-a", "a", "-w", "x"] + arguments,
                environment: environment
            )
            #expect(added.status == 0, "\(added.stderr)")
        }
        let dumped = try CLIRunner.latchkey(["dump-keychain", "--json"], environment: environment)
        let items = try #require(try JSONSerialization.jsonObject(with: dumped.stdoutData) as? [[String: Any]])
        let attributes = items.compactMap { $0["attributes"] as? [String: Any] }
        #expect(attributes.count == 2)
        for item in attributes {
            #expect(item["ptcl"] is String, "ptcl is a string on every item: \(item)")
            #expect(item["atyp"] is String, "atyp is a string on every item: \(item)")
        }
        let byServer = Dictionary(uniqueKeysWithValues: attributes.map { ($0["srvr"] as? String ?? "", $0) })
        #expect(byServer["with"]?["ptcl"] as? String == "htps")
        #expect(byServer["without"]?["ptcl"] as? String == "", "no protocol given reads as the empty code")
    }

    @Test(arguments: [["nosuch"], ["help", "nosuch"], ["access", "nosuch"], ["help", "access", "nosuch"]])
    func anUnknownCommandIsNamedAsOne(arguments: [String]) throws {
        let keychain = TemporaryKeychain()
        let result = try CLIRunner.latchkey(arguments, environment: bareEnvironment(keychain))
        let typed = arguments.filter { $0 != "help" }.joined(separator: " ")
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("unknown command '\(typed)'"), "\(result.stderr)")
        #expect(result.stderr.contains("latchkey --help"), "the hint says where the commands are listed")
        #expect(!result.stderr.contains("option"), "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no help page for a command that does not exist")
    }

    @Test(arguments: [["help"], ["help", "find-generic-password"], ["help", "access", "revoke"], ["--help"]])
    func helpForKnownCommandsStillWorks(arguments: [String]) throws {
        let keychain = TemporaryKeychain()
        let result = try CLIRunner.latchkey(arguments, environment: bareEnvironment(keychain))
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stdout.contains("USAGE"), "\(result.stdout)")
    }

    @Test(arguments: [
        ["find-generic-password", "-k", "", "-s", "a", "-w"],  // the fast path
        ["find-generic-password", "-k", "", "-s", "a", "--json"],
        ["add-generic-password", "-k", "", "-s", "a", "-w", "x"],
        ["create-keychain", "--kdf-cost", "testing", ""],
        ["default-keychain", "-s", ""],
        ["list-keychains", "-s", ""],
        ["delete-keychain", ""],
    ])
    func anEmptyKeychainNameIsRefused(arguments: [String]) throws {
        let keychain = TemporaryKeychain()
        let result = try CLIRunner.latchkey(arguments, environment: bareEnvironment(keychain))
        #expect(result.status == 1, "\(arguments): \(result.stderr)")
        // With --json the error is a JSON object (docs/cli.md, "Errors and exit status").
        #expect(
            result.stderr.contains("OSStatus -50") || result.stderr.contains("\"status\":-50"),
            "\(arguments): \(result.stderr)"
        )
        #expect(!FileManager.default.fileExists(atPath: dataDirectory(keychain) + "/.keychain-db"))
        #expect(!FileManager.default.fileExists(atPath: dataDirectory(keychain) + "/keychains.json"))
    }

    @Test(
        arguments: [
            (["-p", ""], nil), (["--passphrase-stdin"], "\n"), (["--passphrase-stdin"], ""),
            (["-p", "", "--new-key-file", "KEY"], nil),
        ] as [([String], String?)]
    )
    func anEmptyPassphraseIsRefusedAtCreation(options: [String], input: String?) throws {
        let keychain = TemporaryKeychain()
        var environment = bareEnvironment(keychain)
        environment["LATCHKEY_PASSPHRASE"] = nil
        let keyFile = keychain.directory + "/new.key"
        let arguments = options.map { $0 == "KEY" ? keyFile : $0 }
        let created = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing"] + arguments + [keychain.path],
            environment: environment,
            input: input
        )
        #expect(created.status == 1, "\(options): \(created.stderr)")
        #expect(created.stderr.contains("OSStatus -50"), "\(created.stderr)")
        #expect(created.stderr.contains("passphrase is empty"), "\(created.stderr)")
        #expect(created.stderr.contains("--new-key-file"), "the message says how to do without one")
        #expect(!FileManager.default.fileExists(atPath: keychain.path))
        #expect(!FileManager.default.fileExists(atPath: keyFile), "no key file is left behind")

        let keyOnly = try CLIRunner.latchkey(
            ["create-keychain", "--kdf-cost", "testing", "--new-key-file", keyFile, keychain.path],
            environment: environment
        )
        #expect(keyOnly.status == 0, "a key file alone still protects a keychain: \(keyOnly.stderr)")
    }

    @Test func anEmptyPassphraseFileDoesNotCreateTheDefaultKeychain() throws {
        let keychain = TemporaryKeychain()
        var environment = bareEnvironment(keychain)
        let empty = keychain.directory + "/empty-passphrase"
        try Data().write(to: URL(fileURLWithPath: empty))
        environment["LATCHKEY_PASSPHRASE"] = nil
        environment["LATCHKEY_PASSPHRASE_FILE"] = empty
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "s", "-a", "a", "-w", "x", "--kdf-cost", "testing"],
            environment: environment
        )
        #expect(added.status == 1, "\(added.stderr)")
        #expect(added.stderr.contains("passphrase is empty"), "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory(keychain) + "/login.keychain-db"))
    }

    @Test func revokingAGrantThatDoesNotExistSaysSo() throws {
        let keychain = TemporaryKeychain()
        let revoked = try CLIRunner.latchkey(
            ["access", "revoke", "/usr/bin/env", "com.example.none"],
            environment: bareEnvironment(keychain)
        )
        #expect(revoked.status == 44, "\(revoked.stderr)")
        let first = revoked.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains("No such grant"), "the first line says what happened: \(revoked.stderr)")
        #expect(first.contains("OSStatus -25300"), "and keeps the code: \(revoked.stderr)")
        #expect(!revoked.stderr.contains("item could not be found"), "\(revoked.stderr)")
    }

    /// Runs the built `latchkey` from `directory`, through `sh` (CLIRunner runs it in the test's directory).
    func shell(in directory: String, _ arguments: [String], environment: [String: String]) throws -> CLIRunner.Result {
        let quoted = ([BuiltExecutable.latchkey] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        return try CLIRunner.run("/bin/sh", ["-c", "cd '\(directory)' && exec \(quoted)"], environment: environment)
    }
}
