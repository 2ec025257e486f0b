#if !canImport(Darwin)
import Foundation
import Latchkey
import LatchkeySecurity
import Testing

/// Issue 13's Apple fidelity gaps: popular iOS keychain wrappers, called exactly as their sources call
/// `Security` (the dictionaries, the casts, the comparisons), must behave as on an iPhone.
///
/// Each `Wrapper*` helper below restates the few lines of the wrapper it names; the tests drive them
/// against a temporary keychain.
struct WrapperFidelityTests {
    // MARK: (a) Data accounts listed through `[[AnyHashable: Any]]`

    /// SwiftKeychainWrapper stores `kSecAttrAccount` as `Data` and lists its keys with `kSecMatchLimitAll` +
    /// `kSecReturnAttributes`, casting to `[[AnyHashable: Any]]` and reading the account with the `CFString`
    /// constant (its `String!` key finds nothing, on Apple too).
    @Test func dataAccountsAreListedThroughAnyHashableResults() throws {
        try withTemporaryKeychain { _ in
            let wrapper = WrapperSwiftKeychainWrapper(serviceName: "com.example.skw")
            #expect(wrapper.set(Data("one".utf8), forKey: "first"))
            #expect(wrapper.set(Data("two".utf8), forKey: "second"))
            #expect(wrapper.set(Data("three".utf8), forKey: "second"))  // duplicate → update
            #expect(wrapper.data(forKey: "second") == Data("three".utf8))
            #expect(wrapper.allKeys() == ["first", "second"])
        }
    }

    /// The same listing cast to `[[String: Any]]` (KeychainAccess, SimpleKeychain) and read with `as? Data`.
    @Test func dataAccountsAreListedThroughStringKeyedResults() throws {
        try withTemporaryKeychain { _ in
            let wrapper = WrapperSwiftKeychainWrapper(serviceName: "com.example.skw")
            #expect(wrapper.set(Data("one".utf8), forKey: "first"))
            var result: AnyObject?
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "com.example.skw",
                kSecReturnAttributes as String: kCFBooleanTrue!,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let items = try #require(result as? [[String: Any]])
            let keys = items.compactMap {
                ($0[kSecAttrAccount as String] as? Data).flatMap { String(decoding: $0, as: UTF8.self) }
            }
            #expect(keys == ["first"])
            let anyHashableItems = try #require(result as? [[AnyHashable: Any]])
            #expect(anyHashableItems.first?[kSecAttrGeneric] as? Data == Data("first".utf8))
        }
    }

    // MARK: (b) Query values compared with the base query's

