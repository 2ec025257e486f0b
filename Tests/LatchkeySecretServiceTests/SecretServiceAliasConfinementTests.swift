import Foundation
import Latchkey
import LatchkeyTestHarness
import Testing

@testable import LatchkeySecretService

#if canImport(Glibc)
import Glibc
import LatchkeyTesting
#endif

/// Confinement of collections and aliases (docs/secret-service.md, "Confinement", issue 27): a collection
/// belongs to the application that made it, `login`, `session` and the `default` alias to the user; another
/// application's `SetAlias`, `Delete`, `Label` and `Lock` need the owner's consent (the prompt, or a grant),
/// and `default` never names the in-memory `session` collection. Real clients on a private bus: python's
/// `secretstorage` (the venv's Python, one application), a copy of that Python at another path (another
/// application), `secret-tool`.
struct SecretServiceAliasConfinementTests {
    /// Helpers every script starts with: a connection, the service, and calls that print what happened.
    private static let prelude = """
        import secretstorage
        from jeepney.wrappers import DBusErrorResponse
        from secretstorage.util import DBusAddressWrapper, exec_prompt, unlock_objects
        from secretstorage.defines import SS_PATH, SS_PREFIX
        connection = secretstorage.dbus_init()
        service = DBusAddressWrapper(SS_PATH, SS_PREFIX + 'Service', connection)
        SESSION = SS_PATH + '/collection/session'
        LOGIN = SS_PATH + '/collection/login'
        def attempt(name, call):
            try:
                result = call()
                print(name, 'ok' if result is None else result)
            except DBusErrorResponse as error:
                print(name, 'refused', error.name)
                return error.data[0]
        def alias(name):
            return service.call('ReadAlias', 's', name)[0]
        def set_alias(name, path):
            service.call('SetAlias', 'so', name, path)
        def collection(path):
            return DBusAddressWrapper(path, SS_PREFIX + 'Collection', connection)
        def relabel(path, label):
            collection(path).set_property('Label', 's', label)
        def label(path):
            return collection(path).get_property('Label')
        def lock(path):
            locked, prompt = service.call('Lock', 'ao', [path])
            if prompt != '/':
                dismissed, result = exec_prompt(connection, prompt)
                return 'prompted dismissed=%s locked=%d' % (dismissed, len(result[1]))
            return 'locked=%d' % len(locked)
        def delete(path):
            prompt, = collection(path).call('Delete', '')
            if prompt != '/':
                dismissed, _ = exec_prompt(connection, prompt)
                return 'prompted dismissed=%s' % dismissed
            return 'deleted'

        """

    /// The owner (the venv's Python) makes the collection `team`, with an item in it.
    private static let makeTeam =
        prelude + """
            team = secretstorage.create_collection(connection, 'Team', alias='team')
            team.create_item('Team item', {'service': 'team.example'}, b'team-secret')
            print(team.collection_path)
            """

    private static let teamPath = "/org/freedesktop/secrets/collection/team"

    /// Runs `script` as the other application (a copy of the venv's Python).
    private func asOther(_ harness: SecretServiceHarness, _ script: String) throws -> CLIRunner.Result {
        try harness.pythonCopy(at: harness.keychain.directory + "/other-client", ["-c", Self.prelude + script])
    }

    /// Stops the agent and starts another on the same bus and keychain, unlocked.
    private func restart(_ harness: SecretServiceHarness, python: String) throws -> ChildProcess {
        harness.agent.kill(SIGTERM)
        _ = harness.agent.waitForExit(timeout: 60)
        let released = try harness.run(python, ["-c", SecretServiceTests.waitForReleasedName])
        #expect(released.stdout == "released\n", "\(released.stderr)")
        let restarted = try harness.startAnotherAgent()
        try harness.unlock()
        return restarted
    }

