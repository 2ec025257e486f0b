#if !canImport(Darwin)
import Crypto
import Foundation
import _CryptoExtras

/// A PFX's `MacData` (RFC 7292 §4): the password MAC over the authenticated safe.
///
/// Supports HMAC with SHA-1, SHA-256, SHA-384 or SHA-512 keyed by the PKCS#12 KDF (ID 3, the passphrase as a
/// NUL-terminated BMPString), and PBMAC1 (RFC 9579: PBKDF2 over the UTF-8 passphrase, then HMAC).
/// Comparison is constant-time.
struct MACData {
    /// The `DigestInfo` algorithm.
    let algorithm: AlgorithmIdentifier
    /// The expected MAC.
    let digest: [UInt8]
    /// The KDF salt.
    let salt: [UInt8]
    /// The KDF iteration count (default 1).
    let iterations: Int

    /// Reads a `MacData` SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }.
    init(_ element: BERElement) throws {
        let parts = try element.sequence()
        guard parts.count == 2 || parts.count == 3 else { throw PKCS12Error.malformed("Bad MacData.") }
        let digestInfo = try parts[0].sequence()
        guard digestInfo.count == 2 else { throw PKCS12Error.malformed("Bad MAC DigestInfo.") }
        algorithm = try AlgorithmIdentifier(digestInfo[0])
        digest = try digestInfo[1].octets()
        salt = try parts[1].octets()
        iterations = try parts.count == 3 ? parts[2].smallInteger() : 1
        guard iterations <= PBES2.maximumIterations else { throw PKCS12Error.unsupported("Too many MAC rounds.") }
    }

    /// Checks the MAC over `authSafe` under `passphrase`.
    ///
    /// An empty passphrase is tried both as the lone NUL terminator and as no bytes at all, as OpenSSL's
    /// `pkcs12` does, since writers disagree.
    ///
    /// - Throws: `PKCS12Error.wrongPassphrase` when it does not verify, `.unsupported` for unknown algorithms.
    func verify(_ authSafe: [UInt8], passphrase: String) throws {
        if algorithm.oid == PKCS12OID.pbmac1 {
            guard try verifyPBMAC1(authSafe, passphrase: passphrase) else { throw PKCS12Error.wrongPassphrase }
            return
        }
        var candidates = [PKCS12KDF.bmpPassword(passphrase)]
        if passphrase.isEmpty { candidates.append([]) }
        defer { for index in candidates.indices { wipe(&candidates[index]) } }
        for password in candidates {
            let valid: Bool
            switch algorithm.oid {
            case PKCS12OID.sha1: valid = check(Insecure.SHA1.self, authSafe, password: password)
            case PKCS12OID.sha256: valid = check(SHA256.self, authSafe, password: password)
            case PKCS12OID.sha384: valid = check(SHA384.self, authSafe, password: password)
            case PKCS12OID.sha512: valid = check(SHA512.self, authSafe, password: password)
            default: throw PKCS12Error.unsupported("Unsupported MAC digest algorithm.")
            }
            if valid { return }
        }
        throw PKCS12Error.wrongPassphrase
    }

    private func check<Hash: HashFunction>(_ hash: Hash.Type, _ authSafe: [UInt8], password: [UInt8]) -> Bool {
        guard digest.count == Hash.Digest.byteCount else { return false }
        var keyBytes = PKCS12KDF.derive(
            hash,
            password: password,
            salt: salt,
            iterations: iterations,
            purpose: .macKey,
            count: Hash.Digest.byteCount
        )
        defer { wipe(&keyBytes) }
        return isValid(hash, authSafe, key: SymmetricKey(data: keyBytes))
    }

    /// PBMAC1 (RFC 9579): PBMAC1-params { keyDerivationFunc PBKDF2, messageAuthScheme hmacWithSHA* }.
    private func verifyPBMAC1(_ authSafe: [UInt8], passphrase: String) throws -> Bool {
        guard let parameters = algorithm.parameters else { throw PKCS12Error.malformed("Bad PBMAC1 parameters.") }
        let parts = try parameters.sequence()
        guard parts.count == 2 else { throw PKCS12Error.malformed("Bad PBMAC1 parameters.") }
        let kdf = try PBKDF2Parameters(AlgorithmIdentifier(parts[0]))
        guard let keyLength = kdf.keyLength else { throw PKCS12Error.malformed("PBMAC1 needs a key length.") }
        var password = Array(passphrase.utf8)
        defer { wipe(&password) }
        let key = try kdf.deriveKey(password: password, defaultKeySize: keyLength)
        switch try AlgorithmIdentifier(parts[1]).oid {
        case PKCS12OID.hmacWithSHA1: return isValid(Insecure.SHA1.self, authSafe, key: key)
        case PKCS12OID.hmacWithSHA256: return isValid(SHA256.self, authSafe, key: key)
        case PKCS12OID.hmacWithSHA384: return isValid(SHA384.self, authSafe, key: key)
        case PKCS12OID.hmacWithSHA512: return isValid(SHA512.self, authSafe, key: key)
        default: throw PKCS12Error.unsupported("Unsupported PBMAC1 message authentication scheme.")
        }
    }

    /// Whether `digest` is the HMAC of `authSafe` under `key` (constant-time comparison).
    private func isValid<Hash: HashFunction>(_ hash: Hash.Type, _ authSafe: [UInt8], key: SymmetricKey) -> Bool {
        HMAC<Hash>.isValidAuthenticationCode(digest, authenticating: authSafe, using: key)
    }
}
#endif
