import Foundation
import LatchkeySecretService
import Testing

/// The Python scripts and small helpers of `SecretServiceTests`.
extension SecretServiceTests {
    /// p - 1, a degenerate Diffie-Hellman public key.
    static let primeMinusOne: Data = {
        var bytes = DiffieHellmanExchange.prime
        bytes[bytes.count - 1] -= 1
        return Data(bytes)
    }()

    /// Lower-case hex.
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// The bytes of a hex string, or `nil`.
    static func bytes(fromHex text: String) -> Data? {
        var data = Data()
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }

    /// Prints "watching" once subscribed, then "Locked <value>" for the login collection's next two
    /// `PropertiesChanged` signals.
    static let lockedWatcherScript = """
        from jeepney.bus_messages import MatchRule, message_bus
        from jeepney.io.blocking import open_dbus_connection, Proxy
        connection = open_dbus_connection(bus='SESSION')
        rule = MatchRule(type='signal', interface='org.freedesktop.DBus.Properties', member='PropertiesChanged',
                         path='/org/freedesktop/secrets/collection/login')
        Proxy(message_bus, connection).AddMatch(rule)
        with connection.filter(rule, bufsize=10) as queue:
            print('watching', flush=True)
            for _ in range(2):
                signal = connection.recv_until_filtered(queue, timeout=60)
                print('Locked', signal.body[1]['Locked'][1], flush=True)
        """

    /// Returns once `org.freedesktop.secrets` has no owner (at once, or at its `NameOwnerChanged`).
    static let waitForReleasedName = """
        from jeepney.bus_messages import MatchRule, message_bus
        from jeepney.io.blocking import open_dbus_connection, Proxy
        connection = open_dbus_connection(bus='SESSION')
        bus = Proxy(message_bus, connection)
        rule = MatchRule(type='signal', sender='org.freedesktop.DBus', member='NameOwnerChanged')
        rule.add_arg_condition(0, 'org.freedesktop.secrets')
        bus.AddMatch(rule)
        with connection.filter(rule) as queue:
            if bus.NameHasOwner('org.freedesktop.secrets')[0]:
                while connection.recv_until_filtered(queue, timeout=60).body[2] != '':
                    pass
        print('released')
        """

    /// Drives the service with secretstorage (DH sessions) and jeepney (a plain session, Introspect, a
    /// signal subscription); prints "ok <check>" per check.
    static let secretStorageScript = """
        import secretstorage
        from jeepney import DBusAddress, new_method_call, MessageType
        from jeepney.bus_messages import MatchRule, message_bus
        from jeepney.io.blocking import open_dbus_connection, Proxy
        from secretstorage.util import DBusAddressWrapper
        from secretstorage.defines import SS_PATH, SS_PREFIX

        connection = secretstorage.dbus_init()
        collection = secretstorage.get_default_collection(connection)
        assert not collection.is_locked()
        print('ok unlocked')

        watcher = open_dbus_connection(bus='SESSION')
        rule = MatchRule(type='signal', interface=SS_PREFIX + 'Collection', member='ItemCreated')
        Proxy(message_bus, watcher).AddMatch(rule)
        with watcher.filter(rule) as queue:
            item = collection.create_item(
                'Python item', {'application': 'pytest', 'service': 'py.example', 'username': 'carol'},
                b'py-secret', replace=True)
            print('ok created')
            signal = watcher.recv_until_filtered(queue, timeout=30)
            assert signal.body[0] == item.item_path, signal.body
            print('ok signal ItemCreated')

        found = list(secretstorage.search_items(connection, {'application': 'pytest'}))
        assert [f.item_path for f in found] == [item.item_path], found
        print('ok found')
        assert found[0].get_secret() == b'py-secret'
        print('ok dh secret')
        attributes = found[0].get_attributes()
        assert attributes == {'application': 'pytest', 'service': 'py.example', 'username': 'carol'}, attributes
        print('ok attributes')
        found[0].set_label('Renamed')
        assert item.get_label() == 'Renamed'
        print('ok label set')

        service = DBusAddressWrapper(SS_PATH, SS_PREFIX + 'Service', connection)
        output, session = service.call('OpenSession', 'sv', 'plain', ('s', ''))
        secrets, = service.call('GetSecrets', 'aoo', [item.item_path], session)
        assert secrets[item.item_path][2] == b'py-secret', secrets
        print('ok plain secret')
        try:
            service.call('GetSecrets', 'aoo', [item.item_path], SS_PATH + '/session/nope')
        except Exception as error:
            assert 'NoSession' in str(getattr(error, 'name', error)), error
            print('ok no session')

        item.set_secret(b'changed')
        assert item.get_secret() == b'changed'
        print('ok set secret')
        item.set_attributes({'application': 'pytest', 'service': 'py.example', 'username': 'carol', 'extra': '1'})
        assert [f.item_path for f in secretstorage.search_items(connection, {'extra': '1'})] == [item.item_path]
        print('ok attributes set')

        introspect = new_method_call(
            DBusAddress(SS_PATH, bus_name='org.freedesktop.secrets', interface='org.freedesktop.DBus.Introspectable'),
            'Introspect')
        xml, = connection.send_and_get_reply(introspect).body
        assert 'org.freedesktop.Secret.Service' in xml
        print('ok introspected')

        item.delete()
        assert list(secretstorage.search_items(connection, {'application': 'pytest'})) == []
        print('ok deleted')
        """
}
