#if !canImport(Darwin)
import Foundation

// Core Foundation names that keychain code written for Apple platforms uses. swift-corelibs-foundation
// does not export Core Foundation, so each name maps to the Foundation class that CF type bridges to
// on Apple platforms. Dictionaries, strings, data and numbers therefore cast with `as` exactly as there.

/// `CFTypeRef`: any Core Foundation object; here any class instance.
public typealias CFTypeRef = AnyObject
/// `CFString`, toll-free bridged to `NSString` (so `kSecClass as String` works).
public typealias CFString = NSString
/// `CFMutableString`.
public typealias CFMutableString = NSMutableString
/// `CFDictionary`, toll-free bridged to `NSDictionary` (so `query as CFDictionary` works).
public typealias CFDictionary = NSDictionary
/// `CFMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
/// `CFArray`, toll-free bridged to `NSArray`.
public typealias CFArray = NSArray
/// `CFMutableArray`.
public typealias CFMutableArray = NSMutableArray
/// `CFData`, toll-free bridged to `NSData`.
public typealias CFData = NSData
/// `CFMutableData`.
public typealias CFMutableData = NSMutableData
/// `CFNumber`, toll-free bridged to `NSNumber`.
public typealias CFNumber = NSNumber
/// `CFBoolean`: on Apple platforms a distinct CF type that bridges to `NSNumber`; here `NSNumber`.
///
/// swift-corelibs-foundation represents `NSNumber(value: true)` (and Swift `true` bridged to an object)
/// with a private boolean subclass, which the keychain uses to tell booleans from numbers.
public typealias CFBoolean = NSNumber
/// `CFDate`, toll-free bridged to `NSDate`.
public typealias CFDate = NSDate
/// `CFError`, toll-free bridged to `NSError`.
public typealias CFError = NSError
/// `CFErrorDomain`: a `CFString`.
public typealias CFErrorDomain = CFString
/// `CFURL`, toll-free bridged to `NSURL`.
public typealias CFURL = NSURL
/// `CFIndex`: a signed machine word.
public typealias CFIndex = Int
/// `CFOptionFlags`: an unsigned machine word.
public typealias CFOptionFlags = UInt
/// `CFTypeID`: an unsigned machine word identifying a CF type.
public typealias CFTypeID = UInt

/// `CFAllocator`: memory allocators are not configurable here; every API ignores the allocator.
public final class CFAllocator: Sendable {
    private init() {}
}

/// `kCFAllocatorDefault`: `nil`, which means the default allocator on Apple platforms too.
public let kCFAllocatorDefault: CFAllocator! = nil

/// `kCFBooleanTrue`: the `true` boolean object (an `NSNumber` that the keychain recognises as a boolean).
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)

/// `kCFBooleanFalse`: the `false` boolean object.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// `kCFBundleIdentifierKey`: the Info.plist key of the bundle identifier.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString = "CFBundleIdentifier"

/// `CFBooleanGetValue`: the Swift value of a boolean object.
public func CFBooleanGetValue(_ boolean: CFBoolean!) -> Bool {
    boolean?.boolValue ?? false
}

/// `CFErrorGetDomain`: the error's domain.
public func CFErrorGetDomain(_ err: CFError!) -> CFErrorDomain! {
    err.map { $0.domain as NSString }
}

/// `CFErrorGetCode`: the error's code (for keychain errors, the OSStatus).
public func CFErrorGetCode(_ err: CFError!) -> CFIndex {
    err?.code ?? 0
}

/// `CFErrorCopyUserInfo`: the error's user-info dictionary (never `nil` for a non-`nil` error).
public func CFErrorCopyUserInfo(_ err: CFError!) -> CFDictionary! {
    err.map { NSDictionary(dictionary: $0.userInfo) }
}

/// `CFErrorCopyDescription`: a human-readable description of the error.
public func CFErrorCopyDescription(_ err: CFError!) -> CFString! {
    err.map { $0.localizedDescription as NSString }
}

/// `CFErrorCreate`: makes an error.
public func CFErrorCreate(
    _ allocator: CFAllocator!,
    _ domain: CFErrorDomain!,
    _ code: CFIndex,
    _ userInfo: CFDictionary!
) -> CFError! {
    var info: [String: Any] = [:]
    if let userInfo {
        for (key, value) in userInfo { if let key = key as? String { info[key] = value } }
    }
    return NSError(domain: (domain as String?) ?? "", code: code, userInfo: info)
}

/// `CFGetTypeID`: the type identifier of a CF object, comparable with `CFStringGetTypeID()` and friends.
///
/// Identifiers are Latchkey's own small numbers (not Apple's); unknown classes give 0.
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    switch cf {
    case is NSString: CFStringGetTypeID()
    case is NSData: CFDataGetTypeID()
    case let number as NSNumber: CFTypeCheck.isBoolean(number) ? CFBooleanGetTypeID() : CFNumberGetTypeID()
    case is NSDictionary: CFDictionaryGetTypeID()
    case is NSArray: CFArrayGetTypeID()
    case is NSDate: CFDateGetTypeID()
    case is NSError: CFErrorGetTypeID()
    case is SecKey: SecKeyGetTypeID()
    case is SecCertificate: SecCertificateGetTypeID()
    case is SecIdentity: SecIdentityGetTypeID()
    case is SecAccessControl: SecAccessControlGetTypeID()
    case is SecTrust: SecTrustGetTypeID()
    case is SecPolicy: SecPolicyGetTypeID()
    default: 0
    }
}

/// `CFStringGetTypeID`.
public func CFStringGetTypeID() -> CFTypeID { 7 }
/// `CFDataGetTypeID`.
public func CFDataGetTypeID() -> CFTypeID { 20 }
/// `CFNumberGetTypeID`.
public func CFNumberGetTypeID() -> CFTypeID { 22 }
/// `CFBooleanGetTypeID`.
public func CFBooleanGetTypeID() -> CFTypeID { 21 }
/// `CFDictionaryGetTypeID`.
public func CFDictionaryGetTypeID() -> CFTypeID { 18 }
/// `CFArrayGetTypeID`.
public func CFArrayGetTypeID() -> CFTypeID { 19 }
/// `CFDateGetTypeID`.
public func CFDateGetTypeID() -> CFTypeID { 42 }
/// `CFErrorGetTypeID`.
public func CFErrorGetTypeID() -> CFTypeID { 43 }
/// `SecKeyGetTypeID`: compare with `CFGetTypeID(item)` before `item as! SecKey`, as on Apple platforms.
public func SecKeyGetTypeID() -> CFTypeID { 301 }
/// `SecCertificateGetTypeID`: compare with `CFGetTypeID(item)` before `item as! SecCertificate`.
public func SecCertificateGetTypeID() -> CFTypeID { 302 }
/// `SecIdentityGetTypeID`: compare with `CFGetTypeID(item)` before `item as! SecIdentity`.
public func SecIdentityGetTypeID() -> CFTypeID { 303 }

/// How booleans are told apart from numbers on swift-corelibs-foundation.
enum CFTypeCheck {
    /// Whether `number` is a boolean object (`kCFBooleanTrue`, `NSNumber(value: true)`, a bridged Swift
    /// `Bool`): swift-corelibs-foundation makes those instances of a private `NSNumber` subclass.
    static func isBoolean(_ number: NSNumber) -> Bool {
        number === kCFBooleanTrue || number === kCFBooleanFalse || type(of: number) == booleanClass
    }

    /// The dynamic class of `NSNumber(value: true)` (`__NSCFBoolean` on swift-corelibs-foundation).
    private static let booleanClass: NSNumber.Type = type(of: NSNumber(value: true))
}
#endif
