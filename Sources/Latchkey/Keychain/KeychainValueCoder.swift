import Foundation

/// Turns `Encodable` values into the bytes a `Keychain` stores.
///
/// `String` and `Data` values never go through the encoder: they are stored as their UTF-8 bytes and
/// as is, so that items stay readable by other tools (`latchkey find-generic-password -w`, the
/// `Security` module, other wrappers). Everything else is encoded.
///
/// `JSONEncoder` and `PropertyListEncoder` conform; write your own for another format:
///
/// ```swift
/// struct CBOREncoder: KeychainValueEncoder {
///     func encode<T: Encodable>(_ value: T) throws -> Data { ... }
/// }
/// let keychain = Keychain(service: "com.example").coder(encoder: CBOREncoder(), decoder: CBORDecoder())
/// ```
public protocol KeychainValueEncoder: Sendable {
    /// Encodes `value`.
    ///
    /// - Throws: Any error; the `Keychain` reports it as `KeychainError.Code.param` without the value.
    func encode<T: Encodable>(_ value: T) throws -> Data
}

/// Turns stored bytes back into `Decodable` values (see `KeychainValueEncoder`).
public protocol KeychainValueDecoder: Sendable {
    /// Decodes a `type` from `data`.
    ///
    /// - Throws: Any error; the `Keychain` reports it as `KeychainError.Code.decode` without the bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONEncoder: KeychainValueEncoder {}
extension JSONDecoder: KeychainValueDecoder {}
extension PropertyListEncoder: KeychainValueEncoder {}
extension PropertyListDecoder: KeychainValueDecoder {}

/// The default coders: JSON with sorted keys (stable bytes for equal values) and default strategies.
enum DefaultValueCoder {
    static let encoder: any KeychainValueEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let decoder: any KeychainValueDecoder = JSONDecoder()
}

extension Keychain {
    /// The bytes stored for `value`: UTF-8 for a `String`, as is for `Data`, the encoder otherwise.
    func encodedValue<T: Encodable>(_ value: T) throws(KeychainError) -> SecretData {
        if let text = value as? String { return SecretData(string: text) }
        if let data = value as? Data { return SecretData(data) }
        do {
            return SecretData(try encoder.encode(value))
        } catch {
            throw KeychainError(
                .param,
                "The value of type \(T.self) could not be encoded; nothing was written.",
                underlying: String(describing: type(of: error))
            )
        }
    }

    /// The value stored as `secret` (see `encodedValue`).
    func decodedValue<T: Decodable>(_ type: T.Type, from secret: SecretData) throws(KeychainError) -> T {
        if T.self == String.self {
            guard let text = secret.utf8String, let value = text as? T else {
                throw KeychainError(.decode, "The stored value is not valid UTF-8 text.")
            }
            return value
        }
        if T.self == Data.self, let value = secret.data as? T { return value }
        do {
            return try decoder.decode(T.self, from: secret.data)
        } catch {
            throw KeychainError(
                .decode,
                "The stored value could not be decoded as \(T.self) (was it written with another type or coder?).",
                underlying: Self.decodingCause(error)
            )
        }
    }

    /// A decoding error's kind and coding path, never the bytes it saw.
    private static func decodingCause(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: type(of: error)) }
        let context: DecodingError.Context
        let kind: String
        switch error {
        case .typeMismatch(_, let value): (kind, context) = ("type mismatch", value)
        case .valueNotFound(_, let value): (kind, context) = ("value not found", value)
        case .keyNotFound(let key, let value): (kind, context) = ("key '\(key.stringValue)' not found", value)
        case .dataCorrupted(let value): (kind, context) = ("data corrupted", value)
        @unknown default: return "DecodingError"
        }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return "\(kind) at '\(path)'"
    }
}
