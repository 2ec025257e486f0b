import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

@testable import LatchkeySecretService

/// Confinement of the Secret Service (docs/secret-service.md, "Confinement"): an item belongs to the
/// application that stored it; another executable sees it locked until the user answers the agent's prompt
/// (a scripted pinentry here), and a locked keychain is unlocked through a prompt that asks for the
/// passphrase. Real clients: Debian's `secret-tool` and a copy of it at another path (another application),
/// python's `secretstorage`.
struct SecretServiceConfinementTests {
    private static let lookup = ["lookup", "service", "confined.example", "username", "alice"]

    @Test func secondApplicationCannotReadTheFirstOnesSecretWithoutThePrompt() throws {
        let harness = try SecretServiceHarness()
        let stored = try harness.secretTool(
            ["store", "--label", "Confined", "service", "confined.example", "username", "alice"],
            input: "first-app-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let other = harness.keychain.directory + "/other-app"

        // Denied: nothing read, and the question named both applications.
        harness.pinentry.answer(["CANCEL"])
        let denied = try harness.secretToolCopy(at: other, Self.lookup)
        #expect(denied.stdout.isEmpty)
        #expect(denied.status != 0)
        let questions = harness.pinentry.commands(named: "SETDESC")
        #expect(questions.count == 2, "the question, then whether to remember the denial")
        #expect(questions.last?.contains("Remember this denial?") == true, "\(questions)")
        #expect(questions.first?.contains("other-app") == true, "\(questions)")
        #expect(questions.first?.contains(AgentLocation.canonical(harness.secretToolPath)) == true, "\(questions)")

        // Nor can it overwrite the item (same attributes, replace).
        let overwrite = try harness.secretToolCopy(
            at: other,
            ["store", "--label", "Stolen", "service", "confined.example", "username", "alice"],
            input: "overwritten"
        )
        #expect(overwrite.status != 0)
        #expect(try harness.secretTool(Self.lookup).stdout == "first-app-secret")

        // Allow once: that process only; the next one is asked again.
        harness.pinentry.answer(["NOTOK", "CANCEL"])
        #expect(try harness.secretToolCopy(at: other, Self.lookup).stdout == "first-app-secret")
        #expect(try harness.secretToolCopy(at: other, Self.lookup).stdout.isEmpty)

        // Always allow: remembered in the policy, so the next process is not asked.
        harness.pinentry.answer(["OK"])
        #expect(try harness.secretToolCopy(at: other, Self.lookup).stdout == "first-app-secret")
        let asked = harness.pinentry.commands(named: "CONFIRM").count
        #expect(try harness.secretToolCopy(at: other, Self.lookup).stdout == "first-app-secret")
        #expect(harness.pinentry.commands(named: "CONFIRM").count == asked)
        let listed = try harness.latchkey(["access", "list"])
        #expect(
            listed.stdout.contains(
                SecretServiceApplications.group(ofOwner: AgentLocation.canonical(harness.secretToolPath))
            ),
            "\(listed.stdout)"
        )

        // The owner itself is never asked.
        #expect(try harness.secretTool(Self.lookup).stdout == "first-app-secret")
        #expect(harness.pinentry.commands(named: "CONFIRM").count == asked)
    }

    @Test func anotherApplicationsItemIsLockedAndRefusesItsSecret() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let stored = try harness.secretTool(
            ["store", "--label", "Confined", "service", "confined.example", "username", "alice"],
            input: "first-app-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            print('collection locked', collection.is_locked())
            item = next(collection.search_items({'service': 'confined.example'}))
            print('item locked', item.is_locked())
            print('label', item.get_label())
            try:
                item.get_secret()
                print('read')
            except secretstorage.exceptions.LockedException:
                print('refused')
            try:
                item.delete()
                print('deleted')
            except secretstorage.exceptions.LockedException:
                print('delete refused')
            print('dismissed', item.unlock())
            print('item locked', item.is_locked())
            print('secret', item.get_secret().decode())
            """
        harness.pinentry.answer(["NOTOK"])
        let result = try harness.run(python, ["-c", script])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout
                == """
                collection locked False
                item locked True
                label Confined
                refused
                delete refused
                dismissed False
                item locked False
                secret first-app-secret

                """,
            "\(result.stderr)"
        )
    }

    @Test func sharedModeGivesEveryApplicationEveryItem() throws {
        let harness = try SecretServiceHarness(agentArguments: ["--secret-service-access", "shared"])
        let stored = try harness.secretTool(
            ["store", "--label", "Shared", "service", "confined.example", "username", "alice"],
            input: "shared-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let read = try harness.secretToolCopy(at: harness.keychain.directory + "/other-app", Self.lookup)
        #expect(read.stdout == "shared-secret", "\(read.stderr)")
        #expect(harness.pinentry.commands(named: "CONFIRM").isEmpty)
    }

    @Test func lockedKeychainIsUnlockedThroughAPromptForThePassphrase() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let store = """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            collection.create_item('Locked', {'service': 'locked.example'}, b'locked-secret')
            """
        #expect(try harness.run(python, ["-c", store]).status == 0)
        #expect(try harness.latchkey(["lock"]).status == 0)
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.get_default_collection(connection)
            print('locked', collection.is_locked())
            print('dismissed', collection.unlock())
            print('locked', collection.is_locked())
            if not collection.is_locked():
                item = next(collection.search_items({'service': 'locked.example'}))
                print('secret', item.get_secret().decode())
            """
        // A wrong passphrase leaves it locked; the right one unlocks it for every client.
        harness.pinentry.answer(["PIN not the passphrase"])
        let refused = try harness.run(python, ["-c", script])
        #expect(refused.stdout == "locked True\ndismissed True\nlocked True\n", "\(refused.stderr)")
        harness.pinentry.answer(["PIN \(SecretServiceHarness.passphrase)"])
        let unlocked = try harness.run(python, ["-c", script])
        #expect(
            unlocked.stdout == "locked True\ndismissed False\nlocked False\nsecret locked-secret\n",
            "\(unlocked.stderr)"
        )
        #expect(harness.pinentry.commands(named: "GETPIN").count == 2)