    /// SimpleKeychain's own suite checks each query it builds against its base query with
    /// `NSDictionary(dictionary: lhs).isEqual(to: rhs)`; the values are `kSecClassGenericPassword`,
    /// `kCFBooleanTrue`, `kSecMatchLimitAll`, Swift `String`s and `Data`.
    @Test func queriesContainTheBaseQueryWhenComparedAsObjects() throws {
        let keychain = WrapperSimpleKeychain(service: "com.example.simple", isSynchronizable: true)
        #expect(keychain.getAllQuery.containsBaseQuery(keychain.baseQuery()))
        #expect(keychain.getOneQuery(byKey: "k").containsBaseQuery(keychain.baseQuery(withKey: "k")))
        let data = Data("v".utf8)
        #expect(
            keychain.setQuery(forKey: "k", data: data).containsBaseQuery(keychain.baseQuery(withKey: "k", data: data))
        )
    }

    /// The constants compare equal to their Swift spellings wherever values are type-erased to `AnyHashable`
    /// (Valet builds its queries as `[String: AnyHashable]` with `kSecClassGenericPassword as String` and
    /// `true`; callers hand it queries built with the `CFString` constants and `kCFBooleanTrue`).
    @Test func constantsEqualTheirSwiftSpellingsAsAnyHashable() {
        let valetBase: [String: AnyHashable] = [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecUseDataProtectionKeychain as String: true,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked as String,
            kSecAttrGeneric as String: Data("g".utf8),
        ]
        let callerQuery: [String: AnyHashable] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecUseDataProtectionKeychain as String: kCFBooleanTrue,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
            kSecAttrGeneric as String: NSData(data: Data("g".utf8)),
        ]
        #expect(callerQuery == valetBase)
        #expect(AnyHashable(kCFBooleanFalse) == AnyHashable(false))
        #expect(AnyHashable(kCFBooleanTrue) != AnyHashable(1 as Int))
        #expect(AnyHashable(NSNumber(value: 42)) == AnyHashable(42))
        #expect(AnyHashable(kSecMatchLimitAll).base is String)
    }

    /// Attributes read back compare equal to the query values the wrapper stored them with.
    @Test func readAttributesEqualTheBaseQuerysValues() throws {
        try withTemporaryKeychain { _ in
            let keychain = WrapperSimpleKeychain(service: "com.example.simple", isSynchronizable: true)
            try keychain.set(Data("v".utf8), forKey: "k")
            var query = keychain.baseQuery(withKey: "k")
            query[kSecReturnAttributes as String] = kCFBooleanTrue
            var result: AnyObject?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let attributes = try #require(result as? [String: AnyHashable])
            let base = keychain.baseQuery(withKey: "k")
            for key in [kSecAttrService, kSecAttrAccount] {
                #expect(attributes[key as String] == base[key as String] as? AnyHashable)
            }
            #expect(attributes[kSecAttrSynchronizable as String] as? Bool == true)
            #expect(attributes[kSecAttrAccessible as String] == AnyHashable(kSecAttrAccessibleAfterFirstUnlock))
            #expect(try keychain.keys() == ["k"])
        }
    }

    // MARK: (c) Non-UTF-8 data read as a string

    /// keychain-swift's `get` sets `lastResultCode = -67853` (errSecInvalidEncoding) when the data is not UTF-8;
    /// SimpleKeychain throws its "Unable to convert" error; Valet throws `itemNotFound`; SwiftKeychainWrapper
    /// returns `nil` while `data(forKey:)` returns the bytes.
    @Test func nonUTF8DataReachesEachWrappersConversionError() throws {
        let bytes = Data([0x63, 0x61, 0x66, 0xE9, 0xFF])  // "caf" + Latin-1 é + 0xFF
        try withTemporaryKeychain { _ in
            let swift = WrapperKeychainSwift()
            #expect(swift.set(bytes, forKey: "latin1"))
            #expect(swift.get("latin1") == nil)
            #expect(swift.lastResultCode == -67853)
            #expect(swift.getData("latin1") == bytes)

            let simple = WrapperSimpleKeychain(service: "com.example.simple")
            try simple.set(Data("plain".utf8), forKey: "latin1")
            try simple.set(bytes, forKey: "latin1")  // duplicate → SecItemUpdate
            #expect(throws: WrapperSimpleKeychain.Failure.cannotConvertToString) { try simple.string(forKey: "latin1") }

            let valet = WrapperValet(identifier: "latin1")
            try WrapperValet.setObject(bytes, forKey: "latin1", options: valet.baseKeychainQuery)
            #expect(throws: WrapperValet.Failure.itemNotFound) { try valet.string(forKey: "latin1") }

            let skw = WrapperSwiftKeychainWrapper(serviceName: "com.example.skw")
            #expect(skw.set(bytes, forKey: "latin1"))
            #expect(skw.string(forKey: "latin1") == nil)
            #expect(skw.data(forKey: "latin1") == bytes)
        }
    }

    /// KeychainAccess's own `testStringConversionError`: 256 bytes from `SecRandomCopyBytes` into an
    /// `NSMutableData`, stored (add, then update) and read with `getString`, which must throw
    /// `Status.conversionError` both times.
    @Test func randomBytesGiveKeychainAccessTheConversionError() throws {
        try withTemporaryKeychain { _ in
            let keychain = WrapperKeychainAccess(service: "Twitter")
            let length = 256
            let data = try #require(NSMutableData(length: length))
            let bytes = data.mutableBytes.bindMemory(to: UInt8.self, capacity: length)
            #expect(SecRandomCopyBytes(kSecRandomDefault, length, bytes) == errSecSuccess)
            for _ in 0..<2 {
                try keychain.set(data as Data, key: "RandomData")
                #expect(throws: WrapperKeychainAccess.Status.conversionError) { try keychain.getString("RandomData") }
            }
            #expect(try keychain.getData("RandomData") == data as Data)
        }
    }

    /// A reader in SwiftKeychainWrapper's style (attributes and data in one call, the result cast to
    /// `[AnyHashable: Any]`, values read with the `CFString` constants) must reach its conversion error,
    /// not its "no data" path.
    @Test func nonUTF8DataReadThroughAnyHashableReachesTheConversionError() throws {
        try withTemporaryKeychain { _ in
            let skw = WrapperSwiftKeychainWrapper(serviceName: "com.example.skw")
            #expect(skw.set(Data([0xC3, 0x28]), forKey: "invalid"))  // an invalid two-byte sequence
            #expect(skw.set(Data("fine".utf8), forKey: "valid"))
            #expect(skw.stringWithAttributes(forKey: "invalid") == .conversionError)
            #expect(skw.stringWithAttributes(forKey: "valid") == .value("fine"))
            #expect(skw.stringWithAttributes(forKey: "absent") == .notFound)
        }
    }

    // MARK: (d) Migrations that must stop on a conflicting key

    /// Valet's `migrateObjects(from:removeOnCompletion:)`: reads the source's attributes and persistent refs,
    /// then each item's data by persistent ref, and must throw `keyToMigrateAlreadyExistsInValet` without
    /// touching either Valet when the destination already holds a key.
    @Test func valetMigrationStopsOnAKeyTheDestinationHolds() throws {
        try withTemporaryKeychain { _ in
            let source = WrapperValet(identifier: "source")
            let destination = WrapperValet(identifier: "destination")
            try source.setString("from-source", forKey: "token")
            try source.setString("only-in-source", forKey: "other")
            try destination.setString("from-destination", forKey: "token")
            #expect(throws: WrapperValet.Failure.keyToMigrateAlreadyExistsInValet) {
                try destination.migrateObjects(from: source, removeOnCompletion: true)
            }
            #expect(try destination.string(forKey: "token") == "from-destination")
            #expect(try destination.allKeys() == ["token"])
            #expect(try source.allKeys() == ["token", "other"])
        }
    }

    /// Without a conflict the same migration moves every item and removes the source's.
    @Test func valetMigrationWithoutConflictMovesEveryItem() throws {
        try withTemporaryKeychain { _ in
            let source = WrapperValet(identifier: "source")
            let destination = WrapperValet(identifier: "destination")
            try source.setString("a", forKey: "first")
            try source.setString("b", forKey: "second")
            try destination.migrateObjects(from: source, removeOnCompletion: true)
            #expect(try destination.string(forKey: "first") == "a")
            #expect(try destination.string(forKey: "second") == "b")
            #expect(try source.allKeys().isEmpty)
        }
    }

    /// Valet's `test_migrateObjectsMatching_bailsOutIfConflictExistsToMigrate`: a `[class, account]` query that
    /// matches one key in two Valets must throw `duplicateKeyToMigrate`.
    @Test func valetMigrationStopsOnAKeyTheSourceHoldsTwice() throws {
        try withTemporaryKeychain { _ in
            let migrationValet = WrapperValet(identifier: "Migrate_Me")
            try WrapperValet(identifier: "vanilla").setString("12345", forKey: "key")
            try WrapperValet(identifier: "another").setString("12345", forKey: "key")
            let conflictingQuery = [
                kSecClass as String: kSecClassGenericPassword as String,
                kSecAttrAccount as String: "key",
            ]
            #expect(throws: WrapperValet.Failure.duplicateKeyToMigrate) {
                try migrationValet.migrateObjects(matching: conflictingQuery, removeOnCompletion: false)
            }
            #expect(try migrationValet.allKeys().isEmpty)
        }
    }

    /// Valet's `test_migrateObjectsMatching_withAccountNameAsData_raisesException`: a source whose accounts
    /// are `Data` (SwiftKeychainWrapper's layout) cannot be migrated key by key: `keyToMigrateInvalid`.
    @Test func valetMigrationRefusesDataAccounts() throws {
        try withTemporaryKeychain { _ in
            let identifier = "Keychain_With_Account_Name_As_NSData"
            let passcodeData = Data("12345".utf8)
            let keychainData: CFDictionary =
                [
                    kSecAttrService: identifier,
                    kSecClass: kSecClassGenericPassword,
                    kSecAttrAccount: passcodeData,
                    kSecValueData: passcodeData,
                ] as CFDictionary
            SecItemDelete(keychainData)
            #expect(SecItemAdd(keychainData, nil) == errSecSuccess)
            let query: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: identifier,
            ]
            #expect(throws: WrapperValet.Failure.keyToMigrateInvalid) {
                try WrapperValet(identifier: "vanilla").migrateObjects(matching: query, removeOnCompletion: false)
            }
        }
    }

    /// Moving SwiftKeychainWrapper items to a new service name, as its users write it (`allKeys()`, then
    /// `hasValue(forKey:)` on the destination for each key, then `removeAllKeys()` on the source), must stop
    /// on the key both hold and leave both untouched.
    @Test func swiftKeychainWrapperMigrationSeesTheConflictingKey() throws {
        try withTemporaryKeychain { _ in
            let source = WrapperSwiftKeychainWrapper(serviceName: "com.example.old")
            let destination = WrapperSwiftKeychainWrapper(serviceName: "com.example.new")
            #expect(source.set(Data("old".utf8), forKey: "token"))
            #expect(source.set(Data("kept".utf8), forKey: "other"))
            #expect(destination.set(Data("new".utf8), forKey: "token"))
            #expect(throws: WrapperSwiftKeychainWrapper.MigrationConflict(key: "token")) {
                try destination.migrate(from: source)
            }
            #expect(source.data(forKey: "token") == Data("old".utf8))
            #expect(source.data(forKey: "other") == Data("kept".utf8))
            #expect(destination.data(forKey: "token") == Data("new".utf8))
            #expect(destination.data(forKey: "other") == nil)
        }
    }

    /// A KeychainAccess-style migration: `allItems()` (attributes + data, `kSecMatchLimitAll`, cast to
    /// `[[String: Any]]`), then `contains(key)` on the destination for each key, failing on the first hit.
    @Test func keychainAccessMigrationSeesTheConflictingKey() throws {
        try withTemporaryKeychain { _ in
            let source = WrapperKeychainAccess(service: "com.example.old")
            let destination = WrapperKeychainAccess(service: "com.example.new")
            try source.set(Data("old".utf8), key: "token")
            try destination.set(Data("new".utf8), key: "token")
            let items = source.allItems()
            #expect(items.count == 1)
            var conflicts: [String] = []
            for item in items {
                let key = try #require(item["key"] as? String)
                #expect(item["value"] as? String == "old")
                if try destination.contains(key) { conflicts.append(key) }
            }
            #expect(conflicts == ["token"])
        }
    }
}

