import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// Nested Codable types for round trips.
struct KeychainTestSession: Codable, Equatable, Sendable {
    struct Token: Codable, Equatable, Sendable {
        var value: String
        var scopes: [String]
        var expires: Date
    }

    enum Tier: String, Codable, Sendable { case free, pro }

    var user: String
    var access: Token
    var refresh: Token?
    var tier: Tier
    var limits: [String: Int]
    var flags: Set<String>
}

extension KeychainTestSession {
    static let sample = KeychainTestSession(
        user: "alice",
        access: Token(value: "at-123", scopes: ["read", "write"], expires: Date(timeIntervalSince1970: 1_900_000_000)),
        refresh: Token(value: "rt-456", scopes: [], expires: Date(timeIntervalSince1970: 2_000_000_000.5)),
        tier: .pro,
        limits: ["requests": 1000, "uploads": 3],
        flags: ["beta", "dark-mode"]
    )
}

struct KeychainValueTests {
    @Test func stringRoundTrips() throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain()
        try keychain.set("s3cret ✓ with unicode", forKey: "token")
        #expect(try keychain.string(forKey: "token") == "s3cret ✓ with unicode")
        #expect(try keychain["token"] == "s3cret ✓ with unicode")
    }

    @Test func dataRoundTripsIncludingEmpty() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        let bytes = Data((0...255).map { UInt8($0) })
        try keychain.set(bytes, forKey: "blob")
        try keychain.set(Data(), forKey: "empty")
        #expect(try keychain.data(forKey: "blob") == bytes)
        #expect(try keychain[data: "blob"] == bytes)
        #expect(try keychain.data(forKey: "empty") == Data())
    }

    @Test func secretDataRoundTrips() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set(SecretData(string: "hunter2"), forKey: "password")
        #expect(try keychain.secret(forKey: "password") == SecretData(string: "hunter2"))
    }

    @Test func nestedCodableRoundTrips() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set(KeychainTestSession.sample, forKey: "session")
        #expect(try keychain.value(KeychainTestSession.self, forKey: "session") == .sample)
        #expect(try keychain["session", as: KeychainTestSession.self] == .sample)
        let inferred: KeychainTestSession? = try keychain.value(forKey: "session")
        #expect(inferred == .sample)
    }

    @Test func codableCollectionsAndScalarsRoundTrip() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set([KeychainTestSession.sample, KeychainTestSession.sample], forKey: "list")
        try keychain.set(["a": [1, 2], "b": []], forKey: "map")
        try keychain.set(42, forKey: "answer")
        try keychain.set(true, forKey: "flag")
        #expect(try keychain.value([KeychainTestSession].self, forKey: "list") == [.sample, .sample])
        #expect(try keychain.value([String: [Int]].self, forKey: "map") == ["a": [1, 2], "b": []])
        #expect(try keychain.value(Int.self, forKey: "answer") == 42)
        #expect(try keychain.value(Bool.self, forKey: "flag") == true)
    }

    @Test func genericPathStoresStringsAndDataAsRawBytes() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        func storeGeneric<T: Encodable>(_ value: T, _ key: String) throws { try keychain.set(value, forKey: key) }
        try storeGeneric("plain", "generic-string")
        try storeGeneric(Data([1, 2, 3]), "generic-data")
        #expect(try keychain.data(forKey: "generic-string") == Data("plain".utf8))
        #expect(try keychain.data(forKey: "generic-data") == Data([1, 2, 3]))
        #expect(try keychain.value(String.self, forKey: "generic-string") == "plain")
        #expect(try keychain.value(Data.self, forKey: "generic-data") == Data([1, 2, 3]))
    }

    @Test func pluggableCoderIsUsed() throws {
        let base = try TestKeychain.inMemory().keychain()
        let plist = base.coder(encoder: PropertyListEncoder(), decoder: PropertyListDecoder())
        try plist.set(KeychainTestSession.sample, forKey: "session")
        let bytes = try #require(try base.data(forKey: "session"))
        #expect(bytes.starts(with: Data("<?xml".utf8)) || bytes.starts(with: Data("bplist".utf8)))
        #expect(try plist.value(KeychainTestSession.self, forKey: "session") == .sample)
        // Read with the wrong coder: a decode error naming the type, not the bytes.
        #expect(throws: KeychainError.self) { try base.value(KeychainTestSession.self, forKey: "session") }
    }

    @Test func missingKeyIsNilNotAnError() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        #expect(try keychain.string(forKey: "absent") == nil)
        #expect(try keychain.data(forKey: "absent") == nil)
        #expect(try keychain.value(KeychainTestSession.self, forKey: "absent") == nil)
        #expect(try keychain.removeValue(forKey: "absent") == false)
    }

    @Test func removeDeletesTheItem() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set("v", forKey: "k")
        #expect(try keychain.removeValue(forKey: "k"))
        #expect(try keychain.string(forKey: "k") == nil)
        #expect(try !keychain.contains("k"))
    }

    @Test func decodeFailureNamesTheTypeButNotTheValue() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set("{\"user\": \"top-secret-user\"}", forKey: "session")
        do {
            _ = try keychain.value(KeychainTestSession.self, forKey: "session")
            Issue.record("expected a decode error")
        } catch {
            #expect(error.code == .decode)
            #expect(error.message.contains("KeychainTestSession"))
            #expect(!error.description.contains("top-secret-user"))
            #expect(!error.debugDescription.contains("top-secret-user"))
        }
    }

    @Test func invalidUTF8IsADecodeErrorNotNil() throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try keychain.set(Data([0xFF, 0xFE, 0x00]), forKey: "binary")
        #expect(throws: KeychainError.self) { try keychain.string(forKey: "binary") }
    }

    @Test func keychainsWithDifferentServicesAreIndependent() throws {
        let test = try TestKeychain.inMemory()
        let first = test.keychain(service: "com.example.one")
        let second = first.service("com.example.two")
        try first.set("1", forKey: "k")
        try second.set("2", forKey: "k")
        #expect(try first.string(forKey: "k") == "1")
        #expect(try second.string(forKey: "k") == "2")
    }

    @Test func valuesAreReadableThroughTheCoreAsGenericPasswords() throws {
        let test = try TestKeychain.inMemory()
        try test.keychain(service: "svc").label("Label").comment("Comment").set("pw", forKey: "acct")
        let item = try test.store.findOne(
            ItemQuery(.genericPassword, attributes: [.service: .string("svc"), .account: .string("acct")]),
            withData: true
        )
        #expect(item.data == SecretData(string: "pw"))
        #expect(item.attributes[.label] == .string("Label"))
        #expect(item.attributes[.comment] == .string("Comment"))
        #expect(item.attributes[.accessible] == .string(Accessibility.afterFirstUnlock.rawValue))
        #expect(item.attributes[.accessGroup] == .string("com.example.tests"))
    }

    @Test func asyncVariantsRoundTrip() async throws {
        let keychain = try TestKeychain.inMemory().keychain()
        try await keychain.set("async", forKey: "a")
        try await keychain.set(KeychainTestSession.sample, forKey: "s")
        try await keychain.set(Data([9]), forKey: "d")
        #expect(try await keychain.string(forKey: "a") == "async")
        #expect(try await keychain.value(KeychainTestSession.self, forKey: "s") == .sample)
        #expect(try await keychain.data(forKey: "d") == Data([9]))
        #expect(try await keychain.contains("a"))
        #expect(try await keychain.allKeys().sorted() == ["a", "d", "s"])
        #expect(try await keychain.removeValue(forKey: "a"))
        #expect(try await keychain.string(forKey: "a") == nil)
    }

    /// If `perform` ran its blocking work on the cooperative pool, these blocked calls would occupy
    /// every pool thread and the keychain calls below could never resume.
    @Test(.timeLimit(.minutes(5))) func blockingWorkNeverOccupiesTheCooperativePool() async throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain()
        let gate = DispatchSemaphore(value: 0)
        let blocked = ProcessInfo.processInfo.activeProcessorCount * 4
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<blocked {
                group.addTask {
                    await test.store.perform { _ in
                        enteredContinuation.yield()
                        gate.wait()
                    }
                }
            }
            // Every blocking call is running (and blocked) before the keychain is used.
            var arrivals = entered.makeAsyncIterator()
            for _ in 0..<blocked { _ = await arrivals.next() }
            try await keychain.set("v", forKey: "k")
            #expect(try await keychain.string(forKey: "k") == "v")
            for _ in 0..<blocked { gate.signal() }
            try await group.waitForAll()
        }
    }
}
