import Crypto
import Foundation
import LatchkeyCrypto
import _CryptoExtras

/// One open session (`org.freedesktop.Secret.Session`): how secrets travel between the service and the
/// client that opened it.
///
/// `plain` sends the secret's bytes as they are (the bus is local and per user); the
/// `dh-ietf1024-sha256-aes128-cbc-pkcs7` algorithm encrypts each secret with AES-128-CBC and PKCS#7 padding
/// under the key both sides derived (`DiffieHellmanExchange`), a fresh random IV in the secret's
/// `parameters`.
struct SecretSession {
    /// The algorithm names of the specification.
    enum Algorithm: String {
        /// No encryption.
        case plain
        /// Diffie-Hellman, HKDF-SHA256, AES-128-CBC with PKCS#7.
        case dhAES = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    }

    /// The session's object path.
    let path: String
    /// The unique bus name of the client that opened it: only it may use the session.
    let owner: String
    /// The AES key, or `nil` for `plain`.
    let key: SymmetricKey?

    /// The `(oayays)` secret structure carrying `secret`.
    func encode(_ secret: SecretData, contentType: String) throws(SecretServiceError) -> BusValue {
        guard let key else {
            return .structure([.objectPath(path), .bytes(Data()), .bytes(secret.data), .string(contentType)])
        }
        do {
            let ivBytes = SecureRandom.bytes(16)
            let iv = try AES._CBC.IV(ivBytes: ivBytes)
            let sealed = try secret.withUnsafeBytes { try AES._CBC.encrypt($0, using: key, iv: iv) }
            return .structure([.objectPath(path), .bytes(ivBytes), .bytes(sealed), .string(contentType)])
        } catch {
            throw .failed("The secret could not be encrypted for the session.")
        }
    }

    /// The secret and its content type carried by an `(oayays)` structure sent to this session.
    ///
    /// - Throws: `invalidArguments` for a malformed structure or a secret that does not decrypt.
    func decode(_ value: BusValue) throws(SecretServiceError) -> (SecretData, String) {
        guard case .structure(let fields) = value, fields.count == 4, let parameters = fields[1].bytesValue,
            let bytes = fields[2].bytesValue, let contentType = fields[3].stringValue
        else { throw .invalidArguments("A secret must be (oayays).") }
        guard let key else { return (SecretData(bytes), contentType) }
        do {
            let iv = try AES._CBC.IV(ivBytes: parameters)
            let plain = try AES._CBC.decrypt(bytes, using: key, iv: iv)
            return (SecretData(plain), contentType)
        } catch {
            throw .invalidArguments("The secret does not decrypt with the session's key.")
        }
    }
}
