import Foundation

// The reports' fields as a whole, for the operation API's wire decoder (which lives outside the engine, where
// the memberwise initializers are not visible).

extension IntegrityReport {
    /// A report made of its fields (what the wire form of a `verifyIntegrity` answer carries).
    package static func fields(
        sqlite: [String],
        verified: Int,
        undecryptable: [Data],
        locked: Int,
        ledger: LedgerReport?,
        mismatchedTags: [Data]?
    ) -> IntegrityReport {
        IntegrityReport(
            sqlite: sqlite,
            verified: verified,
            undecryptable: undecryptable,
            locked: locked,
            ledger: ledger,
            mismatchedTags: mismatchedTags
        )
    }
}

extension LedgerReport {
    /// A ledger report made of its fields (what the wire form of a `verifyIntegrity` answer carries).
    package static func fields(
        enabled: Bool,
        generation: UInt64,
        rows: Int,
        mismatched: [Data],
        rowsMissing: Bool,
        sealDamaged: Bool
    ) -> LedgerReport {
        LedgerReport(
            enabled: enabled,
            generation: generation,
            rows: rows,
            mismatched: mismatched,
            rowsMissing: rowsMissing,
            sealDamaged: sealDamaged
        )
    }
}
