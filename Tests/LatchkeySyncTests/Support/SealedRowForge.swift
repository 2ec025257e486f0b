import Crypto
import Foundation
import Testing

@testable import LatchkeySync

/// Seals a record under a header of the test's choosing, as a malicious machine holding the sync key could.
enum SealedRowForge {
    /// `record` sealed under `header`'s associated data (its ciphertext is replaced).
    static func reseal(_ record: SyncRecord, as header: SealedRow, keys: SyncKeys) throws -> SealedRow {
        var row = header
        let plaintext = RecordPadding.pad(Data(try record.encoded()))
        let box = try AES.GCM.seal(plaintext, using: keys.envelopeKey, authenticating: row.associatedData)
        row.ciphertext = try #require(box.combined)
        return row
    }
}