        // libsecret's store on a locked keychain: the prompt for the passphrase, then the item is stored.
        #expect(try harness.latchkey(["lock"]).status == 0)
        harness.pinentry.answer(["PIN \(SecretServiceHarness.passphrase)"])
        let stored = try harness.secretTool(
            ["store", "--label", "After lock", "service", "relocked.example"],
            input: "pw"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(harness.pinentry.commands(named: "GETPIN").count == 3)
        #expect(try harness.secretTool(["lookup", "service", "relocked.example"]).stdout == "pw")
    }

    @Test func oneUnlockOfALockedKeychainAlsoAsksForAnotherApplicationsItem() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let stored = try harness.secretTool(
            ["store", "--label", "Confined", "service", "confined.example", "username", "alice"],
            input: "first-app-secret"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let find = """
            import secretstorage
            connection = secretstorage.dbus_init()
            print(next(secretstorage.search_items(connection, {'service': 'confined.example'})).item_path)
            """
        let path = try harness.run(python, ["-c", find]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix("/org/freedesktop/secrets/collection/login/"), "\(path)")
        #expect(try harness.latchkey(["lock"]).status == 0)
        let script = """
            import secretstorage, sys
            from secretstorage.util import unlock_objects
            connection = secretstorage.dbus_init()
            # A locked keychain's items show no properties (they are encrypted): Unlock the path itself.
            print('dismissed', unlock_objects(connection, [sys.argv[1]]))
            print('secret', secretstorage.Item(connection, sys.argv[1]).get_secret().decode())
            """
        // The passphrase first, then the question about secret-tool's item, in one prompt.
        harness.pinentry.answer(["PIN \(SecretServiceHarness.passphrase)", "NOTOK"])
        let result = try harness.run(python, ["-c", script, path])
        #expect(result.stdout == "dismissed False\nsecret first-app-secret\n", "\(result.stderr)")
        #expect(harness.pinentry.commands(named: "GETPIN").count == 1)
        #expect(harness.pinentry.commands(named: "CONFIRM").count == 1)
    }

    @Test func dismissedPromptCompletesDismissedAndAsksNothing() throws {
        let harness = try SecretServiceHarness()
        let python = try harness.python()
        let stored = try harness.secretTool(
            ["store", "--label", "Confined", "service", "confined.example"],
            input: "x"
        )
        #expect(stored.status == 0, "\(stored.stderr)")
        let script = """
            import secretstorage
            from jeepney import MatchRule, new_method_call, DBusAddress
            from jeepney.bus_messages import message_bus
            from jeepney.io.blocking import open_dbus_connection
            connection = open_dbus_connection(bus='SESSION')
            service = DBusAddress('/org/freedesktop/secrets', bus_name='org.freedesktop.secrets',
                                  interface='org.freedesktop.Secret.Service')
            found = connection.send_and_get_reply(new_method_call(service, 'SearchItems', 'a{ss}',
                                                                  ({'service': 'confined.example'},))).body
            print('locked', len(found[0]), len(found[1]))
            unlocked, prompt = connection.send_and_get_reply(new_method_call(service, 'Unlock', 'ao', (found[1],))).body
            print('prompt', prompt.startswith('/org/freedesktop/secrets/prompt/'), unlocked)
            rule = MatchRule(type='signal', interface='org.freedesktop.Secret.Prompt', path=prompt)
            connection.send_and_get_reply(message_bus.AddMatch(rule))
            with connection.filter(rule) as queue:
                address = DBusAddress(prompt, bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Prompt')
                connection.send_and_get_reply(new_method_call(address, 'Dismiss'))
                completed = connection.recv_until_filtered(queue, timeout=60)
            print('completed', completed.body[0], completed.body[1])
            reply = connection.send_and_get_reply(new_method_call(address, 'Prompt', 's', ('',)))
            print('gone', reply.header.message_type.name)
            """
        let result = try harness.run(python, ["-c", script])
        #expect(
            result.stdout == "locked 0 1\nprompt True []\ncompleted True ('ao', [])\ngone error\n",
            "\(result.stderr)"
        )
        #expect(harness.pinentry.commands(named: "CONFIRM").isEmpty)
    }
}
