import ArgumentParser
import Foundation
import Latchkey

/// The `latchkey` command line, modelled on macOS `security`.
@main
struct LatchkeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "An encrypted keychain for Linux, modelled on macOS `security`.",
        discussion: """
            The keychain is $LATCHKEY_KEYCHAIN, else $XDG_DATA_HOME/latchkey/login.keychain-db. It is unlocked from \
            LATCHKEY_KEY_FILE, LATCHKEY_PASSPHRASE_FILE or LATCHKEY_PASSPHRASE (CI only), or by a passphrase prompt \
            on a terminal. Exit codes: 0 success, 44 item not found, 1 any other keychain error, 64 usage error.
            """,
        subcommands: [
            CreateKeychain.self, ShowKeychainInfo.self, SetKeychainPassword.self,
            AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self,
            Debug.self,
        ]
    )
}
