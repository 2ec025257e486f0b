import Foundation
import Latchkey
import LatchkeyTesting
import Synchronization
import Testing

struct KeychainStoredTests {
    final class ErrorLog: Sendable {
        private let errors = Mutex<[KeychainError.Code]>([])
        var codes: [KeychainError.Code] { errors.withLock { $0 } }
        func record(_ error: KeychainError) { errors.withLock { $0.append(error.code) } }
    }

    struct Settings {
        @KeychainStored var session: KeychainTestSession?
        @KeychainStored var token: String?

        init(keychain: Keychain, log: ErrorLog) {
            _session = KeychainStored("session", keychain: keychain, onError: log.record)
            _token = KeychainStored("token", keychain: keychain, onError: log.record)
        }
    }

    @Test func propertyReadsWritesAndRemoves() throws {
        let test = try TestKeychain.inMemory()
        let log = ErrorLog()
        let settings = Settings(keychain: test.keychain(), log: log)
        #expect(settings.session == nil)
        settings.session = .sample
        settings.token = "abc"
        #expect(settings.session == .sample)
        #expect(settings.token == "abc")
        // Stored like any other value: visible through the keychain.
        #expect(try test.keychain().value(KeychainTestSession.self, forKey: "session") == .sample)
        #expect(try test.keychain().string(forKey: "token") == "abc")
        settings.token = nil
        #expect(settings.token == nil)
        #expect(try !test.keychain().contains("token"))
        #expect(log.codes.isEmpty)
    }

    @Test func projectedValueDistinguishesLockedFromAbsent() throws {
        let test = try TestKeychain.inMemory()
        let log = ErrorLog()
        let settings = Settings(keychain: test.keychain().accessibility(.whenUnlocked), log: log)
        settings.token = "abc"
        test.lock()
        #expect(settings.token == nil)
        #expect(log.codes == [.interactionNotAllowed])
        #expect(throws: KeychainError.self) { try settings.$token.load() }
        settings.token = "lost?"
        #expect(log.codes == [.interactionNotAllowed, .interactionNotAllowed])
        try test.unlock()
        #expect(try settings.$token.load() == "abc")
    }

    @Test func asyncProjectedCalls() async throws {
        let test = try TestKeychain.inMemory()
        let stored = KeychainStored<KeychainTestSession>("session", keychain: test.keychain())
        try await stored.save(.sample)
        #expect(try await stored.load() == .sample)
        try await stored.save(nil)
        #expect(try await stored.load() == nil)
    }

    @Test(.timeLimit(.minutes(5))) func projectedChangesReportWrites() async throws {
        let test = try TestKeychain.inMemory()
        let stored = KeychainStored<String>("token", keychain: test.keychain())
        let changes = await stored.changes()
        let collector = Task { try await collectChanges(changes, count: 1) }
        stored.wrappedValue = "new"
        #expect(try await collector.value.map(\.kind) == [.added])
    }

    @Test func standardKeychainUsesTheProcessGroupOrExecutableNameAsService() {
        let stored = KeychainStored<String>("token")
        let first = AccessGroups.current().first ?? ""
        // The default group is the executable's path (the identity); a service is its file name instead.
        #expect(stored.keychain.service == (first.hasPrefix("/") ? AccessGroups.executableName() : first))
        #expect(!stored.keychain.service.contains("/"))
        #expect(stored.key == "token")
    }
}