/// SwiftKeychainWrapper 4.0 (`KeychainWrapper.swift`): keys as IUO `String`s, account and generic as
/// UTF-8 `Data`, `kCFBooleanFalse` for synchronizable.
private struct WrapperSwiftKeychainWrapper {
    private static let secClass: String! = kSecClass as String
    private static let secAttrService: String! = kSecAttrService as String
    private static let secAttrGeneric: String! = kSecAttrGeneric as String
    private static let secAttrAccount: String! = kSecAttrAccount as String
    private static let secAttrAccessible: String! = kSecAttrAccessible as String
    private static let secAttrSynchronizable: String = kSecAttrSynchronizable as String
    private static let secValueData: String! = kSecValueData as String
    private static let secMatchLimit: String! = kSecMatchLimit as String
    private static let secReturnData: String! = kSecReturnData as String
    private static let secReturnAttributes: String = kSecReturnAttributes as String

    let serviceName: String

    func allKeys() -> Set<String> {
        let keychainQueryDictionary: [String: Any] = [
            Self.secClass: kSecClassGenericPassword,
            Self.secAttrService: serviceName,
            Self.secReturnAttributes: kCFBooleanTrue!,
            Self.secMatchLimit: kSecMatchLimitAll,
        ]
        var result: AnyObject?
        let status = SecItemCopyMatching(keychainQueryDictionary as CFDictionary, &result)
        guard status == errSecSuccess else { return [] }
        var keys = Set<String>()
        if let results = result as? [[AnyHashable: Any]] {
            for attributes in results {
                if let accountData = attributes[Self.secAttrAccount] as? Data,
                    let key = String(data: accountData, encoding: String.Encoding.utf8)
                {
                    keys.insert(key)
                } else if let accountData = attributes[kSecAttrAccount] as? Data,
                    let key = String(data: accountData, encoding: String.Encoding.utf8)
                {
                    keys.insert(key)
                }
            }
        }
        return keys
    }

