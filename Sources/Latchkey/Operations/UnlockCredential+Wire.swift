import Foundation

// The wire form (docs/wire-protocol.md) of an unlock credential:
//
//   credential = tag: 1 passphrase | 2 key file, then the secret (length, bytes)
//
// The secret is read from the frame straight into a `SecretData` and written from one in place.

extension UnlockCredential {
    func encodeWire(to writer: inout WireWriter) {
        switch self {
        case .passphrase(let secret):
            writer.byte(1)
            writer.secret(secret)
        case .keyFile(let secret):
            writer.byte(2)
            writer.secret(secret)
        }
    }

    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> UnlockCredential {
        switch try reader.byte("an unlock credential") {
        case 1: return .passphrase(try reader.secret("a passphrase"))
        case 2: return .keyFile(try reader.secret("a key"))
        case let tag: throw WireReader.unknownTag(tag, of: "unlock credential")
        }
    }
}
