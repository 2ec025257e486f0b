import Foundation
import LatchkeyCrypto

/// Something that unlocks a keychain (or protects a new one): a passphrase or a key file.
public enum UnlockCredential: Sendable, Hashable, CustomStringConvertible {
    /// A passphrase, stretched with scrypt.
    case passphrase(SecretData)
    /// 32 random bytes (raw, or as 64 hexadecimal characters), typically read from a key file.
    case keyFile(SecretData)

    /// Reads a key file.
    ///
    /// - Parameter path: A file holding 32 raw bytes or 64 hexadecimal characters (a trailing newline is allowed).
    /// - Throws: `KeychainError.Code.param` when the file cannot be read or has the wrong length.
    public static func keyFile(at path: String) throws(KeychainError) -> UnlockCredential {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw KeychainError(.param, "Cannot read the key file at \(path).")
        }
        return .keyFile(try normalizedKey(contents))
    }

    /// Creates a new key file of 32 random bytes with mode 0600 and returns it as a credential.
    ///
    /// - Throws: `KeychainError.Code.io` if the file exists or cannot be written.
    public static func createKeyFile(at path: String) throws(KeychainError) -> UnlockCredential {
        let bytes = SecureRandom.bytes(32)
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw KeychainError(.io, "Cannot create the key file at \(path): \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw KeychainError(.io, "Cannot write the key file at \(path).")
        }
        return .keyFile(SecretData(bytes))
    }

    static func normalizedKey(_ contents: Data) throws(KeychainError) -> SecretData {
        if contents.count == 32 { return SecretData(contents) }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 64, let bytes = hexBytes(text) { return SecretData(bytes) }
        throw KeychainError(.param, "A key file must hold exactly 32 random bytes (or 64 hexadecimal characters).")
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return bytes.count == 32 ? bytes : nil
    }

    /// The credentials named by the environment, in order of preference: `LATCHKEY_KEY_FILE`,
    /// `LATCHKEY_PASSPHRASE_FILE`, then `LATCHKEY_PASSPHRASE` (meant for CI only: the environment of a
    /// process can be read by the same user).
    ///
    /// - Throws: `KeychainError.Code.param` when a named file cannot be read.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(KeychainError) -> [UnlockCredential] {
        var credentials: [UnlockCredential] = []
        if let path = environment["LATCHKEY_KEY_FILE"], !path.isEmpty {
            credentials.append(try keyFile(at: path))
        }
        if let path = environment["LATCHKEY_PASSPHRASE_FILE"], !path.isEmpty {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw KeychainError(.param, "Cannot read the passphrase file named by LATCHKEY_PASSPHRASE_FILE.")
            }
            var bytes = [UInt8](contents)
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            credentials.append(.passphrase(SecretData(bytes)))
        }
        if let passphrase = environment["LATCHKEY_PASSPHRASE"], !passphrase.isEmpty {
            credentials.append(.passphrase(SecretData(string: passphrase)))
        }
        return credentials
    }

    /// The kind only; the secret is never printed.
    public var description: String {
        switch self {
        case .passphrase: "passphrase(redacted)"
        case .keyFile: "keyFile(redacted)"
        }
    }
}
