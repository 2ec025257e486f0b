import Crypto
import Foundation
import Latchkey
import LatchkeyCrypto
import _CryptoExtras

/// gnome-keyring's encrypted keyring format, as its `pkcs11/secret-store/gkm-secret-binary.c` writes it (read
/// as `gkm_secret_binary_read` reads it; oo7's `legacy_keyring.rs` reads it the same way).
///
/// Every number is a big-endian `uint32`; a string or byte array is its length and its bytes (length
/// `0xffffffff`: none); a time is two numbers, the high and low halves of the seconds since 1970.
///
/// ```
/// "GnomeKeyring\n\r\0\n"  major 0, minor 0, crypto 0 (AES-128), hash 0 (MD5)
/// label, time, time, flags, lock timeout, hash iterations, salt (8 bytes), 4 reserved numbers
/// item count, then per item (not encrypted): id, type, attribute count, attributes (names with hashed values)
/// encrypted size (a multiple of 16), then the encrypted block:
///   MD5 of the rest of the block (16 bytes), then per item: label, secret, created, modified,
///   a reserved string, 4 reserved numbers, attribute count, attributes (name, 0 and a string value, or 1 and a
///   uint32), ACL count and ACLs (types, display name, path, reserved string, reserved number); zero padding
/// ```
///
/// The block is AES-128-CBC (no padding) under a key and IV made from the password and the salt by
/// `egg_symkey_generate_simple`: SHA-256 of password ‖ salt, hashed again `iterations − 1` times; the first 16
/// bytes are the key, the next 16 the IV. A wrong password shows as an MD5 that does not match.
enum GnomeKeyringBinary {
    /// The file's first 16 bytes.
    static let magic: [UInt8] = Array("GnomeKeyring\n\r".utf8) + [0, 0x0A]

    /// Whether `bytes` start with the binary format's magic.
    static func isBinary(_ bytes: [UInt8]) -> Bool {
        bytes.count >= magic.count && Array(bytes.prefix(magic.count)) == magic
    }

    /// Reads the whole keyring in `bytes`, decrypting its items with `password`.
    ///
    /// - Parameters:
    ///   - bytes: The file's contents.
    ///   - password: The keyring's password.
    ///   - path: The file, for messages.
    /// - Throws: `authFailed` when the password does not open it; `decode` when it is damaged (truncated, a
    ///   length past its end, an unknown version or attribute type, text that is not UTF-8).
    static func read(_ bytes: [UInt8], password: SecretData, path: String) throws(KeychainError) -> GnomeKeyring {
        var reader = GnomeKeyringBuffer(bytes, path: path)
        guard isBinary(bytes) else { throw reader.damaged("it does not start with gnome-keyring's header") }
        reader.offset = magic.count
        let version = try reader.bytes(count: 4)
        guard version == [0, 0, 0, 0] else {
            throw reader.damaged("its format version or algorithms (\(version)) are not gnome-keyring's 0.0 AES/MD5")
        }
        let label = try reader.string() ?? ""
        // gkm_secret_binary_write writes the modified time, then the created one.
        let modified = try reader.time()
        let created = try reader.time()
        _ = try reader.uint32()  // flags
        _ = try reader.uint32()  // lock timeout
        let iterations = try reader.uint32()
        let salt = try reader.bytes(count: 8)
        for _ in 0..<4 { _ = try reader.uint32() }
        let count = try reader.uint32()
        guard Int(count) <= bytes.count / 8 else { throw reader.damaged("its item count is larger than the file") }
        var headers: [(id: UInt32, type: UInt32)] = []
        headers.reserveCapacity(Int(count))
        for _ in 0..<count {
            let id = try reader.uint32()
            let type = try reader.uint32()
            // The attributes here are hashed (MD5 of strings): only the encrypted copy is kept.
            _ = try reader.attributes(hashed: true)
            headers.append((id, type))
        }
        let size = Int(try reader.uint32())
        guard size % 16 == 0, size >= 16 else { throw reader.damaged("its encrypted part is not whole AES blocks") }
        let encrypted = try reader.bytes(count: size)
        guard iterations >= 1 else { throw reader.damaged("its key-derivation iteration count is 0") }
        var block = try decrypt(encrypted, password: password, salt: salt, iterations: Int(iterations), path: path)
        defer { wipe(&block) }
        let digest = Array(Insecure.MD5.hash(data: block[16...]))
        guard digest == Array(block[0..<16]) else {
            throw KeychainError(
                .authFailed,
                "The password does not open the gnome-keyring keyring \(path) (or its encrypted part is damaged): "
                    + "give that keyring's password (usually the login password when it was last changed), or "
                    + "leave it out with --skip-locked."
            )
        }
        var inner = GnomeKeyringBuffer(block, path: path)
        inner.offset = 16
        var items: [GnomeKeyring.Item] = []
        items.reserveCapacity(headers.count)
        for header in headers {
            let itemLabel = try inner.string() ?? ""
            let secret = SecretData(try inner.byteArray() ?? [])
            let itemCreated = try inner.time()
            let itemModified = try inner.time()
            _ = try inner.string()
            for _ in 0..<4 { _ = try inner.uint32() }
            let attributes = try inner.attributes(hashed: false)
            let acls = try inner.uint32()
            for _ in 0..<acls {
                _ = try inner.uint32()
                _ = try inner.string()
                _ = try inner.string()
                _ = try inner.string()
                _ = try inner.uint32()
            }
            items.append(
                GnomeKeyring.Item(
                    id: header.id,
                    type: header.type,
                    label: itemLabel,
                    attributes: GnomeKeyring.Item.withSchema(attributes, type: header.type),
                    secret: secret,
                    created: itemCreated,
                    modified: itemModified
                )
            )
        }
        return GnomeKeyring(label: label, created: created, modified: modified, items: items)
    }

    /// The AES-128 key and IV of `egg_symkey_generate_simple` with SHA-256 (one pass gives both).
    static func keyAndIV(password: SecretData, salt: [UInt8], iterations: Int) -> (SymmetricKey, [UInt8]) {
        var hasher = SHA256()
        password.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: salt)
        var digest = Array(hasher.finalize())
        for _ in 1..<max(iterations, 1) {
            let next = Array(SHA256.hash(data: digest))
            wipe(&digest)
            digest = next
        }
        defer { wipe(&digest) }
        return (SymmetricKey(data: digest[0..<16]), Array(digest[16..<32]))
    }

    private static func decrypt(
        _ encrypted: [UInt8],
        password: SecretData,
        salt: [UInt8],
        iterations: Int,
        path: String
    ) throws(KeychainError) -> [UInt8] {
        let (key, iv) = keyAndIV(password: password, salt: salt, iterations: iterations)
        do {
            let plain = try AES._CBC.decrypt(encrypted, using: key, iv: try AES._CBC.IV(ivBytes: iv), noPadding: true)
            return Array(plain)
        } catch {
            throw KeychainError(.decode, "The encrypted part of the gnome-keyring keyring \(path) cannot be decrypted.")
        }
    }
}
