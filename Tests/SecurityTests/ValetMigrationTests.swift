#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// Valet's `migrateObjects(matching:removeOnCompletion:)` (square/Valet, Sources/Valet/Internal/Keychain.swift),
/// replayed query for query through `SecItem*`: its `kSecMatchLimitAll` search (attributes and persistent
/// references, `kSecReturnData`/`kSecReturnRef` given as `false`) must see every matching item, as on iOS, so
/// that two generic passwords with the same account in two services are a `duplicateKeyToMigrate`.
struct ValetMigrationTests {
    /// Valet's `MigrationError` cases this flow can throw.
    enum MigrationError: Error, Equatable {
        case invalidQuery, dataToMigrateInvalid, keyToMigrateInvalid, duplicateKeyToMigrate
        case keyToMigrateAlreadyExistsInValet, couldNotAccessKeychain, itemNotFound
        case status(OSStatus)
    }

    /// Valet's `SecItem.copy(matching:)`: the result cast to the type the caller expects.
    static func copy<Desired>(_ query: [String: AnyHashable]) throws -> Desired {
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { throw MigrationError.itemNotFound }
        guard status == errSecSuccess else { throw MigrationError.status(status) }
        guard let result = result as? Desired else { throw MigrationError.itemNotFound }
        return result
    }

    /// Valet's `Keychain.performCopy(forKey:options:)`.
    static func performCopy(forKey key: String, options: [String: AnyHashable]) -> OSStatus {
        var query = options
        query[kSecAttrAccount as String] = key
        return SecItemCopyMatching(query as CFDictionary, nil)
    }

    /// The search of Valet's `migrateObjects(matching:into:compactMap:)`, with its exact keys.
    static func migrationSearch(_ query: [String: AnyHashable]) -> [String: AnyHashable] {
        var search = query
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        search[kSecReturnAttributes as String] = true
        search[kSecReturnData as String] = false
        search[kSecReturnRef as String] = false
        search[kSecReturnPersistentRef as String] = true
        return search
    }

