/// The RSA signature encoding EMSA-PKCS1-v1_5 (RFC 8017 §9.2), for what swift-crypto's `_RSA.Signing` cannot
/// sign: caller-supplied digests, SHA-224, and the bare payload without a DigestInfo.
///
/// The encoding is deterministic; signing applies `RSARawPrivateOperation` to it, verification compares the
/// result of `RSARawPublicOperation` with it.
package enum EMSAPKCS1v15 {
    /// The DER `DigestInfo` header (RFC 8017 §9.2 note 1) that precedes a digest of `hash`.
    package static func digestInfoPrefix(_ hash: HashAlgorithm) -> [UInt8] {
        switch hash {
        case .sha1: [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00, 0x04, 0x14]
        case .sha224: sha2Prefix(0x2D, 0x04, 0x1C)
        case .sha256: sha2Prefix(0x31, 0x01, 0x20)
        case .sha384: sha2Prefix(0x41, 0x02, 0x30)
        case .sha512: sha2Prefix(0x51, 0x03, 0x40)
        }
    }

    /// `SEQUENCE { SEQUENCE { OID 2.16.840.1.101.3.4.2.<arc>, NULL }, OCTET STRING (length) }` header.
    private static func sha2Prefix(_ sequenceLength: UInt8, _ arc: UInt8, _ length: UInt8) -> [UInt8] {
        [0x30, sequenceLength, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, arc, 0x05, 0x00]
            + [0x04, length]
    }

    /// `00 01 FF…FF 00 ‖ T` in `byteCount` bytes, `T` the DigestInfo of `digest` (or `digest` itself when
    /// `hash` is `nil`).
    ///
    /// - Throws: `CryptoError.invalidParameters` when `T` leaves fewer than 8 bytes of `FF` padding.
    package static func encode(_ digest: [UInt8], hash: HashAlgorithm?, byteCount: Int) throws(CryptoError) -> [UInt8] {
        let payload = (hash.map(digestInfoPrefix) ?? []) + digest
        guard payload.count + 11 <= byteCount else {
            throw .invalidParameters(
                "The data to sign is too long for this RSA key: at most \(max(byteCount - 11, 0)) bytes"
                    + (hash == nil ? "" : " of DigestInfo") + ", got \(payload.count)."
            )
        }
        return [0x00, 0x01] + [UInt8](repeating: 0xFF, count: byteCount - payload.count - 3) + [0x00] + payload
    }
}
