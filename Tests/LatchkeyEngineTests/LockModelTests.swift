import Foundation
import Latchkey
import LatchkeyTesting
import Testing

/// The emulated iOS data-protection model: which accessibility classes are readable in which lock state,
/// and on which machine.
struct LockModelTests {
    static func query(_ keyClass: Accessibility) -> ItemQuery {
        ItemQuery(.genericPassword, attributes: [.account: .string("item-\(keyClass.rawValue)")])
    }

    static func secret(_ keyClass: Accessibility) -> SecretData {
        SecretData(string: "secret-\(keyClass.rawValue)")
    }

    /// A closed keychain (passphrase slot) holding one item per accessibility class.
    static func keychainWithEveryClass(credentials: [UnlockCredential]? = nil) throws -> TemporaryKeychain {
        let keychain = TemporaryKeychain()
        let store = try keychain.open(credentials: credentials)
        for keyClass in Accessibility.allCases {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("item-\(keyClass.rawValue)"), .accessible: .string(keyClass.rawValue)],
                data: secret(keyClass)
            )
        }
        try store.close()
        return keychain
    }

    static func expectReadable(
        _ store: KeychainStore,
        _ keyClass: Accessibility,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let found = try store.findOne(query(keyClass), withData: true)
            #expect(found.data == secret(keyClass), "\(keyClass.rawValue)", sourceLocation: sourceLocation)
            #expect(found.attributes[.accessible] == .string(keyClass.rawValue), sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(keyClass.rawValue) should be readable: \(error)", sourceLocation: sourceLocation)
        }
    }

    static func expectUnreadable(
        _ store: KeychainStore,
        _ keyClass: Accessibility,
        withData: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: KeychainError.self, "\(keyClass.rawValue)", sourceLocation: sourceLocation) {
            try store.findOne(query(keyClass), withData: withData)
        }
        #expect(error?.code == .interactionNotAllowed, "\(keyClass.rawValue)", sourceLocation: sourceLocation)
        #expect(error?.code.rawValue == -25308, sourceLocation: sourceLocation)
    }

    static let neverUnlockedReadable: Set<Accessibility> = [.always, .alwaysThisDeviceOnly]
    static let lockedReadable: Set<Accessibility> = [
        .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly, .always, .alwaysThisDeviceOnly,
    ]

    @Test(arguments: Accessibility.allCases)
    func beforeTheFirstUnlockOnlyAlwaysClassesAreReadable(keyClass: Accessibility) throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open(credentials: [])
        #expect(store.lockState == .neverUnlocked)
        if Self.neverUnlockedReadable.contains(keyClass) {
            Self.expectReadable(store, keyClass)
        } else {
            Self.expectUnreadable(store, keyClass)
            Self.expectUnreadable(store, keyClass, withData: false)  // even attributes stay locked
        }
    }

    @Test func afterUnlockEveryClassIsReadable() throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open(credentials: [])
        try store.unlock(with: .passphrase(keychain.passphrase))
        #expect(store.lockState == .unlocked)
        for keyClass in Accessibility.allCases { Self.expectReadable(store, keyClass) }
        #expect(try store.find(ItemQuery(.genericPassword), limit: .all).count == Accessibility.allCases.count)
    }

    @Test(arguments: Accessibility.allCases)
    func afterLockOnlyAfterFirstUnlockAndAlwaysClassesAreReadable(keyClass: Accessibility) throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open()
        store.lock()
        #expect(store.lockState == .locked)
        if Self.lockedReadable.contains(keyClass) {
            Self.expectReadable(store, keyClass)
        } else {
            Self.expectUnreadable(store, keyClass)
            Self.expectUnreadable(store, keyClass, withData: false)
        }
    }

    @Test(arguments: Accessibility.allCases)
    func addingWhileLockedNeedsTheClassKey(keyClass: Accessibility) throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open()
        store.lock()
        let attributes: [AttributeName: AttributeValue] = [
            .account: .string("new-\(keyClass.rawValue)"), .accessible: .string(keyClass.rawValue),
        ]
        if Self.lockedReadable.contains(keyClass) {
            try store.add(.genericPassword, attributes: attributes, data: SecretData(string: "n"))
            #expect(
                try store.findOne(
                    ItemQuery(.genericPassword, attributes: [.account: .string("new-\(keyClass.rawValue)")])
                ).attributes[.accessible] == .string(keyClass.rawValue)
            )
        } else {
            expectKeychainError(.interactionNotAllowed) {
                try store.add(.genericPassword, attributes: attributes, data: SecretData(string: "n"))
            }
        }
    }

    /// Encryption happens before the insert, so a locked class reports -25308 even for a duplicate.
    @Test(arguments: [Accessibility.whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly])
    func addingALockedDuplicateIsInteractionNotAllowedNotDuplicate(keyClass: Accessibility) throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open()
        let duplicate: [AttributeName: AttributeValue] = [
            .account: .string("item-\(keyClass.rawValue)"), .accessible: .string(keyClass.rawValue),
        ]
        expectKeychainError(.duplicateItem) { try store.add(.genericPassword, attributes: duplicate, data: nil) }
        store.lock()
        expectKeychainError(.interactionNotAllowed) {
            try store.add(.genericPassword, attributes: duplicate, data: nil)
        }
    }

    @Test func aQueryTouchingOneLockedRowFailsAsAWhole() throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open()
        store.lock()
        expectKeychainError(.interactionNotAllowed) { try store.find(ItemQuery(.genericPassword), limit: .all) }
        expectKeychainError(.interactionNotAllowed) { try store.delete(ItemQuery(.genericPassword)) }
        expectKeychainError(.interactionNotAllowed) {
            try store.update(ItemQuery(.genericPassword), with: ItemChanges(attributes: [.label: .string("x")]))
        }
        // Filtering on the accessibility (a plain column) avoids the locked rows.
        let readable = try store.find(
            ItemQuery(.genericPassword, attributes: [.accessible: .string("ck")]),
            limit: .all,
            withData: true
        )
        #expect(readable.map(\.data) == [Self.secret(.afterFirstUnlock)])
        // Nothing was deleted or changed by the failed calls.
        try store.unlock(with: .passphrase(keychain.passphrase))
        let all = try store.find(ItemQuery(.genericPassword), limit: .all)
        #expect(all.count == Accessibility.allCases.count)
        #expect(all.allSatisfy { $0.attributes[.label] == nil })
    }

    @Test func integrityCheckCountsLockedItemsInsteadOfFailing() throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open()
        store.lock()
        let report = try store.verifyIntegrity()
        #expect(report.isSound)
        #expect(report.locked == 3)  // ak, aku, akpu
        #expect(report.verified == Accessibility.allCases.count - 3)
    }

    @Test func lockForgetsTheMasterKeyAndUnlockRestoresEverything() throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open()
        store.lock()
        store.lock()  // idempotent
        #expect(store.lockState == .locked)
        try store.unlock(with: .passphrase(keychain.passphrase))
        for keyClass in Accessibility.allCases { Self.expectReadable(store, keyClass) }
    }

    @Test func passcodeOnlyItemsNeedAPassphraseSlot() throws {
        let keychain = TemporaryKeychain()
        let keyFile = try UnlockCredential.createKeyFile(at: keychain.directory + "/key")
        let store = try keychain.open(credentials: [keyFile])
        let error = expectKeychainError(.authFailed) {
            try store.add(
                .genericPassword,
                attributes: [.account: .string("p"), .accessible: .string("akpu")],
                data: SecretData(string: "x")
            )
        }
        #expect(error?.code.rawValue == -25293)
        // The other device-bound classes work with a key file alone.
        try store.add(
            .genericPassword,
            attributes: [.account: .string("u"), .accessible: .string("aku")],
            data: SecretData(string: "y")
        )
        expectKeychainError(.itemNotFound) {
            try store.findOne(ItemQuery(.genericPassword, attributes: [.account: .string("p")]))
        }
    }

    @Test(arguments: Accessibility.allCases)
    func onAnotherMachineOnlyPortableClassesOpen(keyClass: Accessibility) throws {
        let keychain = try Self.keychainWithEveryClass()
        let otherDevice = keychain.directory + "/other-machine-device-secret"
        let store = try keychain.open(deviceSecretPath: otherDevice)
        #expect(store.lockState == .unlocked)
        if keyClass.isThisDeviceOnly {
            // An error, never the wrong data.
            let error = #expect(throws: KeychainError.self, "\(keyClass.rawValue)") {
                try store.findOne(Self.query(keyClass), withData: true)
            }
            #expect(error?.code == .interactionNotAllowed, "\(keyClass.rawValue): \(String(describing: error))")
        } else {
            Self.expectReadable(store, keyClass)
        }
    }

    @Test func onAnotherMachineNothingOpensWithoutThePassphrase() throws {
        let keychain = try Self.keychainWithEveryClass()
        let store = try keychain.open(credentials: [], deviceSecretPath: keychain.directory + "/other-device-secret")
        #expect(store.lockState == .neverUnlocked)
        for keyClass in Accessibility.allCases {
            expectKeychainError(.interactionNotAllowed, "\(keyClass.rawValue)") {
                try store.findOne(Self.query(keyClass), withData: true)
            }
        }
    }

    @Test func thisDeviceOnlyItemsStillOpenOnTheOriginalMachineAfterVisitingAnother() throws {
        let keychain = try Self.keychainWithEveryClass()
        let foreign = try keychain.open(deviceSecretPath: keychain.directory + "/other-device-secret")
        try foreign.add(
            .genericPassword,
            attributes: [.account: .string("added-elsewhere")],
            data: SecretData(string: "e")
        )
        try foreign.close()
        let home = try keychain.open()
        for keyClass in Accessibility.allCases { Self.expectReadable(home, keyClass) }
        #expect(
            try home.findOne(
                ItemQuery(.genericPassword, attributes: [.account: .string("added-elsewhere")]),
                withData: true
            )
            .data == SecretData(string: "e")
        )
    }
}