    func data(forKey key: String) -> Data? {
        var keychainQueryDictionary = setupKeychainQueryDictionary(forKey: key)
        keychainQueryDictionary[Self.secMatchLimit] = kSecMatchLimitOne
        keychainQueryDictionary[Self.secReturnData] = kCFBooleanTrue
        var result: AnyObject?
        let status = SecItemCopyMatching(keychainQueryDictionary as CFDictionary, &result)
        return status == noErr ? result as? Data : nil
    }

    func string(forKey key: String) -> String? {
        guard let keychainData = data(forKey: key) else { return nil }
        return String(data: keychainData, encoding: String.Encoding.utf8) as String?
    }

    func hasValue(forKey key: String) -> Bool { data(forKey: key) != nil }

    @discardableResult
    func removeAllKeys() -> Bool {
        var keychainQueryDictionary: [String: Any] = [Self.secClass: kSecClassGenericPassword]
        keychainQueryDictionary[Self.secAttrService] = serviceName
        return SecItemDelete(keychainQueryDictionary as CFDictionary) == errSecSuccess
    }

    /// What a reader of attributes and data in one call finds.
    enum Read: Equatable { case value(String), notFound, conversionError }

    /// Attributes and data in one call, read like `allKeys()` reads its results.
    func stringWithAttributes(forKey key: String) -> Read {
        var keychainQueryDictionary = setupKeychainQueryDictionary(forKey: key)
        keychainQueryDictionary[Self.secMatchLimit] = kSecMatchLimitOne
        keychainQueryDictionary[Self.secReturnAttributes] = kCFBooleanTrue
        keychainQueryDictionary[Self.secReturnData] = kCFBooleanTrue
        var result: AnyObject?
        guard SecItemCopyMatching(keychainQueryDictionary as CFDictionary, &result) == noErr,
            let attributes = result as? [AnyHashable: Any], let data = attributes[kSecValueData] as? Data
        else { return .notFound }
        return String(data: data, encoding: .utf8).map(Read.value) ?? .conversionError
    }

