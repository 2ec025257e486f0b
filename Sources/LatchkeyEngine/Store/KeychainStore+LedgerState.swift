import Foundation
import LatchkeyCrypto
import LatchkeyStorage

/// The row ledger's current, authenticated state in a few bytes, for a keeper outside the file (the
/// per-user agent) to detect a whole file rolled back to an older copy.
public struct KeychainLedgerState: Sendable, Hashable, Codable {
    /// The keychain's file identifier (16 random bytes drawn at creation; a copy of the file keeps it).
    public var fileID: Data
    /// The ledger's generation: how many item writes it has sealed. It never goes back while the file is
    /// only written by Latchkey.
    public var generation: UInt64
    /// A keyed digest (the file's index key, domain `ledger/state`, 16 bytes) of the stored seal's bytes:
    /// two states of one generation with different digests are two different histories.
    public var sealDigest: Data

    /// Makes a state (tests, and keepers reading one back).
    public init(fileID: Data, generation: UInt64, sealDigest: Data) {
        self.fileID = fileID
        self.generation = generation
        self.sealDigest = sealDigest
    }
}

extension KeychainStore {
    /// The keychain's file identifier, which names it in state kept outside the file.
    public var fileIdentifier: Data { keys.fileID }

    /// The row ledger's generation and a keyed digest of its stored seal, as the file holds them now.
    ///
    /// Reads and authenticates the stored seal (`changes.ledger`) only (no row is scanned). Available
    /// whenever the index key is: after an unlock, or before one when the device secret opens it.
    ///
    /// - Returns: The state, or `nil` for a format 1 file (no ledger yet; it gains one at its first
    ///   writable unlock).
    /// - Throws: `interactionNotAllowed` when the index key is not available; `decode` when the stored
    ///   ledger is missing or fails authentication; storage errors.
    public func ledgerState() throws(KeychainError) -> KeychainLedgerState? {
        let snapshot = keys.snapshot()
        let tokens = try tokenCache(snapshot)
        guard snapshot.ledgerRequired else { return nil }
        let fileID = keys.fileID
        return try mappingErrors {
            try storage.read { reader in
                let raw = try ledger.storedSeal(reader)
                let seal = try LedgerSeal.decode(raw, tokens.ledger)
                return KeychainLedgerState(
                    fileID: fileID,
                    generation: seal.generation,
                    sealDigest: tokens.tokenizer.domain("ledger/state").token(raw)
                )
            }
        }
    }
}
