import Foundation
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// The keychain-wide operations the CLI sends to the agent (`damagedItems`, `verifyIntegrity`,
/// `changeCredential`) and their outcomes survive the binary wire codec, and a truncated frame of each is
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
