#if !canImport(Darwin)
import Foundation
import Latchkey
import LocalAuthentication
import Security
import Testing
import LatchkeyTesting

/// Runs the Apple-style samples (which import only Foundation, Security and LocalAuthentication)
/// against a temporary keychain.
struct SampleRunTests {
    /// A temporary keychain for the duration of `body`.
    private func withKeychain(_ body: () throws -> Void) throws {
        let template = FileManager.default.temporaryDirectory.path + "/latchkey-sample-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            Issue.record("mkdtemp failed")
            return
        }
        let directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try KeychainStore.open(
            path: directory + "/sample.keychain-db",
            credentials: [.passphrase(SecretData(string: "sample"))],
            options: KeychainStore.Options(
                accessGroups: ["com.example.sample"],
                kdfCost: .testing,
                deviceSecretPath: directory + "/device-secret"
            )
        )
        try LatchkeySecurity.withStore(store, operation: body)
    }

    @Test func keyAndIdentitySampleRuns() throws {
        try withKeychain {
            let key = try KeyAndIdentitySample.makeSigningKey(tag: "com.example.sample.key")
            #expect(try KeyAndIdentitySample.loadKey(tag: "com.example.sample.key") == key)
            #expect(try KeyAndIdentitySample.signAndVerify(Data("hello".utf8), with: key))
            let rsa = try #require(
                SecKeyCreateRandomKey(
                    [kSecAttrKeyType: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits: 2048] as CFDictionary,
                    nil
                )
            )
            #expect(try KeyAndIdentitySample.roundTrip(Data("secret".utf8), with: rsa) == Data("secret".utf8))
            let peer = try #require(
                SecKeyCreateRandomKey(
                    [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256] as CFDictionary,
                    nil
                )
            )
            let ours = try KeyAndIdentitySample.sharedKey(key, try #require(SecKeyCopyPublicKey(peer)))
            #expect(ours == (try KeyAndIdentitySample.sharedKey(peer, try #require(SecKeyCopyPublicKey(key)))))
            #expect(throws: KeyAndIdentitySample.Failure.self) { try KeyAndIdentitySample.storedIdentityCommonName() }

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sample-p12-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try Data("[req]\ndistinguished_name = dn\n[dn]\n".utf8).write(to: directory.appendingPathComponent("r.cnf"))
            try #require(
                ["/usr/bin/openssl", "/bin/openssl"].contains { FileManager.default.isExecutableFile(atPath: $0) },
                "peer openssl missing: install the Debian package openssl (.ci/run installs every peer)"
            )
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c",
                "openssl req -x509 -config r.cnf -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout k.pem"
                    + " -out c.pem -days 2 -subj /CN=sample.example.test 2>/dev/null && openssl pkcs12 -export"
                    + " -inkey k.pem -in c.pem -passout pass:pw -out i.p12",
            ]
            process.currentDirectoryURL = directory
            try ProcessLaunch.run(process)
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            let p12 = try Data(contentsOf: directory.appendingPathComponent("i.p12"))
            #expect(throws: KeyAndIdentitySample.Failure.self) {
                try KeyAndIdentitySample.importIdentity(p12, password: "wrong")
            }
            _ = try KeyAndIdentitySample.importIdentity(p12, password: "pw")
            #expect(try KeyAndIdentitySample.storedIdentityCommonName() == "sample.example.test")
        }
    }

    @Test func internetPasswordSampleRuns() throws {
        try withKeychain {
            #expect(throws: KeychainError.noPassword) { try InternetPasswordSample.search() }
            try InternetPasswordSample.add(Credentials(username: "appleseed", password: "pw1"))
            #expect(throws: KeychainError.unhandledError(status: errSecDuplicateItem)) {
                try InternetPasswordSample.add(Credentials(username: "appleseed", password: "pw1"))
            }
            #expect(try InternetPasswordSample.search().password == "pw1")
            try InternetPasswordSample.update(Credentials(username: "appleseed", password: "pw2"))
            let found = try InternetPasswordSample.search()
            #expect(found.username == "appleseed")
            #expect(found.password == "pw2")
            try InternetPasswordSample.delete()
            #expect(throws: KeychainError.noPassword) { try InternetPasswordSample.search() }
            #expect(
                InternetPasswordSample.message(for: errSecItemNotFound)
                    == "The specified item could not be found in the keychain."
            )
        }
    }

    @Test func passwordItemSampleRuns() throws {
        try withKeychain {
            var item = PasswordItem(service: "com.example.items", account: "first")
            #expect(throws: PasswordItem.Failure.self) { try item.readPassword() }
            #expect(!PasswordItem.exists(service: "com.example.items"))
            try item.savePassword("one")
            try item.savePassword("two")
            #expect(try item.readPassword() == "two")
            try PasswordItem(service: "com.example.items", account: "second").savePassword("x")
            #expect(
                try PasswordItem.passwordItems(forService: "com.example.items").map(\.account) == ["first", "second"]
            )
            try item.renameAccount("renamed")
            #expect(try item.readPassword() == "two")
            #expect(PasswordItem.exists(service: "com.example.items"))
            try item.deleteItem()
            #expect(try PasswordItem.passwordItems(forService: "com.example.items").map(\.account) == ["second"])
        }
    }

    @Test func keychainWrapperSampleRuns() throws {
        try withKeychain {
            let wrapper = KeychainWrapper(service: "com.example.wrapper")
            #expect(wrapper.string(forKey: "token") == nil)
            #expect(wrapper.set("one", forKey: "token"))
            #expect(wrapper.set("two", forKey: "token"))
            #expect(wrapper.set("x", forKey: "other"))
            #expect(wrapper.string(forKey: "token") == "two")
            let reference = try #require(wrapper.persistentReference(forKey: "token"))
            #expect(wrapper.string(forPersistentReference: reference) == "two")
            #expect(wrapper.allKeys() == ["token", "other"])
            #expect(wrapper.accessibility(forKey: "token") == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(wrapper.removeObject(forKey: "token"))
            #expect(wrapper.string(forKey: "token") == nil)
            #expect(wrapper.removeAllKeys())
            #expect(wrapper.allKeys().isEmpty)
        }
    }

    @Test func biometricSampleRuns() throws {
        let authenticator = LAScriptedAuthenticator(outcomes: [nil])
        try LAAuthentication.withAuthenticator(authenticator) {
            try withKeychain {
                #expect(BiometricSample.store(secret: Data("pin".utf8)) == errSecSuccess)
                #expect(BiometricSample.readWithoutPrompt() == errSecInteractionNotAllowed)
                let (status, data) = BiometricSample.read(reason: "Show your PIN")
                #expect(status == errSecSuccess)
                #expect(data == Data("pin".utf8))
                nonisolated(unsafe) var completed: (Bool, Data?)?
                BiometricSample.authenticateThenRead { completed = ($0, $1) }
                #expect(completed?.0 == true)
                #expect(completed?.1 == Data("pin".utf8))
                #expect(BiometricSample.canUseBiometrics())
                #expect(BiometricSample.accessControlDictionary().count == 2)
            }
        }
    }

    @Test func coreFoundationStyleSampleRuns() throws {
        try withKeychain {
            #expect(CoreFoundationStyleSample.load(key: "k") == nil)
            #expect(!CoreFoundationStyleSample.exists(key: "k"))
            #expect(CoreFoundationStyleSample.save(key: "k", data: Data([1, 2])) == errSecSuccess)
            #expect(CoreFoundationStyleSample.save(key: "k", data: Data([3])) == errSecSuccess)
            #expect(CoreFoundationStyleSample.load(key: "k") == Data([3]))
            #expect(CoreFoundationStyleSample.exists(key: "k"))
            #expect(CoreFoundationStyleSample.randomKey()?.count == 32)
            #expect(CoreFoundationStyleSample.randomKeyIntoData().count == 16)
            #expect(CoreFoundationStyleSample.describe(NSError(domain: "d", code: 7)) == "d 7 0")
            #expect(CoreFoundationStyleSample.bundleIdentifierKey() == "CFBundleIdentifier")
            #expect(CoreFoundationStyleSample.keyItem(tag: "com.example.key", keyData: Data([9])) == errSecSuccess)
            #expect(CoreFoundationStyleSample.keyClass(tag: "com.example.key") == 1)
        }
    }

    @Test func actorSampleRuns() async throws {
        let template = FileManager.default.temporaryDirectory.path + "/latchkey-actor-XXXXXX"
        var bytes = Array(template.utf8CString)
        _ = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try KeychainStore.open(
            path: directory + "/actor.keychain-db",
            credentials: [.passphrase(SecretData(string: "sample"))],
            options: KeychainStore.Options(accessGroups: ["g"], kdfCost: .testing, deviceSecretPath: directory + "/ds")
        )
        await LatchkeySecurity.withStore(store) {
            let tokens = TokenStore(service: "svc")
            #expect(await tokens.token() == nil)
            #expect(await tokens.save("abc") == errSecSuccess)
            #expect(await tokens.token() == "abc")
        }
    }
}
#endif
