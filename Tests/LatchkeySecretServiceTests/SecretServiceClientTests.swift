import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// What real Secret Service clients rely on beyond the specification's letter (issue 23), each driven on a
/// private bus against the real agent: libsecret's generic schema (python `keyring`'s libsecret backend through
/// Debian's `python3-gi` and `gir1.2-secret-1`, reading and replacing what its SecretStorage backend stored),
/// `secret-tool search --all` on a locked keychain without a GLib assertion, and SecretStorage's own test suite
/// (the `tests/` of its PyPI sdist, which `.ci/run` downloads) in confined and shared mode.
struct SecretServiceClientTests {
    @Test func libsecretFindsReplacesAndDeletesWhatSecretStorageStoredWithoutASchema() throws {
        let harness = try SecretServiceHarness()
        let (python, environment) = try Self.debianPythonWithLibsecret(harness)
        // One process, so one application: both of keyring's Secret Service backends, each through its own client
        // library (SecretStorage: no xdg:schema; libsecret: xdg:schema org.freedesktop.Secret.Generic).
        let script = """
            import secretstorage
            from contextlib import closing
            from keyring.backends import SecretService, libsecret
            assert libsecret.available, 'gi cannot load Secret-1'
            storage, generic = SecretService.Keyring(), libsecret.Keyring()
            storage.set_password('generic.example', 'frank', 'from-secretstorage')
            print('libsecret reads', generic.get_password('generic.example', 'frank'))
            generic.set_password('generic.example', 'frank', 'from-libsecret')
            print('secretstorage reads', storage.get_password('generic.example', 'frank'))
            with closing(secretstorage.dbus_init()) as connection:
                found = list(secretstorage.search_items(connection, {'service': 'generic.example'}))
                print('items', len(found), sorted(found[0].get_attributes().items()) if found else None)
            generic.delete_password('generic.example', 'frank')
            print('after delete', storage.get_password('generic.example', 'frank'))
            storage.set_password('generic.example', 'grace', 'kept')
            """
        let result = try CLIRunner.run(python, ["-c", script], environment: environment)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let attributes =
            "[('application', 'Python keyring library'), ('service', 'generic.example'), ('username', 'frank'), "
            + "('xdg:schema', 'org.freedesktop.Secret.Generic')]"
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                "libsecret reads from-secretstorage", "secretstorage reads from-libsecret", "items 1 \(attributes)",
                "after delete None",
            ],
            "\(result.stderr)"
        )
        // A plain secret-tool lookup by one attribute finds SecretStorage's item (no schema on either side);
        // secret-tool is another application, allowed once.
        harness.pinentry.answer(["NOTOK"])
        let looked = try harness.secretTool(["lookup", "username", "grace"])
        #expect(looked.stdout == "kept", "\(looked.stderr)")
    }

    @Test func createItemWithoutReplaceAddsASecondItemWithTheSameAttributes() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let result = try harness.run(python, ["-c", Self.sameAttributesScript])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout == "ok login\nok session\n", "\(result.stderr)")
        // The three items of each collection are there for secret-tool too (another application: allowed once).
        harness.pinentry.answer(["NOTOK"])
        let searched = try harness.secretTool(["search", "--all", "--unlock", "application", "twins"])
        #expect(searched.stdout.components(separatedBy: "secret = ").count == 7, "\(searched.stdout)")
    }

    @Test func lockedSearchAllGivesLibsecretValidProperties() throws {
        let harness = try SecretServiceHarness()
        for user in ["u1", "u2"] {
            let stored = try harness.secretTool(
                ["store", "--label", "L \(user)", "service", "s", "username", user],
                input: "pw"
            )
            #expect(stored.status == 0, "\(stored.stderr)")
        }
        #expect(try harness.latchkey(["lock"]).status == 0)
        // Without --unlock libsecret lists the locked items as they are; with it, it asks Unlock, whose prompt
        // the scripted pinentry cancels: the items stay locked either way, and their properties are read.
        for flags in [["--all"], ["--all", "--unlock"]] {
            let searched = try harness.secretTool(["search"] + flags + ["service", "s"])
            #expect(!searched.stderr.contains("CRITICAL"), "\(flags): \(searched.stderr)")
            #expect(!searched.stdout.contains("(null)"), "\(flags): \(searched.stdout)")
            #expect(!searched.stdout.contains("pw"), "\(flags): \(searched.stdout)")
            #expect(searched.stdout.components(separatedBy: "label = \n").count == 3, "\(flags): \(searched.stdout)")
            // The attributes the index matched are shown.
            #expect(searched.stderr.components(separatedBy: "attribute.service = s\n").count == 3, "\(searched.stderr)")
        }
        #expect(harness.pinentry.commands(named: "GETPIN").count == 1)
    }

    @Test(arguments: [[], ["--secret-service-access", "shared"]])
    func secretStoragesOwnTestSuitePasses(_ access: [String]) throws {
        let harness = try SecretServiceHarness(agentArguments: access)
        let python = try harness.python()
        let sdist = try #require(
            Self.secretStorageSdist,
            Comment(
                rawValue: "peer SecretStorage's sdist missing: run .ci/run (it downloads secretstorage==3.5.0's "
                    + "sdist into .secretstorage-sdist)"
            )
        )
        let tar = try Peer.require("tar", package: "tar")
        let unpacked = try CLIRunner.run(
            tar,
            ["-xzf", sdist, "-C", harness.keychain.directory],
            environment: harness.environment
        )
        #expect(unpacked.status == 0, "\(unpacked.stderr)")
        let root = harness.keychain.directory + "/secretstorage-3.5.0"
        // `python3 -m unittest discover -s tests` from the sdist's root, as its README says.
        let result = try CLIRunner.run(
            python,
            ["-m", "unittest", "discover", "-v", "-s", root + "/tests", "-t", root],
            environment: harness.environment,
            timeout: 300
        )
        // Every test of the suite passes but those it skips itself: they need its mocked server.
        #expect(Self.unittestOutcomes(result.stderr) == Self.secretStorageSuite, "\(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// In `login` and in `session`: two `CreateItem` with the same attributes and `replace` false make two
    /// items; one with `replace` and the same attributes but for libsecret's generic `xdg:schema` replaces one
    /// of them; an item's attributes set to another's keeps both; a search with the generic schema finds the
    /// items without `xdg:schema`, another schema none of them. Prints "ok <collection>" for each.
    static let sameAttributesScript = """
        import secretstorage
        from secretstorage import Collection
        connection = secretstorage.dbus_init()
        GENERIC = {'xdg:schema': 'org.freedesktop.Secret.Generic'}
        for name in ['login', 'session']:
            collection = Collection(connection, '/org/freedesktop/secrets/collection/' + name)
            attributes = {'application': 'twins', 'service': 'twins.example'}
            first = collection.create_item('first', attributes, b'one', replace=False)
            second = collection.create_item('second', attributes, b'two', replace=False)
            assert first != second
            secrets = sorted(item.get_secret() for item in collection.search_items(attributes))
            assert secrets == [b'one', b'two'], secrets
            third = collection.create_item('third', dict(attributes, **GENERIC), b'three', replace=True)
            assert third in (first, second)
            assert third.get_attributes() == dict(attributes, **GENERIC), third.get_attributes()
            kept = b'two' if third == first else b'one'
            secrets = sorted(item.get_secret() for item in collection.search_items(attributes))
            assert secrets == sorted([b'three', kept]), secrets
            other = collection.create_item('other', {'application': 'twins', 'service': 'other'}, b'four')
            other.set_attributes(attributes)
            assert len(list(collection.search_items(attributes))) == 3
            assert len(list(collection.search_items(dict(attributes, **GENERIC)))) == 3
            assert list(collection.search_items({'service': 'twins.example', 'xdg:schema': 'org.example.Other'})) == []
            assert other.get_secret() == b'four' and first.get_secret() in (b'one', b'three')
            print('ok', name)
        """

    // MARK: Peers

    /// Debian's `/usr/bin/python3`, which has `gi` and libsecret's typelib (`python3-gi`, `gir1.2-secret-1`), and
    /// the harness's environment with the venv's packages (`keyring`, `secretstorage`) on its path.
    static func debianPythonWithLibsecret(
        _ harness: SecretServiceHarness,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (String, [String: String]) {
        let python = try Peer.require("/usr/bin/python3", package: "python3", sourceLocation: sourceLocation)
        let venv = try harness.python(sourceLocation: sourceLocation)
        let packages = try CLIRunner.run(
            venv,
            ["-c", "import site; print(site.getsitepackages()[0])"],
            environment: harness.environment
        ).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var environment = harness.environment
        environment["PYTHONPATH"] = packages
        let probe = try CLIRunner.run(
            python,
            ["-c", "import gi, keyring; gi.require_version('Secret', '1'); from gi.repository import Secret"],
            environment: environment
        )
        try #require(
            probe.status == 0,
            Comment(
                rawValue: "peer libsecret for Python missing: install the Debian packages python3-gi gir1.2-secret-1 "
                    + "(apt-get install -y python3-gi gir1.2-secret-1; .ci/run installs every peer): \(probe.stderr)"
            ),
            sourceLocation: sourceLocation
        )
        return (python, environment)
    }

    /// The sdist of secretstorage 3.5.0 that `.ci/run` downloads (`pip download --no-binary :all:`), else `nil`.
    static let secretStorageSdist: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidate = root.appendingPathComponent(".secretstorage-sdist/secretstorage-3.5.0.tar.gz").path
        return FileManager.default.fileExists(atPath: candidate) ? candidate : nil
    }()

    /// The outcome of each test of SecretStorage 3.5.0's suite against a real Secret Service: `MockCollectionTest`
    /// and `LockingUnlockingTest` skip themselves unless the bus name is its mocked server's.
    static let secretStorageSuite: [String: String] = {
        var outcomes: [String: String] = [:]
        let passing = [
            "test_collection.CollectionTest": [
                "test_all_collections", "test_all_items", "test_create_empty_item", "test_label", "test_repr",
            ],
            "test_context_manager.ContextManagerTest": ["test_closing_context_manager"],
            "test_exceptions.ExceptionsTest": [
                "test_double_deleting", "test_non_existing_collection", "test_non_existing_item",
            ],
            "test_item.ItemTest": [
                "test_attributes", "test_created", "test_equal", "test_item_in_all_items", "test_label",
                "test_modified", "test_repr", "test_searchable", "test_secret", "test_secret_content_type",
                "test_secret_wrong_type", "test_unlock",
            ],
        ]
        let skipped = [
            "test_collection.MockCollectionTest": [
                "test_create_collection", "test_default_collection", "test_deleting", "test_deleting_item_prompt",
                "test_deleting_prompt",
            ],
            "test_unlocking.LockingUnlockingTest": ["test_lock_unlock"],
        ]
        for (outcome, tests) in [("ok", passing), ("skipped", skipped)] {
            for (testCase, names) in tests {
                for name in names { outcomes["tests.\(testCase).\(name)"] = outcome }
            }
        }
        return outcomes
    }()

    /// Each test of a verbose unittest run (`tests.test_item.ItemTest.test_label`) and its outcome (`ok`,
    /// `skipped`, `FAIL`, `ERROR`, `expected failure`); a test that fails and then errors in its `tearDown` is
    /// `ERROR`.
    static func unittestOutcomes(_ output: String) -> [String: String] {
        var outcomes: [String: String] = [:]
        for line in output.split(separator: "\n") {
            // "test_label (test_item.ItemTest.test_label) ... ok"
            guard let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")"), open < close,
                let dots = line.range(of: ") ... ")
            else { continue }
            let name = String(line[line.index(after: open)..<close])
            let outcome = line[dots.upperBound...]
            outcomes[name] = outcome.hasPrefix("skipped") ? "skipped" : String(outcome)
        }
        return outcomes
    }
}
