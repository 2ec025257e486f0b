import Crypto
import Foundation
import Latchkey

/// A recovery or enrollment secret: 32 random bytes a person or a provisioning system keeps, from which a
/// machine that has nothing else recovers the sync key.
///
/// Written as `LKR1-` (recovery) or `LKE1-` (enrollment) and the bytes in base32, in groups of four. The
/// server stores the sync key wrapped under a key derived from the secret, found by another derived value:
///
/// ```
/// lookup   = HKDF-SHA256(secret, salt: "latchkey sync secret v1", info: "lookup", 32 bytes)
/// wrap key = HKDF-SHA256(secret, salt: "latchkey sync secret v1", info: "wrap", 32 bytes)
/// wrapped  = AES-256-GCM(wrap key, keychain (16) ‖ u32 epoch ‖ sync key (32),
///                        associated data: "latchkey-sync-enrollment-v1" ‖ kind)
/// ```
///
/// A secret is 256 random bits, so no slow key derivation is needed: the server's copy reveals nothing
/// short of guessing 2^256 values.
struct SyncSecret: Sendable, Equatable {
    /// Which secret it is.
    enum Kind: String, Sendable {
        /// Printed once by `sync setup`, for a person to keep: recovers the keychain with no machine left.
        case recovery
        /// For unattended machines joining a fleet; can be rotated and limited in uses.
        case enrollment

        var prefix: String { self == .recovery ? "LKR1" : "LKE1" }
    }

    /// The kind.
    let kind: Kind
    /// The 32 secret bytes.
    let bytes: Data

    /// A new random secret of `kind`.
    static func random(_ kind: Kind) -> SyncSecret {
        SyncSecret(kind: kind, bytes: Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }))
    }

    /// Parses a secret as `text` prints it (case, spaces and dashes do not matter).
    ///
    /// - Throws: `KeychainError.Code.param` for text that is not a secret of `kind`.
    static func parse(_ text: String, kind: Kind) throws(KeychainError) -> SyncSecret {
        let cleaned = text.uppercased().filter { !$0.isWhitespace && $0 != "-" }
        guard cleaned.hasPrefix(kind.prefix), let bytes = Base32.decode(String(cleaned.dropFirst(kind.prefix.count))),
            bytes.count == 32
        else {
            throw KeychainError(
                .param,
                "That is not a \(kind.rawValue) secret: it starts with \(kind.prefix)- and holds 52 letters and "
                    + "digits, as `latchkey sync setup` printed it."
            )
        }
        return SyncSecret(kind: kind, bytes: bytes)
    }

    /// `LKR1-XXXX-XXXX-…`.
    var text: String {
        let encoded = Base32.encode(bytes)
        var groups: [String] = [kind.prefix]
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 4, limitedBy: encoded.endIndex) ?? encoded.endIndex
            groups.append(String(encoded[index..<end]))
            index = end
        }
        return groups.joined(separator: "-")
    }

    /// The value the server finds the wrapped key by.
    var lookup: Data { Data(derive("lookup").withUnsafeBytes { Array($0) }) }

    /// Wraps the sync key of `keychain` at `epoch` under this secret.
    func wrap(syncKey: Data, keychain: UUID, epoch: Int32) throws(KeychainError) -> Data {
        var payload = keychain.bytes
        payload.appendBigEndian(UInt32(bitPattern: epoch))
        payload.append(syncKey)
        defer { payload.resetBytes(in: 0..<payload.count) }
        do {
            guard
                let combined = try AES.GCM.seal(payload, using: derive("wrap"), authenticating: associatedData).combined
            else { throw KeychainError(.internalComponent, "AES-GCM gave no nonce.") }
            return combined
        } catch {
            throw KeychainError(.internalComponent, "The sync key could not be wrapped.")
        }
    }

    /// Unwraps what `wrap` made: the keychain, epoch and sync key.
    ///
    /// - Throws: `KeychainError.Code.authFailed` when the secret does not open it.
    func unwrap(_ wrapped: Data) throws(KeychainError) -> (keychain: UUID, epoch: Int32, syncKey: Data) {
        do {
            let payload = try AES.GCM.open(
                AES.GCM.SealedBox(combined: wrapped),
                using: derive("wrap"),
                authenticating: associatedData
            )
            guard payload.count == 52 else { throw KeychainError(.decode, "") }
            let bytes = [UInt8](payload)
            let epoch = bytes[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return (UUID(bytes: bytes[0..<16]), Int32(bitPattern: epoch), Data(bytes[20..<52]))
        } catch {
            throw KeychainError(
                .authFailed,
                "The \(kind.rawValue) secret does not open the sync key stored for it; check that it was typed "
                    + "as printed."
            )
        }
    }

    private var associatedData: Data { Data("latchkey-sync-enrollment-v1".utf8) + Data(kind.rawValue.utf8) }

    private func derive(_ label: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: bytes),
            salt: Data("latchkey sync secret v1".utf8),
            info: Data(label.utf8),
            outputByteCount: 32
        )
    }
}

/// RFC 4648 base32 without padding (the alphabet `A-Z2-7`), for secrets a person types.
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    /// Encodes `data`.
    static func encode(_ data: Data) -> String {
        var out = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in data {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return out
    }

    /// Decodes `text` (upper case); `nil` for a character outside the alphabet.
    static func decode(_ text: String) -> Data? {
        var out = Data()
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
