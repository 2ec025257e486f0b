import Foundation

/// The versioned wire form of operations and outcomes, shared by the agent and its clients: the one
/// encoding of the operation API, specified byte by byte in docs/wire-protocol.md (for clients in other
/// languages too).
///
/// Version 6 is a compact binary encoding (version 1 was JSON; versions 2 to 5 added search tags,
/// `FindRequest.withSearchTags` and `referencesOnly`; version 6 carries an integrity report field by field).
/// A frame is one version byte, then:
///
/// - an operation frame: the operation (a tag byte, `KeychainOperation.Kind`, then its values;
///   `KeychainOperation+Wire.swift`);
/// - a result frame: `1` and the outcome (`KeychainOutcome+Wire.swift`), or `2`, the error's status code
///   (zigzag varint) and its message (length-prefixed UTF-8).
///
/// Lengths and counts are LEB128 varints, signed integers zigzag varints, doubles and dates 8 little-endian
/// bytes, optional values a presence byte, enums one tag byte per case (`WireWriter`, `WireReader`). A frame
/// of another version is refused with `unimplemented`, never guessed at; a malformed one (truncated, an
/// unknown tag, a length longer than what remains, bytes left over) with `decode`. An operation or outcome
/// added later takes the next free tag without changing the version, so an older peer refuses only that
/// operation, with a `decode` error that names its version and the tags it knows.
///
/// ```swift
/// let frame = try KeychainWireCodec.encode(.find(FindRequest(query)))
/// let operation = try KeychainWireCodec.decodeOperation(frame)
/// ```
public enum KeychainWireCodec {
    /// The protocol version this build speaks.
    public static let version = 6

    private static let versionByte = UInt8(version)

    private enum ReplyTag: UInt8 {
        case outcome = 1
        case failure = 2
    }

    /// Encodes an operation as a frame.
    ///
    /// - Throws: `KeychainError.Code.param` when batches nest deeper than the protocol allows (32 levels).
    public static func encode(_ operation: KeychainOperation) throws(KeychainError) -> Data {
        var writer = WireWriter()
        writer.byte(versionByte)
        try operation.encodeWire(to: &writer, depth: 0)
        return writer.finish()
    }

    /// Decodes a frame made by `encode(_:)`.
    ///
    /// - Throws: `KeychainError.Code.decode` for a malformed frame, `.unimplemented` for another version.
    public static func decodeOperation(_ frame: Data) throws(KeychainError) -> KeychainOperation {
        try WireReader.read(frame) { (reader: inout WireReader) throws(KeychainError) in
            try checkVersion(&reader)
            return try KeychainOperation.decodeWire(from: &reader, depth: 0)
        }
    }

    /// Encodes the result of executing an operation (an outcome or the error it threw).
    ///
    /// - Throws: `KeychainError.Code.param` when batches nest deeper than the protocol allows (32 levels).
    public static func encode(_ result: Result<KeychainOutcome, KeychainError>) throws(KeychainError) -> Data {
        switch result {
        case .success(let outcome):
            var writer = WireWriter(capacity: outcome.estimatedWireSize)
            writer.byte(versionByte)
            writer.byte(ReplyTag.outcome.rawValue)
            try outcome.encodeWire(to: &writer, depth: 0)
            return writer.finish()
        case .failure(let error):
            var writer = WireWriter(capacity: 32 + error.message.utf8.count)
            writer.byte(versionByte)
            writer.byte(ReplyTag.failure.rawValue)
            writer.signed(Int64(error.code.rawValue))
            writer.string(error.message)
            return writer.finish()
        }
    }

    /// Decodes a result frame: returns the outcome or throws the error it carries.
    ///
    /// - Throws: The carried `KeychainError`, or `.decode` / `.unimplemented` for a bad frame.
    public static func decodeOutcome(_ frame: Data) throws(KeychainError) -> KeychainOutcome {
        let reply = try WireReader.read(frame) {
            (reader: inout WireReader) throws(KeychainError) -> Result<KeychainOutcome, KeychainError> in
            try checkVersion(&reader)
            let raw = try reader.byte("a reply")
            guard let tag = ReplyTag(rawValue: raw) else { throw WireReader.unknownTag(raw, of: "reply") }
            switch tag {
            case .outcome:
                return .success(try KeychainOutcome.decodeWire(from: &reader, depth: 0))
            case .failure:
                let code = try reader.signed("an error's status code")
                guard let status = Int32(exactly: code) else {
                    throw WireReader.malformed("an error's status code does not fit 32 bits")
                }
                return .failure(KeychainError(KeychainError.Code(rawValue: status), try reader.string("a message")))
            }
        }
        return try reply.get()
    }

    private static func checkVersion(_ reader: inout WireReader) throws(KeychainError) {
        let frameVersion = try reader.byte("the protocol version")
        guard frameVersion == versionByte else {
            // A version 1 frame is a JSON object; name its version rather than the byte "{".
            let named = frameVersion == UInt8(ascii: "{") ? "1 (JSON)" : "\(frameVersion)"
            throw KeychainError(
                .unimplemented,
                "The keychain frame has protocol version \(named); this build speaks version \(version). Use the same "
                    + "Latchkey version for the agent and its clients (restart the agent after an upgrade)."
            )
        }
    }
}
