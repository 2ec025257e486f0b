import Foundation
import Latchkey
import LatchkeyTesting
import Testing

struct UnlockTests {
    static let query = ItemQuery(.genericPassword, attributes: [.account: .string("alice")])

    /// A keychain with one item, closed again.
    static func keychainWithItem(
        credentials: [UnlockCredential]? = nil,
        keychain: TemporaryKeychain = TemporaryKeychain()
    )
        throws -> TemporaryKeychain
    {
        let store = try keychain.open(credentials: credentials)
        try store.add(.genericPassword, attributes: [.account: .string("alice")], data: SecretData(string: "s3cret"))
        try store.close()
        return keychain
    }

    static func expectItemReadable(_ store: KeychainStore, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            (try? store.findOne(query, withData: true).data) == SecretData(string: "s3cret"),
            sourceLocation: sourceLocation
        )
    }

    @Test func wrongPassphraseIsAuthFailedAndTheRightOneStillWorks() throws {
        let keychain = try Self.keychainWithItem()
        let wrong = UnlockCredential.passphrase(SecretData(string: "Correct horse battery staple"))

        let error = expectKeychainError(.authFailed) { try keychain.open(credentials: [wrong]) }
        #expect(error?.code.rawValue == -25293)
        #expect(error?.message.contains("Correct horse") == false, "the passphrase must never be echoed")

        let store = try keychain.open(credentials: [])
        expectKeychainError(.authFailed) { try store.unlock(with: wrong) }
        #expect(store.lockState == .neverUnlocked)
        expectKeychainError(.authFailed) { try store.unlock(with: wrong) }
        try store.unlock(with: .passphrase(keychain.passphrase))
        #expect(store.lockState == .unlocked)
        Self.expectItemReadable(store)
    }

    @Test func openTriesEveryCredentialUntilOneWorks() throws {
        let keychain = try Self.keychainWithItem()
        let store = try keychain.open(credentials: [
            .passphrase(SecretData(string: "wrong")), .passphrase(keychain.passphrase),
        ])
        #expect(store.lockState == .unlocked)
        Self.expectItemReadable(store)
    }

    @Test func keyFileUnlocksAKeyFileKeychain() throws {
        let keychain = TemporaryKeychain()
        let keyPath = keychain.directory + "/latchkey.key"
        let created = try UnlockCredential.createKeyFile(at: keyPath)
        _ = try Self.keychainWithItem(credentials: [created], keychain: keychain)

        let store = try keychain.open(credentials: [try .keyFile(at: keyPath)])
        #expect(store.lockState == .unlocked)
        Self.expectItemReadable(store)
        #expect(try store.hasPassphrase() == false)

        // A passphrase cannot open a keychain that has no passphrase slot; another key file is refused.
        expectKeychainError(.authFailed) { try keychain.open(credentials: [.passphrase(keychain.passphrase)]) }
        let otherKey = try UnlockCredential.createKeyFile(at: keychain.directory + "/other.key")
        expectKeychainError(.authFailed) { try keychain.open(credentials: [otherKey]) }
    }

    @Test func createdKeyFileIsPrivateAndNeverOverwritten() throws {
        let keychain = TemporaryKeychain()
        let keyPath = keychain.directory + "/latchkey.key"
        _ = try UnlockCredential.createKeyFile(at: keyPath)
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
        #expect(FileManager.default.contents(atPath: keyPath)?.count == 32)
        let original = FileManager.default.contents(atPath: keyPath)
        expectKeychainError(.io) { try UnlockCredential.createKeyFile(at: keyPath) }
        #expect(FileManager.default.contents(atPath: keyPath) == original)
    }

    @Test(
        arguments: [
            ("32 raw bytes", Data((0..<32).map { UInt8($0) }), true),
            ("64 hex digits", Data(String(repeating: "0a", count: 32).utf8), true),
            ("64 hex digits and a newline", Data((String(repeating: "Fe", count: 32) + "\n").utf8), true),
            ("31 bytes", Data(repeating: 1, count: 31), false),
            ("33 bytes", Data(repeating: 1, count: 33), false),
            ("64 non-hex characters", Data(String(repeating: "zz", count: 32).utf8), false),
            ("empty", Data(), false),
        ]
    )
    func keyFileFormats(_ name: String, contents: Data, accepted: Bool) throws {
        let keychain = TemporaryKeychain()
        let path = keychain.directory + "/key"
        _ = FileManager.default.createFile(atPath: path, contents: contents, attributes: [.posixPermissions: 0o600])
        if accepted {
            guard case .keyFile(let key) = try UnlockCredential.keyFile(at: path) else {
                Issue.record("\(name): not a key file credential")
                return
            }
            #expect(key.count == 32, "\(name)")
        } else {
            expectKeychainError(.param, "\(name)") { try UnlockCredential.keyFile(at: path) }
        }
    }

    @Test func hexAndRawKeyFilesWithTheSameBytesAreTheSameCredential() throws {
        let keychain = TemporaryKeychain()
        let raw = Data((0..<32).map { UInt8(200 - $0) })
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        _ = FileManager.default.createFile(atPath: keychain.directory + "/raw", contents: raw)
        _ = FileManager.default.createFile(atPath: keychain.directory + "/hex", contents: Data((hex + "\n").utf8))
        #expect(try UnlockCredential.keyFile(at: keychain.directory + "/raw") == .keyFile(SecretData(raw)))
        #expect(try UnlockCredential.keyFile(at: keychain.directory + "/hex") == .keyFile(SecretData(raw)))
    }

    @Test func missingKeyFileIsAParameterErrorNamingThePath() {
        let error = expectKeychainError(.param) { try UnlockCredential.keyFile(at: "/nonexistent/latchkey.key") }
        #expect(error?.message.contains("/nonexistent/latchkey.key") == true)
    }

    @Test(arguments: ["passphrase", "key file"])
    func keychainWithPassphraseAndKeyFileOpensWithEither(only: String) throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        _ = try Self.keychainWithItem(credentials: [.passphrase(keychain.passphrase), keyFile], keychain: keychain)
        let credential = only == "passphrase" ? UnlockCredential.passphrase(keychain.passphrase) : keyFile
        let store = try keychain.open(credentials: [credential])
        #expect(store.lockState == .unlocked)
        #expect(try store.hasPassphrase())
        Self.expectItemReadable(store)
    }

    @Test func changePassphraseRetiresTheOldOneAndKeepsItems() throws {
        let keychain = try Self.keychainWithItem()
        let newPassphrase = SecretData(string: "new passphrase 2")
        let store = try keychain.open()
        try store.changePassphrase(to: newPassphrase)
        Self.expectItemReadable(store)
        try store.close()

        expectKeychainError(.authFailed) { try keychain.open() }
        let reopened = try keychain.open(credentials: [.passphrase(newPassphrase)])
        Self.expectItemReadable(reopened)
        // Items added before and after the change are both intact.
        try reopened.add(.genericPassword, attributes: [.account: .string("bob")], data: SecretData(string: "b"))
        try reopened.close()
        let again = try keychain.open(credentials: [.passphrase(newPassphrase)])
        #expect(try again.find(ItemQuery(.genericPassword), limit: .all).count == 2)
    }

    @Test func changePassphraseKeepsTheKeyFileSlot() throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        _ = try Self.keychainWithItem(credentials: [.passphrase(keychain.passphrase), keyFile], keychain: keychain)
        let store = try keychain.open()
        try store.changePassphrase(to: SecretData(string: "another"))
        try store.close()
        Self.expectItemReadable(try keychain.open(credentials: [keyFile]))
    }

    @Test func changingCredentialsNeedsAnUnlockedKeychain() throws {
        let keychain = try Self.keychainWithItem()
        let store = try keychain.open(credentials: [])
        expectKeychainError(.interactionNotAllowed) { try store.changePassphrase(to: SecretData(string: "x")) }
        try store.unlock(with: .passphrase(keychain.passphrase))
        store.lock()
        expectKeychainError(.interactionNotAllowed) { try store.changePassphrase(to: SecretData(string: "x")) }
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        expectKeychainError(.interactionNotAllowed) { try store.setKeyFile(keyFile) }
    }

    @Test func setKeyFileAddsAKeyFileUnlock() throws {
        let keychain = try Self.keychainWithItem()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        let store = try keychain.open()
        try store.setKeyFile(keyFile)
        try store.close()
        Self.expectItemReadable(try keychain.open(credentials: [keyFile]))
        Self.expectItemReadable(try keychain.open())
    }

    // MARK: - Credentials from the environment

    @Test func environmentCredentialsComeInPreferenceOrder() throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        let passphraseFile = keychain.directory + "/passphrase"
        _ = FileManager.default.createFile(atPath: passphraseFile, contents: Data("from file\r\n".utf8))
        let credentials = try UnlockCredential.fromEnvironment([
            "LATCHKEY_PASSPHRASE": "from variable",
            "LATCHKEY_PASSPHRASE_FILE": passphraseFile,
            "LATCHKEY_KEY_FILE": keychain.directory + "/key",
        ])
        #expect(
            credentials == [
                keyFile, .passphrase(SecretData(string: "from file")), .passphrase(SecretData(string: "from variable")),
            ]
        )
    }

    @Test(
        arguments: [
            ([String: String](), 0),
            (["LATCHKEY_PASSPHRASE": ""], 0),
            (["LATCHKEY_KEY_FILE": "", "LATCHKEY_PASSPHRASE_FILE": ""], 0),
            (["LATCHKEY_PASSPHRASE": "p"], 1),
            (["UNRELATED": "x", "LATCHKEY_PASSPHRASE": "p"], 1),
        ]
    )
    func environmentVariablesThatAreAbsentOrEmptyAreIgnored(environment: [String: String], count: Int) throws {
        #expect(try UnlockCredential.fromEnvironment(environment).count == count)
    }

    @Test func unreadablePassphraseFileIsAParameterErrorThatDoesNotEchoIt() {
        let error = expectKeychainError(.param) {
            try UnlockCredential.fromEnvironment(["LATCHKEY_PASSPHRASE_FILE": "/nonexistent/pass"])
        }
        #expect(error?.message.contains("LATCHKEY_PASSPHRASE_FILE") == true)
        expectKeychainError(.param) { try UnlockCredential.fromEnvironment(["LATCHKEY_KEY_FILE": "/nonexistent/key"]) }
    }

    @Test func environmentCredentialsUnlockAKeychain() throws {
        let keychain = try Self.keychainWithItem()
        let passphraseFile = keychain.directory + "/passphrase"
        _ = FileManager.default.createFile(
            atPath: passphraseFile,
            contents: Data("correct horse battery staple\n".utf8)
        )
        let credentials = try UnlockCredential.fromEnvironment(["LATCHKEY_PASSPHRASE_FILE": passphraseFile])
        Self.expectItemReadable(try keychain.open(credentials: credentials))
    }

    @Test func credentialDescriptionsAreRedacted() throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        #expect("\(UnlockCredential.passphrase(SecretData(string: "hunter2")))" == "passphrase(redacted)")
        #expect("\(keyFile)" == "keyFile(redacted)")
    }

    // MARK: - Creating keychains and file permissions

    @Test func creatingAMissingKeychainWithoutCredentialsIsInteractionNotAllowed() throws {
        let keychain = TemporaryKeychain()
        let error = expectKeychainError(.interactionNotAllowed) { try keychain.open(credentials: []) }
        #expect(error?.code.rawValue == -25308)
        #expect(error?.message.contains("does not exist") == true, "\(String(describing: error))")
        #expect(error?.message.contains("LATCHKEY_KEY_FILE") == true)
        #expect(!FileManager.default.fileExists(atPath: keychain.path), "nothing is created")
    }

    @Test func missingNamedKeychainWithoutCreateIsNoSuchKeychain() throws {
        let keychain = TemporaryKeychain()
        expectKeychainError(.noSuchKeychain) {
            try KeychainStore.open(
                path: keychain.path,
                credentials: [.passphrase(keychain.passphrase)],
                createIfMissing: false,
                options: keychain.options()
            )
        }
        #expect(!FileManager.default.fileExists(atPath: keychain.path))
    }

    @Test func createWithoutCredentialsIsAParameterError() {
        let keychain = TemporaryKeychain()
        expectKeychainError(.param) {
            try KeychainStore.create(path: keychain.path, credentials: [], options: keychain.options())
        }
    }

    @Test func createOverAnExistingKeychainIsDuplicateItem() throws {
        let keychain = try Self.keychainWithItem()
        expectKeychainError(.duplicateItem) {
            try KeychainStore.create(
                path: keychain.path,
                credentials: [.passphrase(keychain.passphrase)],
                options: keychain.options()
            )
        }
        Self.expectItemReadable(try keychain.open())
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test func newKeychainFileIs0600AndANewDirectory0700() throws {
        let keychain = TemporaryKeychain()
        let directory = keychain.directory + "/fresh/nested"
        let path = directory + "/login.keychain-db"
        let store = try KeychainStore.open(
            path: path,
            credentials: [.passphrase(keychain.passphrase)],
            options: keychain.options()
        )
        try store.add(.genericPassword, attributes: [:], data: SecretData(string: "x"))
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(directory) == 0o700)
        #expect(try Self.mode(keychain.directory + "/fresh") == 0o700)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            #expect(try Self.mode(path + suffix) & 0o077 == 0, "\(suffix) is readable by others")
        }
        #expect(try Self.mode(keychain.deviceSecretPath) == 0o600)
        try store.close()
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o666])
    func keychainReadableByOthersIsRefusedWithChmodAdvice(mode: Int) throws {
        let keychain = try Self.keychainWithItem()
        #expect(chmod(keychain.path, mode_t(mode)) == 0)
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.message.contains("chmod 600 \(keychain.path)") == true, "\(String(describing: error))")
        #expect(error?.message.contains(String(mode, radix: 8)) == true)
        #expect(chmod(keychain.path, 0o600) == 0)
        Self.expectItemReadable(try keychain.open())
    }

    @Test func keychainInAWorldWritableDirectoryIsRefused() throws {
        let keychain = try Self.keychainWithItem()
        #expect(chmod(keychain.directory, 0o777) == 0)
        defer { chmod(keychain.directory, 0o700) }
        let error = #expect(throws: KeychainError.self) { try keychain.open() }
        #expect(error?.message.contains("chmod 700") == true, "\(String(describing: error))")
    }
}