    /// Valet's `migrateObjects(matching:into:removeOnCompletion:)` with the identity key mapping, step by step:
    /// the search, one data read per persistent reference, the sanity checks, the writes, the removal.
    static func migrateObjects(
        matching query: [String: AnyHashable],
        into destination: [String: AnyHashable],
        removeOnCompletion: Bool
    ) throws {
        let collection: Any = try copy(migrationSearch(query))
        let retrieved: [[String: AnyHashable]]
        if let single = collection as? [String: AnyHashable] {
            retrieved = [single]
        } else if let multiple = collection as? [[String: AnyHashable]] {
            retrieved = multiple
        } else {
            throw MigrationError.dataToMigrateInvalid
        }
        var withData: [[String: AnyHashable]] = []
        for item in retrieved {
            guard let reference = item[kSecValuePersistentRef as String] else {
                throw MigrationError.couldNotAccessKeychain
            }
            let dataQuery: [String: AnyHashable] = [
                kSecValuePersistentRef as String: reference,
                kSecReturnData as String: true,
            ]
            do {
                let data: Data = try copy(dataQuery)
                guard !data.isEmpty else { throw MigrationError.dataToMigrateInvalid }
                var complete = item
                complete[kSecValueData as String] = data
                withData.append(complete)
            } catch MigrationError.itemNotFound {
                continue
            }
        }
        var pairs: [String: Data] = [:]
        for entry in withData {
            guard let key = entry[kSecAttrAccount as String] as? String else {
                throw MigrationError.keyToMigrateInvalid
            }
            guard let data = entry[kSecValueData as String] as? Data else { throw MigrationError.dataToMigrateInvalid }
            guard !key.isEmpty else { throw MigrationError.keyToMigrateInvalid }
            guard pairs[key] == nil else { throw MigrationError.duplicateKeyToMigrate }
            guard performCopy(forKey: key, options: destination) == errSecItemNotFound else {
                throw MigrationError.keyToMigrateAlreadyExistsInValet
            }
            pairs[key] = data
        }
        for (key, value) in pairs {
            var item = destination
            item[kSecAttrAccount as String] = key
            item[kSecValueData as String] = value
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw MigrationError.status(status) }
        }
        if removeOnCompletion {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw MigrationError.status(status) }
        }
    }

    /// A Valet's base query (`Valet.valet(with:accessibility:)` on iOS).
    static var valet: [String: AnyHashable] {
        [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String:
                "VAL_VALET_initWithIdentifier:accessibility:_com.example.valet_AccessibleWhenUnlocked",
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked as String,
        ]
    }

    static func addLegacy(service: String, account: String, secret: String) {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecValueData as String: Data(secret.utf8),
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
    }

    /// The migration queries: every generic password, and those of one account.
    enum Query: CaseIterable, Sendable {
        case wholeClass, oneAccount

        var dictionary: [String: AnyHashable] {
            switch self {
            case .wholeClass: [kSecClass as String: kSecClassGenericPassword as String]
            case .oneAccount:
                [kSecClass as String: kSecClassGenericPassword as String, kSecAttrAccount as String: "token"]
            }
        }
    }

    @Test(arguments: Query.allCases, [false, true])
    func migrationSearchSeesBothItemsWithTheSameAccount(_ query: Query, throughWire: Bool) throws {
        try Self.withKeychain(throughWire: throughWire) {
            Self.addLegacy(service: "legacy.one", account: "token", secret: "one")
            Self.addLegacy(service: "legacy.two", account: "token", secret: "two")
            let collection: Any = try Self.copy(Self.migrationSearch(query.dictionary))
            let items = try #require(collection as? [[String: AnyHashable]], "an array of attribute dictionaries")
            #expect(items.count == 2)
            #expect(Set(items.compactMap { $0[kSecAttrService as String] as? String }) == ["legacy.one", "legacy.two"])
            #expect(items.allSatisfy { $0[kSecValuePersistentRef as String] as? Data != nil })
            // Valet then reads each item's data by its persistent reference alone.
            for item in items {
                let reference = try #require(item[kSecValuePersistentRef as String])
                let data: Data = try Self.copy([
                    kSecValuePersistentRef as String: reference, kSecReturnData as String: true,
                ])
                #expect(!data.isEmpty)
            }
        }
    }

    /// The path of a process served by the agent: every operation and answer goes through the agent
    /// protocol's codec (`KeychainWireCodec`) to a store scoped to the caller's groups, as over the socket.
    struct WireLoopback: KeychainService {
        let store: KeychainStore

        func perform(_ operation: KeychainOperation) throws(KeychainError) -> KeychainOutcome {
            let request = try KeychainWireCodec.decodeOperation(KeychainWireCodec.encode(operation))
            let result: Result<KeychainOutcome, KeychainError>
            do {
                result = .success(try store.perform(request))
            } catch {
                result = .failure(error)
            }
            return try KeychainWireCodec.decodeOutcome(KeychainWireCodec.encode(result))
        }
    }

    /// Runs `body` with `SecItem*` going to a fresh keychain directly, or through the agent's codec.
    static func withKeychain(throughWire: Bool, _ body: () throws -> Void) throws {
        try withTemporaryKeychain { store in
            guard throughWire else { return try body() }
            // Scoped to the process's groups, as the agent serves a client.
            let scoped = store.scoped(accessGroups: ["com.example.app", "com.example.shared"])
            let context = KeychainContext(service: WireLoopback(store: scoped), verifyPassphrase: { _ in false })
            try KeychainContext.with(context) { try body() }
        }
    }

    @Test(arguments: Query.allCases, [false, true])
    func migratingTwoServicesWithTheSameAccountIsADuplicateKey(_ query: Query, throughWire: Bool) throws {
        try Self.withKeychain(throughWire: throughWire) {
            Self.addLegacy(service: "legacy.one", account: "token", secret: "one")
            Self.addLegacy(service: "legacy.two", account: "token", secret: "two")
            #expect(throws: MigrationError.duplicateKeyToMigrate) {
                try Self.migrateObjects(matching: query.dictionary, into: Self.valet, removeOnCompletion: true)
            }
            // Nothing migrated, nothing removed.
            #expect(Self.performCopy(forKey: "token", options: Self.valet) == errSecItemNotFound)
            var legacy: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
            legacy[kSecAttrService as String] = "legacy.one"
            #expect(Sec.count(legacy) == 1)
        }
    }

    @Test(arguments: [false, true])
    func migratingMovesTheItemsAndRemovesTheOriginals(throughWire: Bool) throws {
        try Self.withKeychain(throughWire: throughWire) {
            Self.addLegacy(service: "legacy.one", account: "token", secret: "one")
            Self.addLegacy(service: "legacy.two", account: "refresh", secret: "two")
            let two: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword as String, kSecAttrService as String: "legacy.two",
            ]
            try Self.migrateObjects(matching: two, into: Self.valet, removeOnCompletion: true)
            var read = Self.valet
            read[kSecAttrAccount as String] = "refresh"
            read[kSecReturnData as String] = true
            let data: Data = try Self.copy(read)
            #expect(data == Data("two".utf8))
            #expect(Sec.count(two as [String: Any]) == 0, "the original was removed")

            let one: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword as String, kSecAttrService as String: "legacy.one",
            ]
            try Self.migrateObjects(matching: one, into: Self.valet, removeOnCompletion: false)
            #expect(Sec.count(one as [String: Any]) == 1, "kept when not asked to remove")
            #expect(throws: MigrationError.keyToMigrateAlreadyExistsInValet, "a key the Valet holds is refused") {
                try Self.migrateObjects(matching: one, into: Self.valet, removeOnCompletion: true)
            }
        }
    }
}
#endif
