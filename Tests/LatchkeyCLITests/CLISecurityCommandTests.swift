import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import LatchkeyTesting
#endif

/// The `security` commands people reach for (`--version`, `error`, `import` of certificates, keys and PKCS#12,
/// `add-certificates`, `find-identity`, `delete-certificate`, a trailing keychain), through the built binary.
/// Certificates, keys and PKCS#12 files are made by `openssl`, a peer.
struct CLISecurityCommandTests {
    /// A temporary keychain with a self-signed P-256 identity made by openssl: `cert.pem`, `key.pem`,
    /// `id.p12` (passphrase `secret`), a second certificate `other.pem`/`other.der`, and `both.pem` holding both
    /// certificates.
    struct Fixture {
        let keychain: TemporaryKeychain
        let environment: [String: String]
        let directory: String

        init() throws {
            keychain = try CLIRunner.keychain()
            environment = CLIRunner.environment(keychain, extra: ["LATCHKEY_AGENT": "off"])
            directory = keychain.directory + "/pki"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let script = """
                set -e
                cd "$1"
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem -out cert.pem \
                  -days 30 -subj "/CN=Test Identity" 2>/dev/null
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout otherkey.pem \
                  -out other.pem -days 30 -subj "/CN=Other Cert" 2>/dev/null
                openssl x509 -in other.pem -outform der -out other.der
                openssl pkcs12 -export -in cert.pem -inkey key.pem -out id.p12 -passout pass:secret
                cat cert.pem other.pem > both.pem
                openssl x509 -in cert.pem -noout -fingerprint -sha1 | sed 's/.*=//; s/://g' > cert.sha1
                """
            let made = try CLIRunner.run("/bin/sh", ["-c", script, "sh", directory], environment: environment)
            try #require(made.status == 0, "openssl (a peer) failed: \(made.stderr)")
        }

        func path(_ name: String) -> String { directory + "/" + name }

        func run(_ arguments: [String], extra: [String: String] = [:]) throws -> CLIRunner.Result {
            try CLIRunner.latchkey(arguments, environment: environment.merging(extra) { _, new in new })
        }

