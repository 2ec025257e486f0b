import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// `LatchkeyTesting`: isolated keychains for users' own tests.
struct KeychainTestingTests {
    @Test func temporaryKeychainIsPrivateAndRemovedOnRelease() throws {
        var test: TestKeychain? = try TestKeychain()
        let directory = try #require(test?.directory)
        #expect(directory.hasPrefix(FileManager.default.temporaryDirectory.path))
        #expect(FileManager.default.fileExists(atPath: directory + "/test.keychain-db"))
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        try test?.keychain().set("v", forKey: "k")
        test = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func inMemoryKeychainLivesInSharedMemory() throws {
        let test = try TestKeychain.inMemory()
        if FileManager.default.fileExists(atPath: "/dev/shm") {
            #expect(test.path.hasPrefix("/dev/shm/"))
        }
        try test.keychain().set("v", forKey: "k")
        #expect(try test.keychain().string(forKey: "k") == "v")
    }

    @Test func keychainsAreIsolatedFromEachOtherAndFromTheDefault() throws {
        let first = try TestKeychain.inMemory()
        let second = try TestKeychain.inMemory()
        try first.keychain().set("one", forKey: "k")
        #expect(try second.keychain().string(forKey: "k") == nil)
        #expect(first.path != second.path)
        #expect(first.store.path != KeychainLocation.defaultKeychainPath())
        #expect(first.store.options.deviceSecretPath == first.deviceSecretPath)
    }

    @Test func startsLockedAndUnlocks() throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        #expect(test.store.lockState == .neverUnlocked)
        try test.unlock()
        #expect(test.store.lockState == .unlocked)
        test.lock()
        #expect(test.store.lockState == .locked)
    }

    @Test func environmentLetsAChildProcessUseIt() throws {
        let test = try TestKeychain()
        try test.keychain(service: "svc").set("from-test", forKey: "acct")
        let output = try BuiltExecutable.run(
            ["find-generic-password", "-s", "svc", "-a", "acct", "-w"],
            environment: test.environment()
        )
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.trimmingCharacters(in: .newlines) == "from-test")
    }
}
