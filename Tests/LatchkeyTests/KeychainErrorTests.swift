import Foundation
import Latchkey
import LatchkeyTesting
import Testing

struct KeychainErrorTests {
    @Test func lockedIsDistinctFromNotFoundAndNeverNil() throws {
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain().accessibility(.whenUnlocked)
        try keychain.set("v", forKey: "present")
        test.lock()

        #expect(try keychain.string(forKey: "absent") == nil)
        do {
            _ = try keychain.string(forKey: "present")
            Issue.record("a locked item must not read as nil")
        } catch KeychainError.Code.interactionNotAllowed {
            // expected
        } catch {
            Issue.record("unexpected \(error)")
        }
        let error = try #require(throws: KeychainError.self) { try keychain.data(forKey: "present") }
        #expect(error.code == .interactionNotAllowed)
        #expect(error.message.contains("'whenUnlocked'"))
        #expect(error.message.contains("The keychain is locked"))
        #expect(error.message.contains("latchkey unlock"), "the next step")
        #expect(throws: KeychainError.self) { try keychain.value(Int.self, forKey: "present") }
        #expect(throws: KeychainError.self) { try keychain.items() }
        #expect(throws: KeychainError.self) { try keychain.removeValue(forKey: "present") }
        #expect(try keychain.contains("present"))
    }

    @Test func lockedMessageNamesTheClassAndTheState() throws {
        let test = try TestKeychain.inMemory(startsLocked: true)
        let keychain = test.keychain().accessibility(.afterFirstUnlock)
        do {
            try keychain.set("v", forKey: "k")
            Issue.record("writing an afterFirstUnlock item before the first unlock must fail")
        } catch {
            #expect(error.code == .interactionNotAllowed)
            #expect(error.code.rawValue == -25308)
            #expect(error.message.contains("afterFirstUnlock"))
            #expect(error.message.contains("unlock"))
        }
    }

    @Test func missingAccessGroupNamesItAndTheCallersGroups() throws {
        let test = try TestKeychain.inMemory(accessGroups: ["com.example.app", "com.example.shared"])
        let keychain = test.keychain().accessGroup("com.example.stranger")
        do {
            try keychain.set("top-secret-value", forKey: "top-secret-key")
            Issue.record("expected missingEntitlement")
        } catch {
            #expect(error.code == .missingEntitlement)
            #expect(error.code.rawValue == -34018)
            #expect(error.message.contains("com.example.stranger"))
            #expect(error.message.contains("com.example.app"))
            #expect(error.message.contains("com.example.shared"))
            #expect(error.message.contains("LATCHKEY_ACCESS_GROUPS"))
        }
        #expect(throws: KeychainError.self) { try keychain.string(forKey: "k") }
    }

    /// Every failure path of the typed API, checked for leaked secrets and attribute values.
    @Test func noErrorTextContainsSecretsOrAttributeValues() throws {
        let secret = "SECRET-VALUE-123"
        let key = "ATTRIBUTE-KEY-456"
        let service = "SERVICE-789"
        let test = try TestKeychain.inMemory()
        let keychain = test.keychain(service: service).label("LABEL-000").accessibility(.whenUnlocked)
        try keychain.set(secret, forKey: key)
        try keychain.set(Data([0xFF]), forKey: key + "-binary")
        try keychain.service(service + "-new").set("taken", forKey: key)
        var errors: [KeychainError] = []
        func collect(_ body: () throws -> Void) {
            do {
                try body()
            } catch let error as KeychainError {
                errors.append(error)
            } catch {
                Issue.record("unexpected error type \(type(of: error))")
            }
        }
        collect { _ = try keychain.value(KeychainTestSession.self, forKey: key) }
        collect { _ = try keychain.string(forKey: key + "-binary") }
        collect { try keychain.accessGroup("com.example.stranger").set(secret, forKey: key) }
        collect {
            try KeychainMigration(from: keychain, to: keychain.service(service + "-new")).run()
        }
        test.lock()
        collect { _ = try keychain.string(forKey: key) }
        collect { try keychain.set(secret, forKey: key) }
        collect { _ = try keychain.items() }
        collect { try keychain.removeAll() }
        #expect(errors.count == 8)
        for error in errors {
            for text in [
                error.message, error.description, error.debugDescription, "\(error)", String(reflecting: error),
            ] {
                #expect(!text.contains(secret))
                #expect(!text.contains(key))
                #expect(!text.contains(service))
                #expect(!text.contains("LABEL-000"))
            }
        }
    }

    @Test func errorCodesAreOSStatusValues() {
        #expect(KeychainError.Code.interactionNotAllowed.rawValue == -25308)
        #expect(KeychainError.Code.itemNotFound.rawValue == -25300)
        #expect(KeychainError.Code.duplicateItem.rawValue == -25299)
        #expect(KeychainError.Code(rawValue: -99_999).rawValue == -99_999)
    }
}
