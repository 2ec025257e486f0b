import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import LatchkeySecretService

/// `SearchItems` through the keychain's search tags (docs/secret-service.md, "Searching: keyed search
/// tags"): any subset of attributes, items stored before tags existed, and the tags themselves.
struct SecretServiceSearchTests {
    @Test func anySubsetOfAttributesFindsTheItemAndNothingElse() throws {
        let harness = try SecretServiceHarness()
        for (server, user, secret) in [
            ("git.example.com", "alice", "a-secret"), ("git.example.com", "bob", "b-secret"),
        ] {
            let stored = try harness.secretTool(
                ["store", "--label", "git", "server", server, "user", user, "protocol", "https"],
                input: secret
            )
            #expect(stored.status == 0, "\(stored.stderr)")
        }
        #expect(try harness.secretTool(["lookup", "user", "bob"]).stdout == "b-secret")
        #expect(try harness.secretTool(["lookup", "protocol", "https", "user", "alice"]).stdout == "a-secret")
        let both = try harness.secretTool(["search", "--all", "server", "git.example.com"])
        #expect(both.stdout.components(separatedBy: "secret = ").count == 3, "\(both.stdout)")
        #expect(try harness.secretTool(["lookup", "user", "carol"]).status == 1)
        // A value that contains what another attribute's tag would look like matches nothing.
        #expect(try harness.secretTool(["lookup", "user", "alice", "protocol", "http"]).status == 1)
    }

    @Test func itemsStoredBeforeSearchTagsAreGivenTheirsAndFound() throws {
        // An item as an agent without search tags wrote it (the record in gena, no tags), in the file before
        // this agent starts.
        let record =
            #"{"attributes":{"kind":"legacy","service":"old.example","username":"bob"},"contentType":"text/plain","type":""}"#
        let harness = try SecretServiceHarness { environment in
            var inProcess = environment
            inProcess["LATCHKEY_AGENT"] = "off"
            inProcess["LATCHKEY_PASSPHRASE"] = SecretServiceHarness.passphrase
            inProcess["LATCHKEY_ACCESS_GROUPS"] = SecretServiceBackend.accessGroup
            let added = try CLIRunner.latchkey(
                [
                    "add-generic-password", "-s", "old.example", "-a", "bob", "-l", "Legacy", "-G", record, "-w",
                    "legacy-secret",
                ],
                environment: inProcess
            )
            #expect(added.status == 0, "\(added.stderr)")
        }
        // Found by an attribute that is neither service nor username: only through its new tags.
        let looked = try harness.secretTool(["lookup", "kind", "legacy"])
        #expect(looked.stdout == "legacy-secret", "\(looked.stderr)")
    }

    @Test func aForgedIndexRowFoundWhileLockedNeverHandsOutAnotherItemsSecret() throws {
        let harness = try SecretServiceHarness()
        for (kind, secret) in [("alpha", "alpha-secret"), ("beta", "beta-secret")] {
            let stored = try harness.secretTool(["store", "--label", kind, "kind", kind], input: secret)
            #expect(stored.status == 0, "\(stored.stderr)")
        }
        #expect(try harness.latchkey(["lock"]).status == 0)
        // Move alpha's own tag rows to beta: a search for kind=alpha through the index now finds beta.
        _ = try SQLiteShell.run(
            harness.keychain.path,
            """
            UPDATE OR IGNORE tags SET item = (SELECT max(item) FROM tags)
            WHERE item = (SELECT min(item) FROM tags);
            """
        )
        harness.pinentry.answer(["PIN \(SecretServiceHarness.passphrase)"])
        let looked = try harness.secretTool(["lookup", "kind", "alpha"])
        #expect(looked.stdout.isEmpty, "beta's secret was handed out for alpha: \(looked.stdout)")
        #expect(harness.pinentry.commands(named: "GETPIN").count == 1, "the lookup did reach the prompt")
        #expect(try harness.secretTool(["lookup", "kind", "beta"]).stdout == "beta-secret")
    }

    @Test func tagsNameEveryAttributeTheCollectionAndNothingAmbiguous() {
        let tags = SecretItemStore.tags(of: ["a": "b=c", "a=b": "c"], collection: "login")
        #expect(tags == ["ss", "c:login", "a:1:a=b=c", "a:3:a=b=c"])
        #expect(Set(tags).count == tags.count)
        #expect(SecretItemStore.queryTags(of: [:], collection: nil) == ["ss"])
        #expect(SecretItemStore.queryTags(of: [:], collection: "work") == ["c:work"])
        #expect(SecretItemStore.queryTags(of: ["user": "x"], collection: nil) == ["a:4:user=x"])
    }
}
