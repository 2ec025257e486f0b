import Crypto
import Foundation
import Latchkey

/// The access log's file format: records of `type (1 byte) ‖ length (4 bytes, big-endian) ‖ payload`.
///
/// - A **segment header** (type `S`, 101 bytes) starts each agent run and each file after a rotation:
///   `"LKALSEG1" ‖ version (1) ‖ ephemeral X25519 public key (32) ‖ sealed session key (60)`. The session key
///   (32 random bytes) is sealed with AES-256-GCM (`nonce ‖ ciphertext ‖ tag`, associated data: the first 41
///   bytes) under `HKDF-SHA256(X25519(ephemeral, log key), salt: ephemeral public ‖ log public, info:
///   "latchkey access log v1")`, so only the holder of the log's private key (a keychain item) can open it.
/// - An **entry** (type `E`) is one `AccessLogEntry`'s bytes sealed with AES-256-GCM under the session key,
///   `ciphertext ‖ tag`, with the nonce `0 (4 bytes) ‖ counter (8 bytes, big-endian)`: the entry's index in
///   its segment, so a removed, repeated or reordered entry fails authentication.
enum AccessLogFormat {
    /// The record type of a segment header.
    static let headerType: UInt8 = 0x53
    /// The record type of an entry.
    static let entryType: UInt8 = 0x45
    /// The first bytes of a segment header's payload.
    static let magic = Data("LKALSEG1".utf8)
    /// The segment format version.
    static let version: UInt8 = 1
    /// A segment header's payload size.
    static let headerSize = 8 + 1 + 32 + 60
    /// The largest record payload a reader accepts (an entry is far smaller).
    static let maximumRecord = 1 << 20
    /// The bytes a segment header record starts with (type, length, magic): what a reader looks for to
    /// resume after damage.
    static let headerPrefix: Data = {
        var bytes = Data([headerType])
        withUnsafeBytes(of: UInt32(headerSize).bigEndian) { bytes.append(contentsOf: $0) }
        return bytes + magic
    }()
    private static let info = Data("latchkey access log v1".utf8)

    /// A new segment for the log public key `recipient`: its header record and its session key.
    static func newSegment(
        for recipient: Curve25519.KeyAgreement.PublicKey
    ) throws(KeychainError) -> (record: Data, key: SymmetricKey) {
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let sessionKey = SymmetricKey(size: .bits256)
        do {
            let wrapping = try wrappingKey(
                ephemeral.sharedSecretFromKeyAgreement(with: recipient),
                ephemeral: ephemeral.publicKey.rawRepresentation,
                recipient: recipient.rawRepresentation
            )
            let prefix = magic + Data([version]) + ephemeral.publicKey.rawRepresentation
            let sealed = try sessionKey.withUnsafeBytes { bytes in
                try AES.GCM.seal(Data(bytes), using: wrapping, authenticating: prefix)
            }
            guard let combined = sealed.combined else { throw KeychainError(.internal, "AES-GCM gave no output.") }
            return (record(headerType, prefix + combined), sessionKey)
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.internal, "The access log cannot start a segment: \(error).")
        }
    }

    /// Opens a segment header's payload with the log's private key.
    ///
    /// - Throws: `decode` when it is not a header of this version, `authFailed` when it does not open with
    ///   this key (tampered, or another keychain's log).
    static func openSegment(
        _ payload: Data,
        with key: Curve25519.KeyAgreement.PrivateKey
    ) throws(KeychainError) -> SymmetricKey {
        guard payload.count == headerSize, payload.prefix(8) == magic, payload[payload.startIndex + 8] == version
        else { throw KeychainError(.decode, "not a segment header of version \(version)") }
        let ephemeralBytes = payload.subdata(in: payload.startIndex + 9..<payload.startIndex + 41)
        do {
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeralBytes)
            let wrapping = try wrappingKey(
                key.sharedSecretFromKeyAgreement(with: ephemeral),
                ephemeral: ephemeralBytes,
                recipient: key.publicKey.rawRepresentation
            )
            let box = try AES.GCM.SealedBox(combined: payload.suffix(from: payload.startIndex + 41))
            let opened = try AES.GCM.open(box, using: wrapping, authenticating: payload.prefix(41))
            return SymmetricKey(data: opened)
        } catch {
            throw KeychainError(.authFailed, "the segment header fails authentication")
        }
    }

    /// An entry record: `entry` sealed under the session key with nonce `counter`.
    static func sealEntry(_ entry: Data, key: SymmetricKey, counter: UInt64) throws(KeychainError) -> Data {
        do {
            let sealed = try AES.GCM.seal(entry, using: key, nonce: nonce(counter))
            return record(entryType, sealed.ciphertext + sealed.tag)
        } catch {
            throw KeychainError(.internal, "The access log cannot seal an entry: \(error).")
        }
    }

    /// Opens an entry record's payload.
    ///
    /// - Throws: `authFailed` when it fails authentication.
    static func openEntry(_ payload: Data, key: SymmetricKey, counter: UInt64) throws(KeychainError) -> Data {
        do {
            guard payload.count >= 16 else { throw KeychainError(.authFailed, "short entry") }
            let box = try AES.GCM.SealedBox(
                nonce: nonce(counter),
                ciphertext: payload.prefix(payload.count - 16),
                tag: payload.suffix(16)
            )
            return try AES.GCM.open(box, using: key)
        } catch {
            throw KeychainError(.authFailed, "the entry fails authentication")
        }
    }

    private static func nonce(_ counter: UInt64) throws -> AES.GCM.Nonce {
        var bytes = Data(count: 4)
        withUnsafeBytes(of: counter.bigEndian) { bytes.append(contentsOf: $0) }
        return try AES.GCM.Nonce(data: bytes)
    }

    private static func wrappingKey(_ shared: SharedSecret, ephemeral: Data, recipient: Data) -> SymmetricKey {
        shared.hkdfDerivedSymmetricKey(
            using: SHA256.self,
            salt: ephemeral + recipient,
            sharedInfo: info,
            outputByteCount: 32
        )
    }

    private static func record(_ type: UInt8, _ payload: Data) -> Data {
        var bytes = Data([type])
        withUnsafeBytes(of: UInt32(payload.count).bigEndian) { bytes.append(contentsOf: $0) }
        return bytes + payload
    }
}