    /// A key both wrappers hold.
    struct MigrationConflict: Error, Equatable { let key: String }

    /// Its users' service-rename migration: list, check every key, copy, then clear the source.
    func migrate(from source: WrapperSwiftKeychainWrapper) throws {
        let keys = source.allKeys()
        for key in keys where hasValue(forKey: key) { throw MigrationConflict(key: key) }
        for key in keys {
            guard let value = source.data(forKey: key) else { continue }
            set(value, forKey: key)
        }
        source.removeAllKeys()
    }

    @discardableResult
    func set(_ value: Data, forKey key: String) -> Bool {
        var keychainQueryDictionary: [String: Any] = setupKeychainQueryDictionary(forKey: key)
        keychainQueryDictionary[Self.secValueData] = value
        keychainQueryDictionary[Self.secAttrAccessible] = kSecAttrAccessibleWhenUnlocked
        let status: OSStatus = SecItemAdd(keychainQueryDictionary as CFDictionary, nil)
        if status == errSecSuccess { return true }
        guard status == errSecDuplicateItem else { return false }
        let updateDictionary = [Self.secValueData: value]
        return SecItemUpdate(
            setupKeychainQueryDictionary(forKey: key) as CFDictionary,
            updateDictionary as CFDictionary
        )
            == errSecSuccess
    }

    private func setupKeychainQueryDictionary(forKey key: String, isSynchronizable: Bool = false) -> [String: Any] {
        var keychainQueryDictionary: [String: Any] = [Self.secClass: kSecClassGenericPassword]
        keychainQueryDictionary[Self.secAttrService] = serviceName
        let encodedIdentifier: Data? = key.data(using: String.Encoding.utf8)
        keychainQueryDictionary[Self.secAttrGeneric] = encodedIdentifier
        keychainQueryDictionary[Self.secAttrAccount] = encodedIdentifier
        keychainQueryDictionary[Self.secAttrSynchronizable] = isSynchronizable ? kCFBooleanTrue : kCFBooleanFalse
        return keychainQueryDictionary
    }
}

/// SimpleKeychain 1.x (`SimpleKeychain.swift`, and the `containsBaseQuery`/`==` of its test suite).
private struct WrapperSimpleKeychain {
    enum Failure: Error, Equatable {
        case status(OSStatus), cannotCastToData, cannotCastToArray, cannotConvertToString
    }

    let service: String
    var isSynchronizable = false
    var attributes: [String: Any] = [:]
    var accessibility: CFString = kSecAttrAccessibleAfterFirstUnlock

    func baseQuery(withKey key: String? = nil, data: Data? = nil) -> [String: Any] {
        var query = self.attributes
        query[kSecClass as String] = kSecClassGenericPassword
        query[kSecAttrService as String] = self.service
        if let key { query[kSecAttrAccount as String] = key }
        if let data { query[kSecValueData as String] = data }
        if self.isSynchronizable { query[kSecAttrSynchronizable as String] = kCFBooleanTrue }
        return query
    }

    var getAllQuery: [String: Any] {
        var query = self.baseQuery()
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        return query
    }

    func getOneQuery(byKey key: String) -> [String: Any] {
        var query = self.baseQuery(withKey: key)
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        return query
    }

