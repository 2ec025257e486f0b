import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// `KeychainFile`: the one way above the engine to create, open, inspect and delete a keychain file (what
/// `create-keychain`, `show-keychain-info`, `delete-keychain`, `unlock-keychain` and the PAM helpers use).
struct KeychainFileTests {
    @Test func createOpenLockedUnlockAndReadBack() throws {
        let keychain = TemporaryKeychain()
        let passphrase = UnlockCredential.passphrase(keychain.passphrase)
        let file = try KeychainFile.create(at: keychain.path, credentials: [passphrase], options: keychain.options())
        #expect(file.exists)
        #expect(
            try file.facts(options: keychain.options()) == .init(isWaitingForFirstUnlock: false, hasPassphrase: true)
        )

        let writer = try file.open(credentials: [passphrase], options: keychain.options())
        try writer.add(
            .genericPassword,
            attributes: [.service: .string("s"), .account: .string("a")],
            data: SecretData(string: "v")
        )
        // Opened without a credential: never unlocked, so no secret can be read until `.unlock`.
        let locked = try file.open(options: keychain.options())
        #expect(try locked.perform(.lockState).lockState() == .neverUnlocked)
        expectKeychainError(.interactionNotAllowed) {
            try locked.findAll(ItemQuery(.genericPassword), withData: true)
        }
        #expect(try locked.perform(.unlock(passphrase)).lockState() == .unlocked)

        let reopened = try file.open(credentials: [passphrase], options: keychain.options())
        let query = ItemQuery(.genericPassword, attributes: [.account: .string("a")])
        let item = try reopened.findOne(query, withData: true)
        #expect(item.data == SecretData(string: "v"))
    }

    @Test func createRefusesAnExistingFileAndLeavesItAsItWas() throws {
        let keychain = TemporaryKeychain()
        let passphrase = UnlockCredential.passphrase(keychain.passphrase)
        try KeychainFile.create(at: keychain.path, credentials: [passphrase], options: keychain.options())
        let before = try Data(contentsOf: URL(fileURLWithPath: keychain.path))
        expectKeychainError(.duplicateItem) {
            try KeychainFile.create(
                at: keychain.path,
                credentials: [.passphrase(SecretData(string: "another"))],
                options: keychain.options()
            )
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: keychain.path)) == before)
        expectKeychainError(.param) {
            try KeychainFile.create(at: keychain.directory + "/none.keychain-db", credentials: [])
        }
        #expect(!KeychainFile(path: keychain.directory + "/none.keychain-db").exists)
    }

    @Test func aWrongPassphraseIsAuthFailedAndAMissingFileIsNoSuchKeychain() throws {
        let keychain = TemporaryKeychain()
        let file = try KeychainFile.create(
            at: keychain.path,
            credentials: [.passphrase(keychain.passphrase)],
            options: keychain.options()
        )
        expectKeychainError(.authFailed) {
            try file.open(credentials: [.passphrase(SecretData(string: "wrong"))], options: keychain.options())
        }
        let missing = KeychainFile(path: keychain.directory + "/missing.keychain-db")
        expectKeychainError(.noSuchKeychain) { try missing.open(options: keychain.options()) }
        expectKeychainError(.noSuchKeychain) { try missing.facts(options: keychain.options()) }
        expectKeychainError(.noSuchKeychain) { try missing.delete(options: keychain.options()) }
    }

    @Test func changeCredentialThroughTheOpenedServiceNeedsTheCurrentPassphrase() throws {
        let keychain = TemporaryKeychain()
        let old = UnlockCredential.passphrase(keychain.passphrase)
        let new = UnlockCredential.passphrase(SecretData(string: "a new passphrase"))
        let file = try KeychainFile.create(at: keychain.path, credentials: [old], options: keychain.options())
        let service = try file.open(options: keychain.options())
        expectKeychainError(.authFailed) {
            try service.changeCredential(current: .passphrase(SecretData(string: "wrong")), to: new)
        }
        try service.changeCredential(current: old, to: new)
        expectKeychainError(.authFailed) { try file.open(credentials: [old], options: keychain.options()) }
        #expect(
            try file.open(credentials: [new], options: keychain.options()).perform(.lockState).lockState() == .unlocked
        )
    }

    @Test func deleteRemovesTheFileAndItsCompanionsButNeverAFileThatIsNotAKeychain() throws {
        let keychain = TemporaryKeychain()
        let file = try KeychainFile.create(
            at: keychain.path,
            credentials: [.passphrase(keychain.passphrase)],
            options: keychain.options()
        )
        // A write leaves the WAL and shared-memory files beside the keychain while a store is open.
        let service = try file.open(credentials: [.passphrase(keychain.passphrase)], options: keychain.options())
        try service.add(.genericPassword, attributes: [.account: .string("a")], data: SecretData(string: "v"))
        try file.delete(options: keychain.options())
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: keychain.path + suffix), "\(suffix) is left")
        }

        let notes = keychain.directory + "/notes.keychain-db"
        let text = Data("my notes, not a keychain\n".utf8)
        try text.write(to: URL(fileURLWithPath: notes))
        #expect(throws: KeychainError.self) { try KeychainFile(path: notes).delete(options: keychain.options()) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: notes)) == text, "a file that is not a keychain is kept")
    }
}
