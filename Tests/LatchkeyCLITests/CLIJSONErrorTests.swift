import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// Errors as JSON with `--json`, and errSecNoSuchKeychain (-25294) for a named keychain that does not exist
/// (docs/cli.md, "Errors and exit status"), through the built binary.
struct CLIJSONErrorTests {
    /// The one JSON object a failed command wrote on standard error.
    static func errorObject(_ result: CLIRunner.Result) throws -> [String: Any] {
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line of JSON: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any]
        return try #require(object, "stderr is a JSON object: \(result.stderr)")
    }

    @Test func aNamedKeychainThatDoesNotExistIsNoSuchKeychainAndTheMissingDefaultNoDefaultKeychain() throws {
        let keychain = TemporaryKeychain()
        var environment = CLIRunner.environment(keychain)
        environment["LATCHKEY_KEYCHAIN"] = nil
        let missing = keychain.directory + "/none.keychain-db"
        for arguments in [
            ["find-generic-password", "-s", "s", "-w", "-k", missing],  // the fast path
            ["find-generic-password", "-s", "s", "-g", "-k", missing],
            ["dump-keychain", missing],  // a trailing keychain argument
            ["show-keychain-info", "-k", missing],
            ["lock-keychain", missing],
            ["delete-keychain", missing],
        ] {
            let named = try CLIRunner.latchkey(arguments, environment: environment)
            #expect(named.status == 1, "\(arguments): \(named.stderr)")
            #expect(named.stderr.contains("(OSStatus -25294)"), "\(arguments): \(named.stderr)")
            #expect(named.stderr.contains("latchkey create-keychain \(missing)"), "\(named.stderr)")
        }
        environment["LATCHKEY_KEYCHAIN"] = missing
        let byEnvironment = try CLIRunner.latchkey(["dump-keychain"], environment: environment)
        #expect(byEnvironment.stderr.contains("(OSStatus -25294)"), "\(byEnvironment.stderr)")
        environment["LATCHKEY_KEYCHAIN"] = nil
        let unnamed = try CLIRunner.latchkey(["dump-keychain"], environment: environment)
        #expect(unnamed.status == 1)
        #expect(unnamed.stderr.contains("(OSStatus -25307)"), "nothing named: the default \(unnamed.stderr)")
        let described = try CLIRunner.latchkey(["error", "-25294"], environment: environment)
        #expect(described.stdout == "Error: 0xFFFF9D32 -25294 The specified keychain could not be found.\n")
    }

    @Test func aFailureWithJSONIsOneObjectOnStandardErrorWithTheCodeItsNameAndTheNextStep() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let missing = keychain.directory + "/none.keychain-db"

        let noKeychain = try CLIRunner.latchkey(["dump-keychain", "--json", "-k", missing], environment: environment)
        #expect(noKeychain.status == 1)
        #expect(noKeychain.stdout.isEmpty, "stdout holds results only: \(noKeychain.stdout)")
        let object = try Self.errorObject(noKeychain)
        #expect(object["status"] as? Int == -25294)
        #expect(object["name"] as? String == "errSecNoSuchKeychain")
        #expect(object["appleMessage"] as? String == "The specified keychain could not be found.")
        #expect((object["message"] as? String)?.contains(missing) == true, "\(object)")
        #expect((object["hint"] as? String)?.hasPrefix("Create it with `latchkey create-keychain") == true, "\(object)")
        #expect(object["exitStatus"] as? Int == 1)
        #expect(object["command"] as? String == "dump-keychain")

        let notFound = try CLIRunner.latchkey(
            ["find-generic-password", "-s", "nothing", "--json"],
            environment: environment
        )
        #expect(notFound.status == 44, "the exit status stays: \(notFound.stderr)")
        let absent = try Self.errorObject(notFound)
        #expect(absent["status"] as? Int == -25300)
        #expect(absent["name"] as? String == "errSecItemNotFound")
        #expect(absent["exitStatus"] as? Int == 44)
        #expect(absent["hint"] is String, "\(absent)")

        let archive = keychain.directory + "/exists.archive"
        FileManager.default.createFile(atPath: archive, contents: Data("keep".utf8))
        let exported = try CLIRunner.latchkey(
            ["export", "-o", archive, "--passphrase-stdin", "--json"],
            environment: environment,
            input: "archive pass\n"
        )
        #expect(exported.status == 1)
        let duplicate = try Self.errorObject(exported)
        #expect(duplicate["status"] as? Int == -25299)
        #expect(duplicate["name"] as? String == "errSecDuplicateItem")
        #expect(duplicate["hint"] as? String == "give --force to replace it.", "\(duplicate)")
    }

    @Test func aUsageErrorWithJSONIsJSONTooWithItsExitStatus() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let unknownOption = try CLIRunner.latchkey(
            ["dump-keychain", "--json", "--no-such-option"],
            environment: environment
        )
        #expect(unknownOption.status == 64, "\(unknownOption.stderr)")
        let usage = try Self.errorObject(unknownOption)
        #expect(usage["status"] as? Int == -50)
        #expect(usage["name"] as? String == "errSecParam")
        #expect(usage["exitStatus"] as? Int == 64)
        #expect((usage["message"] as? String)?.contains("--no-such-option") == true, "\(usage)")

        let emptyKeychain = try CLIRunner.latchkey(["dump-keychain", "--json", "-k", ""], environment: environment)
        #expect(emptyKeychain.status == 1)
        #expect(try Self.errorObject(emptyKeychain)["status"] as? Int == -50)

        let help = try CLIRunner.latchkey(["dump-keychain", "--json", "--help"], environment: environment)
        #expect(help.status == 0, "help is not an error: \(help.stderr)")
        #expect(help.stdout.contains("USAGE"), "\(help.stdout)")
    }

    @Test func withoutJSONErrorsStayTheLinesSecurityPrints() throws {
        let keychain = try CLIRunner.keychain()
        let environment = CLIRunner.environment(keychain)
        let notFound = try CLIRunner.latchkey(["find-generic-password", "-s", "nothing"], environment: environment)
        #expect(notFound.status == 44)
        #expect(
            notFound.stderr.hasPrefix(
                "latchkey: find-generic-password: The specified item could not be found in the keychain. "
                    + "(OSStatus -25300)"
            ),
            "\(notFound.stderr)"
        )
    }
}
