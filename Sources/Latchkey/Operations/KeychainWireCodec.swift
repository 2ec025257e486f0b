import Foundation

/// The versioned wire form of operations and outcomes, shared by the agent and its clients.
///
/// A frame is a JSON envelope `{"version": 1, "body": …}`; an outcome's envelope carries either the
/// outcome or an error (`code`, `message`). A frame of another major version is refused with a clear
/// error, never guessed at.
///
/// ```swift
/// let frame = try KeychainWireCodec.encode(.find(FindRequest(query)))
/// let operation = try KeychainWireCodec.decodeOperation(frame)
/// ```
public enum KeychainWireCodec {
    /// The protocol version this build speaks.
    public static let version = 1

    private struct Envelope<Body: Codable>: Codable {
        var version: Int
        var body: Body
    }

    /// A failure as it travels: Apple's status code and the message.
    private struct WireError: Codable {
        var code: Int32
        var message: String
    }

    private enum Reply: Codable {
        case outcome(KeychainOutcome)
        case failure(WireError)
    }

    /// Encodes an operation as a frame.
    ///
    /// - Throws: `KeychainError.Code.param` when a value cannot be encoded.
    public static func encode(_ operation: KeychainOperation) throws(KeychainError) -> Data {
        try encodeEnvelope(Envelope(version: version, body: operation))
    }

    /// Decodes a frame made by `encode(_:)`.
    ///
    /// - Throws: `KeychainError.Code.decode` for a malformed frame, `.unimplemented` for another version.
    public static func decodeOperation(_ frame: Data) throws(KeychainError) -> KeychainOperation {
        try decodeEnvelope(frame, as: KeychainOperation.self)
    }

    /// Encodes the result of executing an operation (an outcome or the error it threw).
    public static func encode(_ result: Result<KeychainOutcome, KeychainError>) throws(KeychainError) -> Data {
        let reply: Reply
        switch result {
        case .success(let outcome): reply = .outcome(outcome)
        case .failure(let error): reply = .failure(WireError(code: error.code.rawValue, message: error.message))
        }
        return try encodeEnvelope(Envelope(version: version, body: reply))
    }

    /// Decodes a result frame: returns the outcome or throws the error it carries.
    ///
    /// - Throws: The carried `KeychainError`, or `.decode` / `.unimplemented` for a bad frame.
    public static func decodeOutcome(_ frame: Data) throws(KeychainError) -> KeychainOutcome {
        switch try decodeEnvelope(frame, as: Reply.self) {
        case .outcome(let outcome): return outcome
        case .failure(let error): throw KeychainError(KeychainError.Code(rawValue: error.code), error.message)
        }
    }

    private static func encodeEnvelope<Body: Codable>(_ envelope: Envelope<Body>) throws(KeychainError) -> Data {
        do {
            return try JSONEncoder().encode(envelope)
        } catch {
            throw KeychainError(.param, "The request cannot be encoded: \(type(of: error)).")
        }
    }

    private struct VersionProbe: Decodable { var version: Int }

    private static func decodeEnvelope<Body: Codable>(_ frame: Data, as: Body.Type) throws(KeychainError) -> Body {
        guard let probe = try? JSONDecoder().decode(VersionProbe.self, from: frame) else {
            throw KeychainError(.decode, "The keychain frame is not a versioned envelope.")
        }
        guard probe.version == version else {
            throw KeychainError(
                .unimplemented,
                "The keychain frame has protocol version \(probe.version); this build speaks version \(version)."
            )
        }
        do {
            return try JSONDecoder().decode(Envelope<Body>.self, from: frame).body
        } catch {
            throw KeychainError(.decode, "The keychain frame is malformed.")
        }
    }
}