    func setQuery(forKey key: String, data: Data) -> [String: Any] {
        var query = self.baseQuery(withKey: key, data: data)
        query[kSecAttrAccessible as String] = self.accessibility
        return query
    }

    func set(_ data: Data, forKey key: String) throws {
        let addStatus = SecItemAdd(self.setQuery(forKey: key, data: data) as CFDictionary, nil)
        if addStatus == errSecDuplicateItem {
            let updateAttributes: [String: Any] = [kSecValueData as String: data]
            let status = SecItemUpdate(self.baseQuery(withKey: key) as CFDictionary, updateAttributes as CFDictionary)
            guard status == errSecSuccess else { throw Failure.status(status) }
        } else if addStatus != errSecSuccess {
            throw Failure.status(addStatus)
        }
    }

    func data(forKey key: String) throws -> Data {
        var result: AnyObject?
        let status = SecItemCopyMatching(self.getOneQuery(byKey: key) as CFDictionary, &result)
        guard status == errSecSuccess else { throw Failure.status(status) }
        guard let data = result as? Data else { throw Failure.cannotCastToData }
        return data
    }

    func string(forKey key: String) throws -> String {
        let data = try self.data(forKey: key)
        guard let result = String(data: data, encoding: .utf8) else { throw Failure.cannotConvertToString }
        return result
    }

    func keys() throws -> [String] {
        var result: AnyObject?
        let status = SecItemCopyMatching(self.getAllQuery as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw Failure.status(status) }
        guard let items = result as? [[String: Any]] else { throw Failure.cannotCastToArray }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
    }
}

extension [String: Any] {
    /// SimpleKeychain's test helper: the entries of `self` named by `baseQuery` equal `baseQuery`.
    fileprivate func containsBaseQuery(_ baseQuery: [String: Any]) -> Bool {
        let filtered = self.filter { element in baseQuery.keys.contains(element.key) }
        return NSDictionary(dictionary: filtered).isEqual(to: baseQuery)
    }
}

/// keychain-swift 24 (`KeychainSwift.swift`): `lastResultCode`, `kCFBooleanTrue` return flags.
private final class WrapperKeychainSwift {
    var lastResultCode: OSStatus = noErr

    @discardableResult
    func set(_ value: Data, forKey key: String) -> Bool {
        _ = SecItemDelete(
            [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: key] as CFDictionary
        )
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: key,
            kSecValueData as String: value,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
        ]
        lastResultCode = SecItemAdd(query as CFDictionary, nil)
        return lastResultCode == noErr
    }

    func get(_ key: String) -> String? {
        if let data = getData(key) {
            if let currentString = String(data: data, encoding: .utf8) { return currentString }
            lastResultCode = -67853  // errSecInvalidEncoding
        }
        return nil
    }

    func getData(_ key: String) -> Data? {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: key,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: AnyObject?
        lastResultCode = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        return lastResultCode == noErr ? result as? Data : nil
    }
}

/// KeychainAccess 4 (`Keychain.swift`, the non-iOS branches): `String(kSec…)` keys, `kSecAttrSynchronizableAny`.
private struct WrapperKeychainAccess {
    enum Status: OSStatus, Error {
        case conversionError = -67594
        case unexpectedError = -99999
        case other = -1
    }

    let service: String

    private func query() -> [String: Any] {
        var query = [String: Any]()
        query[String(kSecClass)] = String(kSecClassGenericPassword)
        query[String(kSecAttrSynchronizable)] = kSecAttrSynchronizableAny
        query[String(kSecAttrService)] = service
        return query
    }

    private func attributes(key: String?, value: Data) -> [String: Any] {
        var attributes = key == nil ? [String: Any]() : query()
        if let key { attributes[String(kSecAttrAccount)] = key }
        attributes[String(kSecValueData)] = value
        attributes[String(kSecAttrAccessible)] = String(kSecAttrAccessibleAfterFirstUnlock)
        attributes[String(kSecAttrSynchronizable)] = kCFBooleanFalse
        return attributes
    }

    func set(_ value: Data, key: String) throws {
        var query = query()
        query[String(kSecAttrAccount)] = key
        var status = SecItemCopyMatching(query as CFDictionary, nil)
        switch status {
        case errSecSuccess, errSecInteractionNotAllowed:
            status = SecItemUpdate(query as CFDictionary, attributes(key: nil, value: value) as CFDictionary)
        case errSecItemNotFound:
            status = SecItemAdd(attributes(key: key, value: value) as CFDictionary, nil)
        default:
            break
        }
        if status != errSecSuccess { throw Status.other }
    }

