import Foundation

/// gnome-keyring's own test keyrings (`pkcs11/secret-store/fixtures/` of GNOME/gnome-keyring), the known answers
/// of its binary and textual readers: the same two items, encrypted with the password `my-keyring-password`
/// (`encrypted.keyring`) and plain (`plain.keyring`).
enum GnomeKeyringFixtures {
    /// `encrypted.keyring`'s password (gnome-keyring's `test-secret-binary.c`).
    static let password = "my-keyring-password"

    /// `encrypted.keyring`: label `unit-test-keyring`, items 2 ("Another display name", no attributes) and 3
    /// ("Barnyard": dog=woof, bird=cheep, iguana="", num=3 as a uint32), both with the secret `item-secret`,
    /// all times 1198027852.
    static let encrypted = Data(
        base64Encoded: """
            R25vbWVLZXlyaW5nCg0ACgAAAAAAAAARdW5pdC10ZXN0LWtleXJpbmcAAAAAR2h0TAAAAABHaHRMAAAAAAAAAAAAAAdjSOKUfDa4\
            1JkAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAIAAAAAAAAAAAAAAAMAAAAAAAAABAAAAANkb2cAAAAAAAAAIDhmZGI2MDgwMWU5ZDM5\
            YTUyODZhYTAxZGQxZjRmNGYzAAAABGJpcmQAAAAAAAAAIDQzNmQ1YjViNmQ3YWQwODg1ZTlmM2RlZWRjYmVkY2M4AAAABmlndWFu\
            YQAAAAAAAAAgZDQxZDhjZDk4ZjAwYjIwNGU5ODAwOTk4ZWNmODQyN2UAAAADbnVtAAAAARgkNkYAAAHAmmDsggwirsXWewtlQkJl\
            cEwH4YPop6WVqtEnL2fhr9w7cVUpFpwi2QfuLETp2BXPps3ZI9FEpTaltqvM0nSlfWuUSr2gS0PGixUHk/iSYTL3MidPtDnXu7sQ\
            OJRzWgC67SmX6/MUsgFw1Y1nv/Su5JMzzlc8t+kAYuJmxbMyJVJA0FPzUr9ZCbTgIcDrQIzoYaR5YdQS91Ywm0ME56fkfeeBZ3tR\
            WjzVzF6xbEX0RvsVhW5GKlz5C/l/GkQit94hRfd/MzsuXSGiJJEvAlnrXNevTgQgBqbiJe/n/LxWdsIaPOTCNXXfrgqOxDGBMZEW\
            k3O7DDFhruRdRrEIcq6pZhJXNqvIwAcpsJBLzu7dcUL9UeiS4yThIAJoe+Wo8h3nmCSifmWuJKqGRR2VXIIxHuVj2yRyDfhWdQHT\
            rAV4ccnGfLfWcZaJ0K6npQRikO8sEAg5VCnk7WcaFW8NaeFS/uIUV9pzpWtqMKvTSmRHl5GqnXzVI5oW97dBU726fJ4/35Re6JzK\
            jFckIHuUVDVKIl5sqoHR0ga3jqhMCwA6IwtHSUkuf1u7zmUVmflWthVZsbZLsjqFOBTHvfDNB4xSeg==
            """
    )!

    /// `plain.keyring`, the same keyring in the textual format (with an access-list group, which is not
    /// imported).
    static let plain = """

        [keyring]
        display-name=unit-test-keyring
        ctime=1198027852
        mtime=1198027852
        lock-on-idle=false
        lock-timeout=0

        [2]
        item-type=0
        display-name=Another display name
        secret=item-secret
        mtime=1198027852
        ctime=1198027852

        [2:acl0]
        display-name=run-auto-test
        path=/data/projects/gnome-keyring/library/tests/.libs/run-auto-test
        read-access=true
        write-access=true
        remove-access=true

        [3]
        item-type=0
        display-name=Barnyard
        secret=item-secret
        mtime=1198027852
        ctime=1198027852

        [3:attribute0]
        name=dog
        type=string
        value=woof

        [3:attribute1]
        name=bird
        type=string
        value=cheep

        [3:attribute2]
        name=iguana
        type=string
        value=

        [3:attribute3]
        name=num
        type=uint32
        value=3

        """
}
