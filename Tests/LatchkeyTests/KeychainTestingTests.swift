import Foundation
import Latchkey
import LatchkeyTestHarness
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

    // MARK: - ManualClock

    @Test func manualClockStartsAtAFixedDateAndMovesOnlyWhenTold() {
        let clock = ManualClock()
        #expect(clock.now() == ManualClock.defaultStart)
        #expect(ManualClock.defaultStart == Date(timeIntervalSince1970: 1_704_067_200))
        #expect(clock.now() == clock.now())
        clock.advance(by: 90)
        #expect(clock.now() == ManualClock.defaultStart.addingTimeInterval(90))
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now() == ManualClock.defaultStart.addingTimeInterval(91.5))
        clock.set(Date(timeIntervalSince1970: 0))
        #expect(clock.now() == Date(timeIntervalSince1970: 0))
        #expect(ManualClock(Date(timeIntervalSince1970: 5)).now() == Date(timeIntervalSince1970: 5))
    }

    @Test func itemDatesComeFromTheInjectedClock() throws {
        let clock = ManualClock()
        let test = try TestKeychain.inMemory(clock: clock)
        let keychain = test.keychain()
        try keychain.set("one", forKey: "token")
        let added = try #require(try keychain.items().first)
        #expect(added.creationDate == ManualClock.defaultStart)
        #expect(added.modificationDate == ManualClock.defaultStart)

        clock.advance(by: 3600)
        try keychain.set("two", forKey: "token")
        let updated = try #require(try keychain.items().first)
        #expect(updated.creationDate == ManualClock.defaultStart)
        #expect(updated.modificationDate == ManualClock.defaultStart.addingTimeInterval(3600))

        // A second store on the file (as another process) uses the same clock.
        clock.advance(by: 60)
        let other = try test.openAnotherStore()
        let item = try other.add(
            .genericPassword,
            attributes: [.service: .string("com.example.tests"), .account: .string("other")],
            data: SecretData(string: "v")
        )
        #expect(item.attributes[.creationDate] == .date(ManualClock.defaultStart.addingTimeInterval(3660)))
    }

    @Test func updatesAtTheSameManualTimeStillGetIncreasingModificationDates() throws {
        let clock = ManualClock()
        let keychain = try TestKeychain.inMemory(clock: clock).keychain()
        try keychain.set("one", forKey: "token")
        try keychain.set("two", forKey: "token")
        let item = try #require(try keychain.items().first)
        let modified = try #require(item.modificationDate)
        #expect(modified > ManualClock.defaultStart)
        #expect(item.creationDate == ManualClock.defaultStart)
        #expect(clock.now() == ManualClock.defaultStart, "the store never moves the clock")
    }

    // MARK: - SeededRandom

    @Test func seededRandomRepeatsItsSequenceForTheSameSeed() {
        let first = SeededRandom(seed: 42)
        let second = SeededRandom(seed: 42)
        let a = first.bytes(16)
        #expect(a.count == 16)
        #expect(second.bytes(16) == a)
        #expect(first.bytes(16) != a, "consecutive draws differ")
        #expect(SeededRandom(seed: 43).bytes(16) != a)
        #expect(first.seed == 42)
        // Odd lengths take a prefix of the same stream position.
        #expect(SeededRandom(seed: 42).bytes(5) == a.prefix(5))
        #expect(SeededRandom(seed: 42).bytes(0).isEmpty)
    }

    @Test func seededRandomMatchesSplitMix64() {
        // Reference values of SplitMix64 seeded with 0 (the generator's published test vector).
        let bytes = SeededRandom(seed: 0).bytes(16)
        let words = stride(from: 0, to: 16, by: 8).map { offset in
            bytes[offset..<(offset + 8)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        #expect(words == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4])
    }

    @Test func persistentReferencesComeFromTheInjectedRandom() throws {
        func firstReference(seed: UInt64) throws -> Data {
            let keychain = try TestKeychain.inMemory(random: SeededRandom(seed: seed)).keychain()
            try keychain.set("v", forKey: "k")
            return try #require(try keychain.items().first).persistentReference
        }
        let reference = try firstReference(seed: 7)
        #expect(try firstReference(seed: 7) == reference)
        #expect(try firstReference(seed: 8) != reference)
        #expect(reference.suffix(16) == SeededRandom(seed: 7).bytes(16))
    }
}
