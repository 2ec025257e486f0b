import Crypto
import Foundation
import Latchkey
import LatchkeySync
import LatchkeyTesting

/// Keys, machines and items the sync tests share: one keychain, its sync key, two machines.
enum SyncFixture {
    /// The sync keychain of every test.
    static let keychain = UUID(uuidString: "6B2E0C1A-7F0D-4E43-9C61-3D5B8A9E0F11")!
    /// Machine A.
    static let machineA = UUID(uuidString: "0A0A0A0A-0000-4000-8000-00000000000A")!
    /// Machine B.
    static let machineB = UUID(uuidString: "0B0B0B0B-0000-4000-8000-00000000000B")!
    /// The keychain's sync key (fixed bytes: tests are reproducible).
    static let syncKey = SymmetricKey(data: Data((0..<32).map { UInt8($0 &* 7 &+ 3) }))

    /// The keychain's keys as a machine derives them from the sync key.
    static func keys(epoch: Int32 = 0) throws -> SyncKeys {
        try SyncKeys(
            syncKey: SymmetricKey(data: syncKey.withUnsafeBytes { Data($0) }),
            keychain: keychain,
            epoch: epoch
        )
    }

    /// An envelope of machine `author`.
    static func envelope(author: UUID = machineA) throws -> SyncEnvelope {
        SyncEnvelope(keys: try keys(), author: author)
    }

    /// A synchronizable generic password, with the defaults `add` stores.
    static func password(
        account: String = "alice@example.com",
        service: String = "mail.example.com",
        label: String = "Example Mail",
        accessGroup: String = "com.example.mail",
        secret: String = "correct horse battery staple",
        at timestamp: HLCTimestamp = HLCTimestamp(
            physicalMilliseconds: 1_704_067_200_000,
            counter: 0,
            machine: machineA
        ),
        tombstone: Bool = false
    ) -> SyncRecord {
        SyncRecord(
            itemClass: .genericPassword,
            attributes: [
                .account: .string(account),
                .service: .string(service),
                .label: .string(label),
                .accessGroup: .string(accessGroup),
                .synchronizable: .number(1),
                .accessible: .string("ak"),
                .creationDate: .date(ManualClock.defaultStart),
                .modificationDate: .date(ManualClock.defaultStart),
            ],
            secret: tombstone ? nil : SecretData(string: secret),
            timestamp: timestamp,
            isTombstone: tombstone
        )
    }
}
