import Foundation

/// The stored form of an item's access control (`kSecAttrAccessControl`, attribute `accc`): a protection
/// class plus Apple's `SecAccessControlCreateFlags` bits.
///
/// The core decides from it whether reading an item's secret needs user authentication; the Apple face's
/// `SecAccessControl` is a view of this value.
public struct AccessControlRecord: Sendable, Hashable {
    /// The protection code (`pdmn`, e.g. `"ak"`).
    public var protection: String
    /// Apple's `SecAccessControlCreateFlags` raw value.
    public var flags: UInt64

    /// The flag bits that are user-authentication constraints: userPresence, biometryAny,
    /// biometryCurrentSet, devicePasscode, companion, applicationPassword.
    public static let constraintMask: UInt64 = 1 << 0 | 1 << 1 | 1 << 3 | 1 << 4 | 1 << 5 | 1 << 31
    /// `privateKeyUsage`: constraints apply to key operations, not to reading the item.
    public static let privateKeyUsage: UInt64 = 1 << 30
    /// `userPresence`: what an unreadable record is taken to require (fail closed).
    public static let userPresence: UInt64 = 1 << 0

    /// Makes a record.
    public init(protection: String, flags: UInt64) {
        self.protection = protection
        self.flags = flags
    }

    /// Whether reading the item's secret needs user authentication.
    public var requiresAuthentication: Bool {
        flags & Self.constraintMask != 0 && flags & Self.privateKeyUsage == 0
    }

    private static let magic = Data("lkacl1".utf8)

    /// The bytes stored in `accc`: `lkacl1`, the flags as a big-endian UInt64, the protection in UTF-8.
    public var serialized: Data {
        var out = Self.magic
        withUnsafeBytes(of: flags.bigEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: Array(protection.utf8))
        return out
    }

    /// Parses stored bytes; unreadable bytes become a record that requires authentication (fail closed).
    ///
    /// - Parameters:
    ///   - data: The stored `accc` value.
    ///   - fallbackProtection: The item's `pdmn`, used when the bytes are unreadable.
    public init(serialized data: Data, fallbackProtection: String) {
        let bytes = [UInt8](data)
        let magic = [UInt8](Self.magic)
        guard bytes.count >= magic.count + 8, Array(bytes[0..<magic.count]) == magic else {
            self.init(protection: fallbackProtection, flags: Self.userPresence)
            return
        }
        var raw: UInt64 = 0
        for byte in bytes[magic.count..<magic.count + 8] { raw = raw << 8 | UInt64(byte) }
        self.init(protection: String(decoding: bytes[(magic.count + 8)...], as: UTF8.self), flags: raw)
    }

    /// An item's access control: the stored one, else its protection without constraints.
    public init(of attributes: [AttributeName: AttributeValue]) {
        let protection = attributes[.accessible]?.stringValue ?? Accessibility.whenUnlocked.rawValue
        if let stored = attributes[.accessControl]?.dataValue {
            self.init(serialized: stored, fallbackProtection: protection)
        } else {
            self.init(protection: protection, flags: 0)
        }
    }
}
