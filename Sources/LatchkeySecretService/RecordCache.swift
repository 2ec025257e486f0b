import Foundation
import Synchronization

/// Decoded `gena` records by their bytes, so that a lookup does not JSON-decode the same record again for
/// its search and its `GetSecret` (about a tenth of a lookup's time in the agent's profile).
///
/// Holds at most `capacity` records (then starts over); the records are the attribute maps the agent
/// decrypts anyway, kept only in its memory.
final class RecordCache: Sendable {
    private let records = Mutex<[Data: SecretItemStore.Record]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` records.
    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The record `bytes` hold, decoded once; `nil` when they are not one.
    func record(_ bytes: Data) -> SecretItemStore.Record? {
        if let known = records.withLock({ $0[bytes] }) { return known }
        guard let decoded = try? JSONDecoder().decode(SecretItemStore.Record.self, from: bytes) else { return nil }
        records.withLock { records in
            if records.count >= capacity { records.removeAll(keepingCapacity: true) }
            records[bytes] = decoded
        }
        return decoded
    }
}