    func getString(_ key: String) throws -> String? {
        guard let data = try getData(key) else { return nil }
        guard let string = String(data: data, encoding: .utf8) else { throw Status.conversionError }
        return string
    }

    func getData(_ key: String) throws -> Data? {
        var query = query()
        query[String(kSecMatchLimit)] = kSecMatchLimitOne
        query[String(kSecReturnData)] = kCFBooleanTrue
        query[String(kSecAttrAccount)] = key
        var result: AnyObject?
        switch SecItemCopyMatching(query as CFDictionary, &result) {
        case errSecSuccess:
            guard let data = result as? Data else { throw Status.unexpectedError }
            return data
        case errSecItemNotFound: return nil
        default: throw Status.other
        }
    }

    func contains(_ key: String) throws -> Bool {
        var query = query()
        query[String(kSecAttrAccount)] = key
        switch SecItemCopyMatching(query as CFDictionary, nil) {
        case errSecSuccess: return true
        case errSecItemNotFound: return false
        default: throw Status.other
        }
    }

    /// `allItems()`: `items()` then `prettify`, reduced to the key and the value.
    func allItems() -> [[String: Any]] {
        var query = query()
        query[String(kSecMatchLimit)] = kSecMatchLimitAll
        query[String(kSecReturnAttributes)] = kCFBooleanTrue
        query[String(kSecReturnData)] = kCFBooleanTrue
        var result: AnyObject?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let items = result as? [[String: Any]]
        else { return [] }
        return items.map { attributes in
            var item = [String: Any]()
            if let key = attributes[String(kSecAttrAccount)] as? String { item["key"] = key }
            if let data = attributes[String(kSecValueData)] as? Data {
                item["value"] = String(data: data, encoding: .utf8) ?? data
            }
            return item
        }
    }
}

/// Valet 5 (`Keychain.swift`, `SecItem.swift`, `Service.generateBaseQuery`): `[String: AnyHashable]` queries.
private struct WrapperValet {
    enum Failure: Error, Equatable {
        case itemNotFound, couldNotAccessKeychain, invalidQuery, keyToMigrateInvalid, dataToMigrateInvalid
        case duplicateKeyToMigrate, keyToMigrateAlreadyExistsInValet, removalFailed

        init(status: OSStatus) { self = status == errSecItemNotFound ? .itemNotFound : .couldNotAccessKeychain }
    }

    static let canaryKey = "VAL_KeychainCanaryUsername"
    let baseKeychainQuery: [String: AnyHashable]

    init(identifier: String) {
        baseKeychainQuery = [
            kSecClass as String: kSecClassGenericPassword as String,
            kSecAttrService as String:
                "VAL_VALValet_initWithIdentifier:accessibility:_\(identifier)_AccessibleWhenUnlocked",
            kSecUseDataProtectionKeychain as String: true,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked as String,
        ]
    }

    static func copy<DesiredType>(matching query: [String: AnyHashable]) throws(Failure) -> DesiredType {
        var result: AnyObject?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else { throw Failure(status: status) }
        guard let result = result as? DesiredType else { throw Failure.itemNotFound }
        return result
    }

    static func performCopy(forKey key: String, options: [String: AnyHashable]) -> OSStatus {
        var secItemQuery = options
        secItemQuery[kSecAttrAccount as String] = key
        return SecItemCopyMatching(secItemQuery as CFDictionary, nil)
    }

