#if !canImport(Darwin)
import Foundation
import LatchkeyCrypto
import SwiftASN1

/// PBKDF2 parameters (RFC 8018 §A.2): salt, iteration count, optional key length and PRF (HMAC-SHA-1 when
/// absent), read for `LatchkeyCrypto.PBKDF2`.
struct PBKDF2Parameters {
    /// The salt (only the `specified` choice is supported).
    let salt: [UInt8]
    /// The iteration count, at most `PBKDF2.maximumIterations`.
    let iterations: Int
    /// The key length, when the parameters give one.
    let keyLength: Int?
    /// The hash of the HMAC PRF.
    let hash: HashAlgorithm

    /// Reads the parameters of a PBKDF2 `AlgorithmIdentifier`.
    ///
    /// - Throws: `PKCS12Error.unsupported` for another KDF, PRF or salt source, or too many rounds;
    ///   `PKCS12Error.malformed` for bad parameters.
    init(_ algorithm: AlgorithmIdentifier) throws {
        guard algorithm.oid == PKCS12OID.pbkdf2, let parameters = algorithm.parameters else {
            throw PKCS12Error.unsupported("Only PBKDF2 is supported as PBES2 key derivation function.")
        }
        var parts = try parameters.sequence()[...]
        guard let saltElement = parts.popFirst(), saltElement.identifier == .octetString else {
            throw PKCS12Error.unsupported("Only specified PBKDF2 salts are supported.")
        }
        salt = try saltElement.octets()
        guard let count = try parts.popFirst()?.smallInteger(), count >= 1 else {
            throw PKCS12Error.malformed("Bad PBKDF2 iteration count.")
        }
        guard count <= PBKDF2.maximumIterations else { throw PKCS12Error.unsupported("Too many PBKDF2 rounds.") }
        iterations = count
        if parts.first?.identifier == .integer {
            keyLength = try parts.popFirst()?.smallInteger()
        } else {
            keyLength = nil
        }
        if let keyLength, keyLength < 1 || keyLength > 64 {
            throw PKCS12Error.malformed("Bad PBKDF2 key length.")
        }
        var prf = PKCS12OID.hmacWithSHA1
        if let element = parts.popFirst() { prf = try AlgorithmIdentifier(element).oid }
        guard parts.isEmpty else { throw PKCS12Error.malformed("Bad PBKDF2 parameters.") }
        switch prf {
        case PKCS12OID.hmacWithSHA1: hash = .sha1
        case PKCS12OID.hmacWithSHA224: hash = .sha224
        case PKCS12OID.hmacWithSHA256: hash = .sha256
        case PKCS12OID.hmacWithSHA384: hash = .sha384
        case PKCS12OID.hmacWithSHA512: hash = .sha512
        default: throw PKCS12Error.unsupported("Unsupported PBKDF2 PRF.")
        }
    }
}
#endif
