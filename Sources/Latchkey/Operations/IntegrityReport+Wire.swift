import Foundation

// The wire form (docs/wire-protocol.md, "Integrity report") of a verification's report, field by field:
//
//   report = sqlite (count, strings); verified (zigzag); undecryptable (count, bytes); locked (zigzag);
//            optional ledger; optional mismatchedTags (count, bytes)
//   ledger = enabled (bool); generation (varint); rows (zigzag); mismatched (count, bytes); rowsMissing (bool);
//            sealDamaged (bool)

extension IntegrityReport {
    /// A first guess at the report's encoded size.
    var estimatedWireSize: Int {
        64 + 24 * (undecryptable.count + (ledger?.mismatched.count ?? 0) + (mismatchedTags?.count ?? 0))
    }

    func encodeWire(to writer: inout WireWriter) {
        writer.varint(UInt64(sqlite.count))
        for message in sqlite { writer.string(message) }
        writer.int(verified)
        encodeReferences(undecryptable, to: &writer)
        writer.int(locked)
        writer.bool(ledger != nil)
        if let ledger {
            writer.bool(ledger.enabled)
            writer.varint(ledger.generation)
            writer.int(ledger.rows)
            encodeReferences(ledger.mismatched, to: &writer)
            writer.bool(ledger.rowsMissing)
            writer.bool(ledger.sealDamaged)
        }
        writer.bool(mismatchedTags != nil)
        if let mismatchedTags { encodeReferences(mismatchedTags, to: &writer) }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> IntegrityReport {
        let count = try reader.count("SQLite's messages")
        var sqlite: [String] = []
        sqlite.reserveCapacity(Swift.min(count, 16))
        for _ in 0..<count { sqlite.append(try reader.string("a SQLite message")) }
        let verified = try reader.int("the verified count")
        let undecryptable = try decodeReferences(from: &reader, "the undecryptable items")
        let locked = try reader.int("the locked count")
        let ledger = try reader.optional("the ledger's report") { (reader) throws(KeychainError) in
            LedgerReport.fields(
                enabled: try reader.bool("whether the ledger is enabled"),
                generation: try reader.varint("the ledger's generation"),
                rows: try reader.int("the ledger's rows"),
                mismatched: try decodeReferences(from: &reader, "the mismatched items"),
                rowsMissing: try reader.bool("rowsMissing"),
                sealDamaged: try reader.bool("sealDamaged")
            )
        }
        let mismatchedTags = try reader.optional("the items with mismatched tags") { (reader) throws(KeychainError) in
            try decodeReferences(from: &reader, "the items with mismatched tags")
        }
        return .fields(
            sqlite: sqlite,
            verified: verified,
            undecryptable: undecryptable,
            locked: locked,
            ledger: ledger,
            mismatchedTags: mismatchedTags
        )
    }
}

/// Writes persistent references: their count, then each as bytes.
private func encodeReferences(_ references: [Data], to writer: inout WireWriter) {
    writer.varint(UInt64(references.count))
    for reference in references { writer.bytes(reference) }
}

/// Reads persistent references written by `encodeReferences`.
private func decodeReferences(from reader: inout WireReader, _ what: String) throws(KeychainError) -> [Data] {
    let count = try reader.count(what)
    var references: [Data] = []
    references.reserveCapacity(Swift.min(count, 64))
    for _ in 0..<count { references.append(try reader.bytes("a persistent reference")) }
    return references
}
