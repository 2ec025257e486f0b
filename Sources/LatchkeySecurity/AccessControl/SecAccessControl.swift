#if !canImport(Darwin)
import Foundation
import Latchkey

/// `SecAccessControlCreateFlags`: the authentication an item's secret requires (Apple's bit values).
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// The raw flags (`CFOptionFlags`).
    public let rawValue: CFOptionFlags

    /// Wraps raw flags.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    /// `.userPresence`: biometry or passcode (here: the installed `LAAuthenticator`).
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// `.biometryAny`: any enrolled biometry.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// `.touchIDAny` (deprecated alias of `.biometryAny`).
    public static let touchIDAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// `.biometryCurrentSet`: the currently enrolled biometry.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// `.touchIDCurrentSet` (deprecated alias of `.biometryCurrentSet`).
    public static let touchIDCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// `.devicePasscode`: the device passcode (here: the keychain passphrase).
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// `.watch` (deprecated alias of `.companion`).
    public static let watch = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// `.companion`: a paired companion device.
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// `.or`: any one constraint suffices.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// `.and`: every constraint is required (the default for several).
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// `.privateKeyUsage`: constraints apply to private-key operations, not to reading the item.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// `.applicationPassword`: an extra application-supplied password.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)

    /// The flags that are user-authentication constraints.
    static let constraints: SecAccessControlCreateFlags = [
        .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion, .applicationPassword,
    ]
}

/// `SecAccessControl`: an item protection (`kSecAttrAccessible*` value) plus authentication constraints.
///
/// Create one with `SecAccessControlCreateWithFlags` and put it under `kSecAttrAccessControl`. Attribute
/// dictionaries returned by `SecItemCopyMatching` hold one for every item (for items added without
/// one: the item's protection and no constraints), as on Apple platforms.
///
/// Known differences from Apple: constraints are enforced by this library (it asks
/// `LAAuthentication.current` before returning an item's secret), not by hardware; pinned by
/// `AccessControlTests`.
public final class SecAccessControl: NSObject, @unchecked Sendable {
    // SAFETY: immutable after init (two `let`s of Sendable types).
    /// The protection code (`pdmn`, e.g. `"ak"`).
    let protection: String
    /// The creation flags.
    let flags: SecAccessControlCreateFlags

    init(protection: String, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
        super.init()
    }

    /// Whether reading the item's secret needs user authentication.
    var requiresAuthentication: Bool {
        !flags.intersection(SecAccessControlCreateFlags.constraints).isEmpty && !flags.contains(.privateKeyUsage)
    }

    /// Equal when protection and flags are equal.
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SecAccessControl else { return false }
        return protection == other.protection && flags == other.flags
    }

    /// Hash of protection and flags.
    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(protection)
        hasher.combine(flags.rawValue)
        return hasher.finalize()
    }

    /// `"<SecAccessControlRef: ak>"`-style text, like Apple's.
    public override var description: String {
        flags.isEmpty
            ? "<SecAccessControlRef: \(protection)>" : "<SecAccessControlRef: \(protection);flags=\(flags.rawValue)>"
    }

    private static let magic = Data("lkacl1".utf8)

    /// The serialized form stored in the `accc` attribute.
    var serialized: Data {
        var out = Self.magic
        withUnsafeBytes(of: UInt64(flags.rawValue).bigEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: Array(protection.utf8))
        return out
    }

    /// Parses a stored `accc` value; unreadable data becomes a control that requires authentication
    /// (fail closed).
    static func deserialize(_ data: Data, fallbackProtection: String) -> SecAccessControl {
        let bytes = [UInt8](data)
        let magic = [UInt8](Self.magic)
        guard bytes.count >= magic.count + 8, Array(bytes[0..<magic.count]) == magic else {
            return SecAccessControl(protection: fallbackProtection, flags: .userPresence)
        }
        var raw: UInt64 = 0
        for byte in bytes[magic.count..<magic.count + 8] { raw = raw << 8 | UInt64(byte) }
        let protection = String(decoding: bytes[(magic.count + 8)...], as: UTF8.self)
        return SecAccessControl(
            protection: protection,
            flags: SecAccessControlCreateFlags(rawValue: CFOptionFlags(raw))
        )
    }
}

/// `SecAccessControlCreateWithFlags`: makes an access control.
///
/// - Parameters:
///   - allocator: Ignored (`kCFAllocatorDefault` or `nil`).
///   - protection: A `kSecAttrAccessible*` value.
///   - flags: Constraints. As on Apple: `.userPresence` combines only with `.applicationPassword` and
///     `.privateKeyUsage`; `.biometryAny` with `.biometryCurrentSet`, and `.or` with `.and`, are rejected.
///   - error: Receives an `NSError` (domain `NSOSStatusErrorDomain`, code `errSecParam`) on failure.
/// - Returns: The access control, or `nil` for invalid arguments.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?,
    _ protection: CFTypeRef,
    _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail(_ reason: String) -> SecAccessControl? {
        let nsError = NSError(
            domain: "NSOSStatusErrorDomain",
            code: Int(errSecParam),
            userInfo: [NSLocalizedDescriptionKey: reason]
        )
        error?.pointee = Unmanaged.passRetained(nsError)
        return nil
    }
    guard let code = protection as? String, Accessibility(rawValue: code) != nil else {
        return fail("SecAccessControlCreateWithFlags: protection is not a kSecAttrAccessible value.")
    }
    if flags.contains(.userPresence),
        !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty
    {
        return fail("SecAccessControlCreateWithFlags: userPresence cannot be combined with other constraints.")
    }
    if flags.isSuperset(of: [.biometryAny, .biometryCurrentSet]) {
        return fail("SecAccessControlCreateWithFlags: biometryAny and biometryCurrentSet are exclusive.")
    }
    if flags.isSuperset(of: [.or, .and]) {
        return fail("SecAccessControlCreateWithFlags: or and and are exclusive.")
    }
    return SecAccessControl(protection: code, flags: flags)
}

/// `SecAccessControlGetTypeID`: the CF type identifier of access controls (Latchkey's own number).
public func SecAccessControlGetTypeID() -> CFTypeID { 300 }
#endif