    static func setObject(_ object: Data, forKey key: String, options: [String: AnyHashable]) throws(Failure) {
        var secItemQuery = options
        secItemQuery[kSecAttrAccount as String] = key
        let status: OSStatus
        if performCopy(forKey: key, options: options) == errSecSuccess {
            let attributes: [String: AnyHashable] = [kSecValueData as String: object]
            status = SecItemUpdate(secItemQuery as CFDictionary, attributes as CFDictionary)
        } else {
            secItemQuery[kSecValueData as String] = object
            status = SecItemAdd(secItemQuery as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw Failure(status: status) }
    }

    static func allKeys(options: [String: AnyHashable]) throws(Failure) -> Set<String> {
        var secItemQuery = options
        secItemQuery[kSecMatchLimit as String] = kSecMatchLimitAll
        secItemQuery[kSecReturnAttributes as String] = true
        do {
            let collection: Any = try copy(matching: secItemQuery)
            if let singleMatch = collection as? [String: AnyHashable],
                let singleKey = singleMatch[kSecAttrAccount as String] as? String, singleKey != canaryKey
            {
                return Set([singleKey])
            } else if let multipleMatches = collection as? [[String: AnyHashable]] {
                return Set(
                    multipleMatches.compactMap { attributes in
                        let key = attributes[kSecAttrAccount as String] as? String
                        return key != canaryKey ? key : nil
                    }
                )
            }
            return Set()
        } catch Failure.itemNotFound {
            return Set()
        }
    }

    func setString(_ string: String, forKey key: String) throws {
        try Self.setObject(Data(string.utf8), forKey: key, options: baseKeychainQuery)
    }

    func string(forKey key: String) throws -> String {
        var secItemQuery = baseKeychainQuery
        secItemQuery[kSecAttrAccount as String] = key
        secItemQuery[kSecMatchLimit as String] = kSecMatchLimitOne
        secItemQuery[kSecReturnData as String] = true
        let data: Data = try Self.copy(matching: secItemQuery)
        guard let string = String(data: data, encoding: .utf8) else { throw Failure.itemNotFound }
        return string
    }

    func allKeys() throws -> Set<String> { try Self.allKeys(options: baseKeychainQuery) }

    /// `migrateObjects(from:removeOnCompletion:)` with its identity `compactMap` (revert paths left out).
    func migrateObjects(from valet: WrapperValet, removeOnCompletion: Bool) throws {
        try migrateObjects(matching: valet.baseKeychainQuery, removeOnCompletion: removeOnCompletion)
    }

    func migrateObjects(matching query: [String: AnyHashable], removeOnCompletion: Bool) throws {
        guard query[kSecClass as String] as? String as CFString? == kSecClassGenericPassword else {
            throw Failure.invalidQuery
        }
        var secItemQuery = query
        secItemQuery[kSecMatchLimit as String] = kSecMatchLimitAll
        secItemQuery[kSecReturnAttributes as String] = true
        secItemQuery[kSecReturnData as String] = false
        secItemQuery[kSecReturnRef as String] = false
        secItemQuery[kSecReturnPersistentRef as String] = true
        let collection: Any = try Self.copy(matching: secItemQuery)
        let retrievedItemsToMigrate: [[String: AnyHashable]]
        if let singleMatch = collection as? [String: AnyHashable] {
            retrievedItemsToMigrate = [singleMatch]
        } else if let multipleMatches = collection as? [[String: AnyHashable]] {
            retrievedItemsToMigrate = multipleMatches
        } else {
            throw Failure.dataToMigrateInvalid
        }
        var retrievedItemsToMigrateWithData = [[String: AnyHashable]]()
        for retrievedItem in retrievedItemsToMigrate {
            guard let retrievedPersistentRef = retrievedItem[kSecValuePersistentRef as String] else {
                throw Failure.couldNotAccessKeychain
            }
            let retrieveDataQuery: [String: AnyHashable] = [
                kSecValuePersistentRef as String: retrievedPersistentRef,
                kSecReturnData as String: true,
            ]
            do {
                let data: Data = try Self.copy(matching: retrieveDataQuery)
                guard !data.isEmpty else { throw Failure.dataToMigrateInvalid }
                var withData = retrievedItem
                withData[kSecValueData as String] = data
                retrievedItemsToMigrateWithData.append(withData)
            } catch Failure.itemNotFound {
                continue  // "metadata-only items ... Ignore this entry."
            }
        }
        var keyValuePairsToMigrate = [String: Data]()
        for keychainEntry in retrievedItemsToMigrateWithData {
            guard let key = keychainEntry[kSecAttrAccount as String] else { throw Failure.keyToMigrateInvalid }
            guard key as? String != Self.canaryKey else { continue }
            guard let data = keychainEntry[kSecValueData as String] as? Data else {
                throw Failure.dataToMigrateInvalid
            }
            guard let key = key as? String, !key.isEmpty else { throw Failure.keyToMigrateInvalid }
            guard keyValuePairsToMigrate[key] == nil else { throw Failure.duplicateKeyToMigrate }
            guard Self.performCopy(forKey: key, options: baseKeychainQuery) == errSecItemNotFound else {
                throw Failure.keyToMigrateAlreadyExistsInValet
            }
            keyValuePairsToMigrate[key] = data
        }
        for (key, value) in keyValuePairsToMigrate {
            try Self.setObject(value, forKey: key, options: baseKeychainQuery)
        }
        if removeOnCompletion {
            guard SecItemDelete(query as CFDictionary) == errSecSuccess else { throw Failure.removalFailed }
        }
    }
}
#endif