        var certificateSHA1: String {
            get throws {
                try String(contentsOfFile: path("cert.sha1"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
    }

    @Test func versionPrintsTheVersionLine() throws {
        let keychain = try CLIRunner.keychain()
        let result = try CLIRunner.latchkey(["--version"], environment: CLIRunner.environment(keychain))
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("latchkey "))
        #expect(result.stdout.split(separator: "\n").count == 1)
    }

    @Test(arguments: [
        ("-25300", "Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain."),
        ("0xFFFF9D2C", "Error: 0xFFFF9D2C -25300 The specified item could not be found in the keychain."),
        ("-50", "Error: 0xFFFFFFCE -50 One or more parameters passed to a function were not valid."),
        ("12345", "Error: 0x00003039 12345 unknown error 12345"),
    ])
    func errorDescribesDecimalAndHexCodes(code: String, line: String) throws {
        let keychain = try CLIRunner.keychain()
        let result = try CLIRunner.latchkey(["error", code], environment: CLIRunner.environment(keychain))
        #expect(result.status == 0)
        #expect(result.stdout == line + "\n")
    }

    @Test func errorRefusesWhatIsNotACode() throws {
        let keychain = try CLIRunner.keychain()
        let result = try CLIRunner.latchkey(["error", "nope"], environment: CLIRunner.environment(keychain))
        #expect(result.status == 64)
    }

    @Test func importPKCS12MakesAnIdentityFindIdentityLists() throws {
        let fixture = try Fixture()
        let imported = try fixture.run(["import", fixture.path("id.p12"), "-P", "secret"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "1 identity imported.\n")
        let sha1 = try fixture.certificateSHA1
        let valid = try fixture.run(["find-identity", "-v"])
        #expect(valid.status == 0)
        #expect(valid.stdout == "  1) \(sha1) \"Test Identity\"\n     1 valid identities found\n")
        let all = try fixture.run(["find-identity", "-p", "ssl-client"])
        #expect(all.stdout.contains("Policy: SSL client\n  Matching identities\n  1) \(sha1) \"Test Identity\"\n"))
        #expect(all.stdout.contains("     1 identities found\n"))
        let filtered = try fixture.run(["find-identity", "-v", "-s", "Nobody"])
        #expect(filtered.stdout == "     0 valid identities found\n")
        let again = try fixture.run(["import", fixture.path("id.p12"), "-P", "secret"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("-25299"))
    }

    @Test func importPKCS12PassphraseFromEnvironmentWrongOrMissing() throws {
        let fixture = try Fixture()
        let wrong = try fixture.run(["import", fixture.path("id.p12"), "-P", "wrong"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("-25293"))
        let missing = try fixture.run(["import", fixture.path("id.p12")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("-25308"))
        #expect(missing.stderr.contains("LATCHKEY_IMPORT_PASSPHRASE"))
        let fromEnvironment = try fixture.run(
            ["import", fixture.path("id.p12")],
            extra: ["LATCHKEY_IMPORT_PASSPHRASE": "secret"]
        )
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        #expect(fromEnvironment.stdout == "1 identity imported.\n")
        let other = try Fixture()
        let fromStandardInput = try CLIRunner.latchkey(
            ["import", other.path("id.p12"), "--passphrase-stdin"],
            environment: other.environment,
            input: "secret\n"
        )
        #expect(fromStandardInput.status == 0, "\(fromStandardInput.stderr)")
        #expect(fromStandardInput.stdout == "1 identity imported.\n")
    }

    @Test func importPEMKeyAndCertificateFormAnIdentity() throws {
        let fixture = try Fixture()
        let key = try fixture.run(["import", fixture.path("key.pem")])
        #expect(key.status == 0, "\(key.stderr)")
        #expect(key.stdout == "1 key imported.\n")
        let none = try fixture.run(["find-identity", "-v"])
        #expect(none.stdout == "     0 valid identities found\n")
        let certificate = try fixture.run(["import", fixture.path("cert.pem"), "-f", "pemseq"])
        #expect(certificate.status == 0, "\(certificate.stderr)")
        #expect(certificate.stdout == "1 certificate imported.\n")
        let one = try fixture.run(["find-identity", "-v"])
        #expect(one.stdout.hasSuffix("     1 valid identities found\n"))
    }

    @Test func importDERCertificateAndRefuseGarbage() throws {
        let fixture = try Fixture()
        let der = try fixture.run(["import", fixture.path("other.der")])
        #expect(der.status == 0, "\(der.stderr)")
        #expect(der.stdout == "1 certificate imported.\n")
        let found = try fixture.run(["find-certificate", "-c", "Other Cert"])
        #expect(found.status == 0)
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: fixture.path("junk.bin")))
        let junk = try fixture.run(["import", fixture.path("junk.bin")])
        #expect(junk.status == 1)
        #expect(junk.stderr.contains("-26275"))
    }

    @Test func addCertificatesReadsEveryPEMBlockAndReportsDuplicates() throws {
        let fixture = try Fixture()
        let added = try fixture.run(["add-certificates", fixture.path("both.pem")])
        #expect(added.status == 0, "\(added.stderr)")
        let listed = try fixture.run(["find-certificate", "-a"])
        #expect(listed.stdout.contains("Test Identity"))
        #expect(listed.stdout.contains("Other Cert"))
        let again = try fixture.run(["add-certificates", fixture.path("other.der")])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
    }

    @Test func deleteCertificateByNameOrHashAndWithItsKey() throws {
        let fixture = try Fixture()
        #expect(try fixture.run(["import", fixture.path("id.p12"), "-P", "secret"]).status == 0)
        #expect(try fixture.run(["add-certificates", fixture.path("other.pem")]).status == 0)
        let byName = try fixture.run(["delete-certificate", "-c", "Other Cert"])
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(try fixture.run(["find-certificate", "-c", "Other Cert"]).status == 44)
        let absent = try fixture.run(["delete-certificate", "-Z", "00"])
        #expect(absent.status == 44)
        let hashed = try fixture.run(["find-certificate", "-c", "Test Identity", "-Z"])
        #expect(hashed.stdout.hasPrefix("SHA-1 hash: \(try fixture.certificateSHA1)\n"))
        let byHash = try fixture.run(["delete-certificate", "-Z", try fixture.certificateSHA1, "-t"])
        #expect(byHash.status == 0, "\(byHash.stderr)")
        #expect(try fixture.run(["find-certificate", "-a"]).status == 44)
        #expect(try fixture.run(["find-key", "-a"]).status == 44)
    }

    @Test func archiveImportStillRestores() throws {
        let fixture = try Fixture()
        let added = try fixture.run(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "secret"])
        #expect(added.status == 0)
        let archive = fixture.path("backup.lkarchive")
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--kdf-cost", "testing"],
            environment: fixture.environment,
            input: "archive\n"
        )
        #expect(exported.status == 0, "\(exported.stderr)")
        let other = try CLIRunner.keychain()
        let imported = try CLIRunner.latchkey(
            ["import", archive, "--passphrase-stdin"],
            environment: CLIRunner.environment(other, extra: ["LATCHKEY_AGENT": "off"]),
            input: "archive\n"
        )
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("imported 1 items"))
    }

    @Test func keychainAsTheLastArgument() throws {
        let fixture = try Fixture()
        let path = fixture.keychain.path
        var environment = fixture.environment
        environment["LATCHKEY_KEYCHAIN"] = fixture.keychain.directory + "/elsewhere.keychain-db"
        let add = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "pw", "-k", path],
            environment: environment
        )
        #expect(add.status == 0, "\(add.stderr)")
        let fast = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-w", path], environment: environment)
        #expect(fast.status == 0, "\(fast.stderr)")
        #expect(fast.stdout == "pw\n")
        let full = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-g", path], environment: environment)
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stderr.contains("password: \"pw\""))
        let dump = try CLIRunner.latchkey(["dump-keychain", path], environment: environment)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("\"svc\""))
        let elsewhere = try CLIRunner.latchkey(["dump-keychain"], environment: environment)
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("-25294"), "named by LATCHKEY_KEYCHAIN: \(elsewhere.stderr)")
    }

    @Test func dumpKeychainRawAndAccess() throws {
        let fixture = try Fixture()
        let added = try fixture.run(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "text"])
        #expect(added.status == 0)
        let raw = try fixture.run(["dump-keychain", "-r", "-a"])
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(raw.stdout.contains("data:\n0x74657874\n"))
        #expect(raw.stdout.contains("access:\n    group: \""))
        #expect(raw.stdout.contains("    accessible: \"ak\"\n    constraints: none\n"))
        let plain = try fixture.run(["dump-keychain"])
        #expect(!plain.stdout.contains("access:"))
        #expect(!plain.stdout.contains("data:"))
        let json = try fixture.run(["dump-keychain", "-a", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        let access = try #require(items.first?["access"] as? [String: Any])
        #expect(access["accessible"] as? String == "ak")
        #expect(access["constraints"] as? [String] == [])
    }

    @Test func setKeychainSettingsIsShownByShowKeychainInfo() throws {
        let fixture = try Fixture()
        let path = fixture.keychain.path
        let before = try fixture.run(["show-keychain-info"])
        #expect(before.stdout.contains("    settings: no-timeout\n"))
        #expect(try fixture.run(["set-keychain-settings", "-l", "-u", "-t", "600", path]).status == 0)
        let after = try fixture.run(["show-keychain-info", path])
        #expect(after.stdout.contains("    settings: lock-on-sleep timeout=600s\n"))
        let json = try fixture.run(["show-keychain-info", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        let settings = try #require(object["settings"] as? [String: Any])
        #expect(settings["idleLock"] as? Int == 600)
        #expect(settings["lockOnSleep"] as? Bool == true)
        #expect(try fixture.run(["set-keychain-settings"]).status == 0)
        #expect(try fixture.run(["show-keychain-info"]).stdout.contains("    settings: no-timeout\n"))
        let attributes = try FileManager.default.attributesOfItem(atPath: path + ".settings.json")
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
    }

    @Test func anAgentStartedWithoutIdleLockTakesTheKeychainsTimeout() throws {
        let keychain = TemporaryKeychain()
        let environment = try AgentHarness.createKeychain(
            keychain,
            runtimeDirectory: keychain.directory + "/run",
            passphrase: AgentHarness.passphrase,
            sourceLocation: #_sourceLocation
        )
        let set = try CLIRunner.latchkey(["set-keychain-settings", "-u", "-t", "1"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        let agent = try BuiltExecutable.spawn(
            ["agent", "--foreground", "--pinentry", "none"],
            environment: environment
        )
        defer {
            agent.kill(SIGTERM)
            _ = agent.waitForExit(timeout: 60)
        }
        #expect(agent.waitForLines(1, timeout: 60), "the agent's ready line")
        let unlocked = try CLIRunner.latchkey(
            ["unlock", "--passphrase-stdin"],
            environment: environment,
            input: AgentHarness.passphrase
        )
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(
            agent.waitForStandardError(containing: "keychain locked after idle time", timeout: 60),
            "the agent locks after the keychain's timeout without --idle-lock"
        )
    }
}
