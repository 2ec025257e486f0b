import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The item commands of the built binary: generic and internet passwords, dump, certificates and keys,
/// with `security`'s letters, exit codes and the `--json` shapes.
struct CLIItemCommandTests {
    /// Parses an ISO 8601 date with fractional seconds, as `--json` prints dates.
    func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    func json(_ result: CLIRunner.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: result.stdoutData)
    }

    @Test func genericPasswordAttributesRoundTripThroughJSON() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let added = try CLIRunner.latchkey(
            [
                "add-generic-password", "-s", "svc", "-a", "alice", "-l", "Alice", "-j", "a comment", "-D",
                "app password",
                "-c", "crtr", "-C", "type", "-G", "generic", "-w", "pw",
            ],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        let found = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "--json"], environment: environment)
        #expect(found.status == 0, "\(found.stderr)")
        let object = try #require(try json(found) as? [String: Any])
        #expect(object["class"] as? String == "genp")
        #expect(object["keychain"] as? String == keychain.path)
        #expect(object["password"] == nil, "no secret without -g or -w")
        let attributes = try #require(object["attributes"] as? [String: Any])
        #expect(attributes["svce"] as? String == "svc")
        #expect(attributes["acct"] as? String == "alice")
        #expect(attributes["labl"] as? String == "Alice")
        #expect(attributes["icmt"] as? String == "a comment")
        #expect(attributes["desc"] as? String == "app password")
        #expect(attributes["crtr"] as? String == "crtr")
        #expect(attributes["type"] as? String == "type")
        #expect((attributes["gena"] as? [String: String])?["base64"] == Data("generic".utf8).base64EncodedString())
        #expect(attributes["pdmn"] as? String == "ak")
        let created = try #require(attributes["cdat"] as? String)
        #expect(isoDate(created) != nil, "dates are ISO 8601: \(created)")
        #expect(attributes["sync"] as? Int == 0)

        let withSecret = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "svc", "-g", "--json"],
            environment: environment
        )
        #expect((try json(withSecret) as? [String: Any])?["password"] as? String == "pw")

        let byLabel = try CLIRunner.latchkey(["find-generic-password", "-l", "Alice", "-w"], environment: environment)
        #expect(byLabel.stdout == "pw\n")
        let byComment = try CLIRunner.latchkey(
            ["find-generic-password", "-j", "other", "-w"],
            environment: environment
        )
        #expect(byComment.status == 44)
    }

    @Test func findWithGPrintsThePasswordOnStderrLikeSecurity() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        _ = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "svc", "-a", "a", "-w", "secret text"],
            environment: environment
        )
        let found = try CLIRunner.latchkey(["find-generic-password", "-s", "svc", "-g"], environment: environment)
        #expect(found.status == 0)
        #expect(found.stdout.hasPrefix("keychain: \"\(keychain.path)\"\nclass: \"genp\"\nattributes:\n"))
        #expect(!found.stdout.contains("secret text"))
        #expect(found.stderr == "password: \"secret text\"\n")
    }

    @Test func findOnAMissingItemExits44WithTheStatusText() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        for command in [
            "find-generic-password", "find-internet-password", "delete-generic-password", "delete-internet-password",
        ] {
            let result = try CLIRunner.latchkey([command, "-s", "nothing", "-a", "nobody"], environment: environment)
            #expect(result.status == 44, "\(command)")
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr.hasPrefix(
                    "latchkey: \(command): The specified item could not be found in the keychain. (OSStatus -25300)"
                ),
                "\(command): \(result.stderr)"
            )
        }
    }

    @Test func deleteRemovesTheFirstMatchOrEveryMatchWithAll() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        for account in ["a", "b", "c"] {
            let added = try CLIRunner.latchkey(
                ["add-generic-password", "-s", "svc", "-a", account, "-w", account],
                environment: environment
            )
            #expect(added.status == 0, "\(added.stderr)")
        }
        let one = try CLIRunner.latchkey(["delete-generic-password", "-s", "svc"], environment: environment)
        #expect(one.status == 0)
        #expect(one.stdout == "password has been deleted.\n")
        let left = try keychain.open().find(
            ItemQuery(.genericPassword, attributes: [.service: .string("svc")]),
            limit: .all
        )
        #expect(left.count == 2)
        let all = try CLIRunner.latchkey(["delete-generic-password", "-s", "svc", "--all"], environment: environment)
        #expect(all.stdout == "2 passwords have been deleted.\n")
        let none = try CLIRunner.latchkey(["find-generic-password", "-s", "svc"], environment: environment)
        #expect(none.status == 44)
    }

    @Test func internetPasswordUsesSecurityLetters() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let added = try CLIRunner.latchkey(
            [
                "add-internet-password", "-s", "example.com", "-a", "alice", "-r", "https", "-P", "8443", "-p", "/repo",
                "-t", "form", "-d", "corp", "-l", "Example", "-j", "note", "--password-stdin",
            ],
            environment: environment,
            input: "inet secret\n"
        )
        #expect(added.status == 0, "\(added.stderr)")
        let item = try keychain.open().findOne(ItemQuery(.internetPassword), withData: true)
        #expect(item.attributes[.server] == .string("example.com"))
        #expect(item.attributes[.protocol] == .string("htps"), "https is stored as Apple's code")
        #expect(item.attributes[.port]?.numberValue == 8443)
        #expect(item.attributes[.path] == .string("/repo"))
        #expect(item.attributes[.authenticationType] == .string("form"))
        #expect(item.attributes[.securityDomain] == .string("corp"))
        #expect(item.data == SecretData(string: "inet secret"))

        let found = try CLIRunner.latchkey(
            ["find-internet-password", "-s", "example.com", "-r", "htps", "-P", "8443", "-w"],
            environment: environment
        )
        #expect(found.stdout == "inet secret\n", "\(found.stderr)")
        let otherPort = try CLIRunner.latchkey(
            ["find-internet-password", "-s", "example.com", "-P", "443"],
            environment: environment
        )
        #expect(otherPort.status == 44)
        let prefix = try CLIRunner.latchkey(
            ["find-internet-password", "-s", "example.co", "-w"],
            environment: environment
        )
        #expect(prefix.status == 44, "matching is exact, never a prefix or substring")

        let json = try CLIRunner.latchkey(
            ["find-internet-password", "-s", "example.com", "-g", "--json"],
            environment: environment
        )
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(object["class"] as? String == "inet")
        #expect(object["password"] as? String == "inet secret")
        let attributes = try #require(object["attributes"] as? [String: Any])
        #expect(attributes["port"] as? Int == 8443)
        #expect(attributes["ptcl"] as? String == "htps")

        let duplicate = try CLIRunner.latchkey(
            [
                "add-internet-password", "-s", "example.com", "-a", "alice", "-r", "https", "-P", "8443", "-p", "/repo",
                "-t", "form", "-d", "corp", "-w", "again",
            ],
            environment: environment
        )
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("-25299"))
        let updated = try CLIRunner.latchkey(
            [
                "add-internet-password", "-U", "-s", "example.com", "-a", "alice", "-r", "https", "-P", "8443", "-p",
                "/repo",
                "-t", "form", "-d", "corp", "-w", "again",
            ],
            environment: environment
        )
        #expect(updated.status == 0, "\(updated.stderr)")
        let again = try CLIRunner.latchkey(
            ["find-internet-password", "-s", "example.com", "-w"],
            environment: environment
        )
        #expect(again.stdout == "again\n")

        let deleted = try CLIRunner.latchkey(
            ["delete-internet-password", "-s", "example.com", "-a", "alice"],
            environment: environment
        )
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(
            try CLIRunner.latchkey(["find-internet-password", "-s", "example.com"], environment: environment).status
                == 44
        )
    }

    @Test func dumpKeychainShowsSecretsOnlyWithD() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        try store.add(
            .genericPassword,
            attributes: [.service: .string("g"), .account: .string("u")],
            data: SecretData(string: "generic-secret")
        )
        try store.add(
            .internetPassword,
            attributes: [.server: .string("h.example")],
            data: SecretData(string: "inet-secret")
        )
        let environment = CLIRunner.environment(keychain)

        let plain = try CLIRunner.latchkey(["dump-keychain"], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("class: \"genp\""))
        #expect(plain.stdout.contains("class: \"inet\""))
        #expect(plain.stdout.contains("\"srvr\"=<blob>=\"h.example\""))
        #expect(!plain.stdout.contains("generic-secret") && !plain.stdout.contains("inet-secret"))
        #expect(!plain.stderr.contains("secret"))

        let withSecrets = try CLIRunner.latchkey(["dump-keychain", "-d"], environment: environment)
        #expect(withSecrets.stdout.contains("data:\n\"generic-secret\"\n"))
        #expect(withSecrets.stdout.contains("data:\n\"inet-secret\"\n"))

        let json = try CLIRunner.latchkey(["dump-keychain", "--json"], environment: environment)
        let items = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(items.map { $0["class"] as? String } == ["genp", "inet"])
        #expect(items.allSatisfy { $0["data"] == nil })
        let jsonSecrets = try CLIRunner.latchkey(["dump-keychain", "--secrets", "--json"], environment: environment)
        let secretItems = try #require(
            try JSONSerialization.jsonObject(with: jsonSecrets.stdoutData) as? [[String: Any]]
        )
        #expect(secretItems.map { $0["data"] as? String } == ["generic-secret", "inet-secret"])

        let empty = try CLIRunner.keychain()
        let nothing = try CLIRunner.latchkey(["dump-keychain", "--json"], environment: CLIRunner.environment(empty))
        #expect(nothing.status == 0)
        #expect((try JSONSerialization.jsonObject(with: nothing.stdoutData) as? [Any])?.isEmpty == true)
    }

    @Test func findCertificateMatchesByNameAndPrintsPEM() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        let der = Data((0..<300).map { UInt8($0 % 251) })
        try store.add(
            .certificate,
            attributes: [
                .label: .string("Example Root CA"), .certificateType: .number(1), .certificateEncoding: .number(3),
                .issuer: .data(Data("issuer".utf8)), .serialNumber: .data(Data([1, 2, 3])),
                .alias: .data(Data("ca@example.com".utf8)),
            ],
            data: SecretData(der)
        )
        try store.add(
            .certificate,
            attributes: [
                .label: .string("Other"), .certificateType: .number(1), .certificateEncoding: .number(3),
                .issuer: .data(Data("issuer".utf8)), .serialNumber: .data(Data([9])),
            ],
            data: SecretData(Data([0x30, 0x03, 0x02, 0x01, 0x09]))
        )
        let environment = CLIRunner.environment(keychain)
        let byName = try CLIRunner.latchkey(["find-certificate", "-c", "Root"], environment: environment)
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(byName.stdout.contains("\"labl\"=<blob>=\"Example Root CA\""))
        #expect(!byName.stdout.contains("Other"))

        let pem = try CLIRunner.latchkey(["find-certificate", "-c", "Root", "-p"], environment: environment)
        let expected =
            "-----BEGIN CERTIFICATE-----\n" + der.base64EncodedString(options: [.lineLength64Characters])
            + "\n-----END CERTIFICATE-----\n"
        #expect(pem.stdout == expected)

        let byEmail = try CLIRunner.latchkey(
            ["find-certificate", "-e", "ca@example", "--json"],
            environment: environment
        )
        let items = try #require(try JSONSerialization.jsonObject(with: byEmail.stdoutData) as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["der"] is [String: String], "certificate bytes are base64 in JSON")

        let all = try CLIRunner.latchkey(["find-certificate", "-a", "--json"], environment: environment)
        #expect((try JSONSerialization.jsonObject(with: all.stdoutData) as? [Any])?.count == 2)
        let none = try CLIRunner.latchkey(["find-certificate", "-c", "Nope"], environment: environment)
        #expect(none.status == 44)
    }

    @Test func findKeyShowsAttributesButNeverKeyMaterial() throws {
        let keychain = try CLIRunner.keychain()
        let store = try keychain.open()
        let material = Data(repeating: 0xAB, count: 32)
        try store.add(
            .key,
            attributes: [
                .label: .string("signing key"), .keyClass: .number(1), .keyType: .number(73),
                .keySizeInBits: .number(256), .applicationTag: .data(Data("com.example.sign".utf8)),
                .applicationLabel: .data(Data(repeating: 1, count: 20)),
            ],
            data: SecretData(material)
        )
        let environment = CLIRunner.environment(keychain)
        let found = try CLIRunner.latchkey(
            ["find-key", "-l", "signing key", "-t", "ec", "-c", "private"],
            environment: environment
        )
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("class: \"keys\""))
        #expect(!found.stdout.uppercased().contains("ABABABAB"))
        let json = try CLIRunner.latchkey(
            ["find-key", "--tag", "com.example.sign", "-s", "256", "--json"],
            environment: environment
        )
        let items = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(items.count == 1)
        #expect(items.first?["password"] == nil && items.first?["data"] == nil)
        let rsa = try CLIRunner.latchkey(["find-key", "-t", "rsa"], environment: environment)
        #expect(rsa.status == 44)
    }

    @Test func accessibleOptionSetsTheItemsClass() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let added = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "local", "-w", "x", "--accessible", "when-unlocked-this-device-only"],
            environment: environment
        )
        #expect(added.status == 0, "\(added.stderr)")
        let item = try keychain.open().findOne(ItemQuery(.genericPassword, attributes: [.service: .string("local")]))
        #expect(item.attributes[.accessible] == .string("aku"))
        let bad = try CLIRunner.latchkey(
            ["add-generic-password", "-s", "x", "-w", "x", "--accessible", "sometimes"],
            environment: environment
        )
        #expect(bad.status == 64)
    }
}
