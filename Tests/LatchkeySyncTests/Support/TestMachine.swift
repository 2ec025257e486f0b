import Foundation
import Latchkey
import LatchkeyTesting
import Logging

@testable import LatchkeySync

/// One machine of a test sync keychain: its own keychain file, device secret, clock and sync.
final class TestMachine: Sendable {
    /// The access group of every test item.
    static let group = "com.example.mail"

    let keychain: TemporaryKeychain
    let clock: ManualClock
    let store: KeychainStore
    let sync: KeychainSync

    /// A machine whose clock reads the wall clock plus `offset` seconds.
    init(clockOffset offset: TimeInterval = 0) throws {
        keychain = TemporaryKeychain(accessGroups: [Self.group])
        clock = ManualClock(Date().addingTimeInterval(offset))
        var options = keychain.options()
        options.clock = clock
        store = try KeychainStore.open(
            path: keychain.path,
            credentials: [.passphrase(keychain.passphrase)],
            options: options
        )
        sync = KeychainSync(
            store: store,
            logger: Logger(label: "latchkey.sync.tests", factory: { _ in SwiftLogNoOpLogHandler() }),
            clock: clock
        )
    }

    /// The query of the generic password `account`.
    static func query(_ account: String, synchronizable: ItemQuery.Synchronizable = .yes) -> ItemQuery {
        ItemQuery(
            .genericPassword,
            attributes: [.account: .string(account), .service: .string("mail.example.com")],
            synchronizable: synchronizable
        )
    }

    /// Adds the generic password `account` holding `secret`.
    func add(
        _ account: String,
        _ secret: String,
        synchronizable: Bool = true,
        accessible: Accessibility = .afterFirstUnlock
    ) throws {
        try store.add(
            .genericPassword,
            attributes: [
                .account: .string(account), .service: .string("mail.example.com"),
                .synchronizable: .number(synchronizable ? 1 : 0), .accessible: .string(accessible.rawValue),
                .label: .string("Label of \(account)"),
            ],
            data: SecretData(string: secret)
        )
        clock.advance(by: 0.01)
    }

    /// Sets the secret of `account`.
    func update(_ account: String, _ secret: String) throws {
        try store.update(Self.query(account), with: ItemChanges(data: SecretData(string: secret)))
        clock.advance(by: 0.01)
    }

    /// Deletes `account`.
    func delete(_ account: String) throws {
        try store.delete(Self.query(account))
        clock.advance(by: 0.01)
    }

    /// The secret of `account` (synchronizable or not), or `nil` when there is no such item.
    func secret(_ account: String, synchronizable: ItemQuery.Synchronizable = .any) throws -> String? {
        try store.findFirst(Self.query(account, synchronizable: synchronizable), withData: true)?.data?.utf8String
    }

    /// Every account of this keychain's live items.
    func accounts() throws -> [String] {
        try store.findAll(ItemQuery(.genericPassword, synchronizable: .any)).compactMap {
            $0.attributes[.account]?.stringValue
        }.sorted()
    }

    /// The keychain file's bytes and its write-ahead log's.
    func fileBytes() throws -> Data {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: keychain.path))
        if let wal = try? Data(contentsOf: URL(fileURLWithPath: keychain.path + "-wal")) { bytes.append(wal) }
        return bytes
    }
}
