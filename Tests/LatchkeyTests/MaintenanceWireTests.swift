import Foundation
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// The keychain-wide operations the CLI sends to the agent (`damagedItems`, `verifyIntegrity`,
/// `changeCredential`) and their outcomes (an integrity report field by field) survive the binary wire codec, and a truncated frame of each is
/// refused with `decode`, never a crash.
struct MaintenanceWireTests {
    static let operations: [KeychainOperation] = [
        .damagedItems(.genericPassword, includingSecrets: true),
        .damagedItems(.key, includingSecrets: false),
        .verifyIntegrity(acceptingCurrentState: false),
        .verifyIntegrity(acceptingCurrentState: true),
        .changeCredential(
            current: .passphrase(SecretData(string: "old pässphrase")),
            new: .keyFile(SecretData(Data(repeating: 7, count: 32)))
        ),
    ]

    static let outcomes: [KeychainOutcome] = {
        var ledger = LedgerReport(
            enabled: true,
            generation: 41,
            rows: 3,
            mismatched: [Data([0x67, 0x65, 0x6e, 0x70, 1, 2])],
            rowsMissing: false
        )
        ledger.sealDamaged = false
        return [
            .damagedItems([]),
            .damagedItems([
                DamagedItem(itemClass: .genericPassword, persistentReference: Data(repeating: 1, count: 20)),
                DamagedItem(itemClass: .certificate, persistentReference: Data(repeating: 2, count: 20)),
            ]),
            .integrity(
                IntegrityReport(sqlite: ["ok"], verified: 12, undecryptable: [Data([9, 9])], locked: 2, ledger: ledger)
            ),
            .integrity(IntegrityReport(sqlite: ["ok"], verified: 0, undecryptable: [], locked: 0, ledger: nil)),
        ]
    }()

    /// An integrity report travels field by field (no JSON inside the binary frame), in the layout
    /// docs/wire-protocol.md gives ("Integrity report").
    @Test func anIntegrityReportHasTheDocumentedLayout() throws {
        let ledger = LedgerReport(
            enabled: true,
            generation: 3,
            rows: 2,
            mismatched: [Data([0xAB])],
            rowsMissing: false,
            sealDamaged: true
        )
        let report = IntegrityReport(
            sqlite: ["ok"],
            verified: 2,
            undecryptable: [],
            locked: 1,
            ledger: ledger,
            mismatchedTags: []
        )
        let frame = [UInt8](try KeychainWireCodec.encode(.success(.integrity(report))))
        let expected: [UInt8] =
            [6, 1, 10]  // version, outcome, integrity
            + [1, 2, 0x6F, 0x6B]  // sqlite: one message, "ok"
            + [4, 0, 2]  // verified 2 (zigzag), no undecryptable items, locked 1 (zigzag)
            + [1, 1, 3, 4, 1, 1, 0xAB, 0, 1]  // ledger: present, enabled, generation 3, rows 2, [AB], sealDamaged
            + [1, 0]  // mismatchedTags: present, empty
        #expect(frame == expected)
        #expect(try KeychainWireCodec.decodeOutcome(Data(frame)) == .integrity(report))
        var unknown = report
        unknown.mismatchedTags = nil
        unknown.ledger = nil
        let short = [UInt8](try KeychainWireCodec.encode(.success(.integrity(unknown))))
        #expect(short == [6, 1, 10, 1, 2, 0x6F, 0x6B, 4, 0, 2, 0, 0])
        #expect(try KeychainWireCodec.decodeOutcome(Data(short)) == .integrity(unknown))
    }

    @Test(arguments: operations) func operationsRoundTrip(_ operation: KeychainOperation) throws {
        let frame = try KeychainWireCodec.encode(operation)
        #expect(try KeychainWireCodec.decodeOperation(frame) == operation)
        for length in 0..<frame.count {
            #expect(throws: KeychainError.self) { try KeychainWireCodec.decodeOperation(frame.prefix(length)) }
        }
    }

    @Test(arguments: outcomes) func outcomesRoundTrip(_ outcome: KeychainOutcome) throws {
        let frame = try KeychainWireCodec.encode(.success(outcome))
        #expect(try KeychainWireCodec.decodeOutcome(frame) == outcome)
        for length in 0..<frame.count {
            #expect(throws: KeychainError.self) { try KeychainWireCodec.decodeOutcome(frame.prefix(length)) }
        }
    }
}