    @Test func anotherApplicationCannotPointDefaultAtTheSessionCollection() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let attack = """
            attempt('default to session', lambda: set_alias('default', SESSION))
            evil = secretstorage.create_collection(connection, 'Evil', alias='evil')
            message = attempt('default to its own', lambda: set_alias('default', evil.collection_path))
            print('grant named', 'latchkey access grant ' in message, 'org.freedesktop.secrets:@user' in message)
            print('default', alias('default'))
            """
        let attacked = try harness.run(python, ["-c", Self.prelude + attack])
        #expect(
            attacked.stdout
                == """
                default to session refused org.freedesktop.DBus.Error.InvalidArgs
                default to its own refused org.freedesktop.DBus.Error.AccessDenied
                grant named True True
                default /org/freedesktop/secrets/collection/login

                """,
            "\(attacked.stderr)"
        )

        // The victim's next store goes to login, on disk, and is there after the agent's restart.
        let stored = try harness.secretTool(
            ["store", "--label", "Victim", "service", "victim.example", "username", "bob"],
            input: "victim-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let restarted = try restart(harness, python: python)
        defer { restarted.kill(SIGKILL) }
        let lookup = try harness.secretTool(["lookup", "service", "victim.example", "username", "bob"])
        #expect(lookup.stdout == "victim-secret", "\(lookup.stderr)")
        let after = try harness.run(python, ["-c", Self.prelude + "print(alias('default'))"])
        #expect(after.stdout == "/org/freedesktop/secrets/collection/login\n", "\(after.stderr)")
    }

    @Test func withoutAPrompterAnotherApplicationChangesNothingOfACollectionItDidNotMake() throws {
        let harness = try SecretServiceHarness(prompter: false)
        let python = try harness.python()
        let made = try harness.run(python, ["-c", Self.makeTeam])
        #expect(made.stdout == Self.teamPath + "\n", "\(made.stderr)")
        let tries = """
            TEAM = alias('team')
            attempt('alias team', lambda: set_alias('team', '/'))
            attempt('alias mine', lambda: set_alias('mine', TEAM))
            attempt('alias default', lambda: set_alias('default', TEAM))
            attempt('label', lambda: relabel(TEAM, 'Stolen'))
            attempt('lock', lambda: lock(TEAM))
            attempt('lock login', lambda: lock(LOGIN))
            attempt('delete', lambda: delete(TEAM))
            attempt('delete session', lambda: delete(SESSION))
            print('team', alias('team') == TEAM, alias('mine'), alias('default') == LOGIN, label(TEAM))
            print('locked', secretstorage.get_default_collection(connection).is_locked())
            """
        let refused = try asOther(harness, tries)
        #expect(
            refused.stdout
                == """
                alias team refused org.freedesktop.Secret.Error.IsLocked
                alias mine refused org.freedesktop.Secret.Error.IsLocked
                alias default refused org.freedesktop.DBus.Error.AccessDenied
                label refused org.freedesktop.Secret.Error.IsLocked
                lock refused org.freedesktop.Secret.Error.IsLocked
                lock login refused org.freedesktop.DBus.Error.AccessDenied
                delete refused org.freedesktop.Secret.Error.IsLocked
                delete session refused org.freedesktop.DBus.Error.AccessDenied
                team True / True Team
                locked False

                """,
            "\(refused.stderr)"
        )
        // The owner still has its collection and its item.
        let read = """
            team = secretstorage.get_collection_by_alias(connection, 'team')
            print(next(team.search_items({'service': 'team.example'})).get_secret().decode())
            """
        #expect(try harness.run(python, ["-c", Self.prelude + read]).stdout == "team-secret\n")
    }

    @Test func allowOnceLetsAnotherApplicationChangeACollectionItDidNotMake() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let made = try harness.run(python, ["-c", Self.makeTeam])
        #expect(made.stdout == Self.teamPath + "\n", "\(made.stderr)")

        // SetAlias and Label have no prompt: Unlock on the collection asks, then both work on that connection.
        harness.pinentry.answer(["NOTOK"])
        let changes = """
            TEAM = alias('team')
            attempt('alias mine', lambda: set_alias('mine', TEAM))
            attempt('label', lambda: relabel(TEAM, 'Renamed'))
            print('dismissed', unlock_objects(connection, [TEAM]))
            attempt('alias mine', lambda: set_alias('mine', TEAM))
            attempt('label', lambda: relabel(TEAM, 'Renamed'))
            print('mine', alias('mine') == TEAM, label(TEAM))
            """
        let changed = try asOther(harness, changes)
        #expect(
            changed.stdout
                == """
                alias mine refused org.freedesktop.Secret.Error.IsLocked
                label refused org.freedesktop.Secret.Error.IsLocked
                dismissed False
                alias mine ok
                label ok
                mine True Renamed

                """,
            "\(changed.stderr)"
        )

        // Lock returns a prompt: Allow once locks the keychain.
        harness.pinentry.answer(["NOTOK"])
        let locks = """
            TEAM = alias('team')
            attempt('lock', lambda: lock(TEAM))
            print('locked', secretstorage.get_default_collection(connection).is_locked())
            """
        let locked = try asOther(harness, locks)
        #expect(locked.stdout == "lock prompted dismissed=False locked=2\nlocked True\n", "\(locked.stderr)")
        try harness.unlock()

        // Delete returns a prompt: Allow once deletes the collection, its item and its aliases.
        harness.pinentry.answer(["NOTOK"])
        let deletion = """
            TEAM = alias('team')
            attempt('delete', lambda: delete(TEAM))
            paths = [c.collection_path for c in secretstorage.get_all_collections(connection)]
            print('team', alias('team'), alias('mine'), TEAM in paths)
            """
        let deleted = try asOther(harness, deletion)
        #expect(deleted.stdout == "delete prompted dismissed=False\nteam / / False\n", "\(deleted.stderr)")
        #expect(harness.pinentry.commands(named: "CONFIRM").count == 3)
        let questions = harness.pinentry.commands(named: "SETDESC")
        #expect(questions.last?.contains("delete the Secret Service collection") == true, "\(questions)")
        #expect(questions.last?.contains("other-client") == true, "\(questions)")

        // Deny (last: what follows a Deny is the agent's own business) deletes nothing.
        let spare = try harness.run(
            python,
            ["-c", Self.prelude + "print(secretstorage.create_collection(connection, 'Spare').collection_path)"]
        )
        #expect(spare.stdout == "/org/freedesktop/secrets/collection/spare\n", "\(spare.stderr)")
        harness.pinentry.answer(["CANCEL"])
        let denial = """
            SPARE = SS_PATH + '/collection/spare'
            attempt('delete', lambda: delete(SPARE))
            print('spare', SPARE in [c.collection_path for c in secretstorage.get_all_collections(connection)])
            """
        let denied = try asOther(harness, denial)
        #expect(denied.stdout == "delete prompted dismissed=True\nspare True\n", "\(denied.stderr)")
    }

    @Test func sharedModeChangesCollectionsAndAliasesWithoutAPrompt() throws {
        let harness = try SecretServiceHarness(agentArguments: ["--secret-service-access", "shared"])
        let python = try harness.python()
        let made = try harness.run(python, ["-c", Self.makeTeam])
        #expect(made.stdout == Self.teamPath + "\n", "\(made.stderr)")
        let changes = """
            TEAM = alias('team')
            attempt('alias mine', lambda: set_alias('mine', TEAM))
            attempt('label', lambda: relabel(TEAM, 'Shared'))
            attempt('default to session', lambda: set_alias('default', SESSION))
            attempt('alias temp', lambda: set_alias('temp', SESSION))
            print('aliases', alias('mine') == TEAM, alias('temp'), alias('default'), label(TEAM))
            attempt('lock', lambda: lock(TEAM))
            """
        let changed = try asOther(harness, changes)
        #expect(
            changed.stdout
                == """
                alias mine ok
                label ok
                default to session refused org.freedesktop.DBus.Error.InvalidArgs
                alias temp ok
                aliases True /org/freedesktop/secrets/collection/session /org/freedesktop/secrets/collection/login Shared
                lock locked=2

                """,
            "\(changed.stderr)"
        )
        try harness.unlock()
        let deleted = try asOther(harness, "attempt('delete', lambda: delete(alias('team')))\n")
        #expect(deleted.stdout == "delete deleted\n", "\(deleted.stderr)")
        #expect(harness.pinentry.commands(named: "CONFIRM").isEmpty)

        // An alias to the session collection lived in memory only.
        let restarted = try restart(harness, python: python)
        defer { restarted.kill(SIGKILL) }
        let after = try harness.run(python, ["-c", Self.prelude + "print(alias('temp'), alias('default'))"])
        #expect(after.stdout == "/ /org/freedesktop/secrets/collection/login\n", "\(after.stderr)")
    }

    @Test func anyApplicationRelabelsTheLoginCollection() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let relabelled = try asOther(
            harness,
            """
            attempt('label', lambda: relabel(LOGIN, 'My Login'))
            attempt('session label', lambda: relabel(SESSION, 'Mine'))
            """
        )
        #expect(
            relabelled.stdout == "label ok\nsession label refused org.freedesktop.DBus.Error.NotSupported\n",
            "\(relabelled.stderr)"
        )
        let read = "print(secretstorage.get_default_collection(connection).get_label())"
        #expect(try harness.run(python, ["-c", Self.prelude + read]).stdout == "My Login\n")
        #expect(harness.pinentry.commands(named: "CONFIRM").isEmpty)
    }

    @Test func registryDropsAPersistedAliasToTheSessionCollection() throws {
        let written = Data(#"{"collections":{},"aliases":{"default":"session","other":"session"},"tagged":true}"#.utf8)
        var registry = try JSONDecoder().decode(SecretCollections.self, from: written)
        #expect(registry.collection(forAlias: "default") == ObjectPath.login)
        #expect(registry.collection(forAlias: "other") == nil)
        registry.aliases["temp"] = ObjectPath.sessionCollection
        #expect(registry.collection(forAlias: "temp") == ObjectPath.sessionCollection)
        let saved = String(decoding: try JSONEncoder().encode(registry), as: UTF8.self)
        #expect(!saved.contains("session"), "\(saved)")
    }
}
