#if !canImport(Darwin)
import Foundation
import LatchkeyCrypto
import SwiftASN1

/// A PFX's `MacData` (RFC 7292 §4): the password MAC over the authenticated safe.
///
/// Supports HMAC with SHA-1, SHA-256, SHA-384 or SHA-512 keyed by the PKCS#12 KDF (ID 3, the passphrase as a
/// NUL-terminated BMPString), and PBMAC1 (RFC 9579: PBKDF2 over the UTF-8 passphrase, then HMAC). This type
/// reads the ASN.1; `LatchkeyCrypto.PKCS12MAC` computes and compares (in constant time).
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
    init(_ node: ASN1Node) throws {
        let parts = try node.sequence()
        guard parts.count == 2 || parts.count == 3 else { throw PKCS12Error.malformed("Bad MacData.") }
        let digestInfo = try parts[0].sequence()
        guard digestInfo.count == 2 else { throw PKCS12Error.malformed("Bad MAC DigestInfo.") }
        algorithm = try AlgorithmIdentifier(digestInfo[0])
        digest = try digestInfo[1].octets()
        salt = try parts[1].octets()
        iterations = try parts.count == 3 ? parts[2].smallInteger() : 1
        guard iterations <= PBKDF2.maximumIterations else { throw PKCS12Error.unsupported("Too many MAC rounds.") }
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
        let hash: HashAlgorithm
        switch algorithm.oid {
        case PKCS12OID.sha1: hash = .sha1
        case PKCS12OID.sha256: hash = .sha256
        case PKCS12OID.sha384: hash = .sha384
        case PKCS12OID.sha512: hash = .sha512
        default: throw PKCS12Error.unsupported("Unsupported MAC digest algorithm.")
        }
        var candidates = [PKCS12KDF.bmpPassword(passphrase)]
        if passphrase.isEmpty { candidates.append([]) }
        defer { for index in candidates.indices { wipe(&candidates[index]) } }
        for password in candidates
        where PKCS12MAC.isValid(
            digest,
            for: authSafe,
            hash: hash,
            password: password,
            salt: salt,
            iterations: iterations
        ) {
            return
        }
        throw PKCS12Error.wrongPassphrase
    }

    /// PBMAC1 (RFC 9579): PBMAC1-params { keyDerivationFunc PBKDF2, messageAuthScheme hmacWithSHA* }.
    private func verifyPBMAC1(_ authSafe: [UInt8], passphrase: String) throws -> Bool {
        guard let parameters = algorithm.parameters else { throw PKCS12Error.malformed("Bad PBMAC1 parameters.") }
        let parts = try parameters.sequence()
        guard parts.count == 2 else { throw PKCS12Error.malformed("Bad PBMAC1 parameters.") }
        let kdf = try PBKDF2Parameters(AlgorithmIdentifier(parts[0]))
        guard let keyLength = kdf.keyLength else { throw PKCS12Error.malformed("PBMAC1 needs a key length.") }
        let macHash: HashAlgorithm
        switch try AlgorithmIdentifier(parts[1]).oid {
        case PKCS12OID.hmacWithSHA1: macHash = .sha1
        case PKCS12OID.hmacWithSHA256: macHash = .sha256
        case PKCS12OID.hmacWithSHA384: macHash = .sha384
        case PKCS12OID.hmacWithSHA512: macHash = .sha512
        default: throw PKCS12Error.unsupported("Unsupported PBMAC1 message authentication scheme.")
        }
        var password = Array(passphrase.utf8)
        defer { wipe(&password) }
        do throws(LatchkeyCrypto.CryptoError) {
            return try PKCS12MAC.isValidPBMAC1(
                digest,
                for: authSafe,
                password: password,
                salt: kdf.salt,
                iterations: kdf.iterations,
                kdfHash: kdf.hash,
                keyByteCount: keyLength,
                macHash: macHash
            )
        } catch {
            throw PKCS12Error.malformed("Bad PBMAC1 parameters.")
        }
    }
}
#endif
