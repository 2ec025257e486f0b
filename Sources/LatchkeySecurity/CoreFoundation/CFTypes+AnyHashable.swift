#if !canImport(Darwin)
import Foundation

// `AnyHashable` for the CF types, as on Apple platforms.
//
// Apple's Foundation gives `NSString` and `NSNumber` a custom `AnyHashable` representation: a `CFString`
// constant type-erased to `AnyHashable` is the Swift `String` with the same text, and `kCFBooleanTrue` is
// `true`. Keychain code relies on it without knowing: `[AnyHashable: Any]` results read with
// `attributes[kSecAttrAccount]`, `[String: AnyHashable]` queries compared with `==`, and
// `NSDictionary.isEqual(to:)`, which compares values as `AnyHashable`. swift-corelibs-foundation gives
// the representation to `NSData` only, so there `AnyHashable(kSecClassGenericPassword)` is not
// `AnyHashable("genp")`, and `AnyHashable(kCFBooleanTrue)` equals `AnyHashable(1)`, not `AnyHashable(true)`.
// These two conformances restore Apple's behaviour for every `NSString` and boolean `NSNumber` in a
// process that links `LatchkeySecurity`. They are retroactive: should swift-corelibs-foundation add its own,
// both give the same values.

/// `CFString` (`NSString`) as `AnyHashable` is the Swift `String` with the same text, as on Apple platforms.
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// The `String` with this text, wrapped in `AnyHashable` (Apple's Foundation does the same).
    ///
    /// - Returns: `AnyHashable(String(self))`.
    @nonobjc public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(String._unconditionallyBridgeFromObjectiveC(self))
    }
}

/// `CFBoolean` (`NSNumber`) as `AnyHashable` is the Swift `Bool`, as on Apple platforms.
extension NSNumber: @retroactive _HasCustomAnyHashableRepresentation {
    /// For a boolean object (`kCFBooleanTrue`, `kCFBooleanFalse`, a bridged `Bool`), the `Bool` it stands
    /// for, wrapped in `AnyHashable`; for any other number `nil`, which keeps the number itself.
    ///
    /// Other numbers need no representation here: `AnyHashable(NSNumber(value: 42)) == AnyHashable(42)`
    /// holds already, and keeping the `NSNumber` keeps `as? Bool`/`as? Int` working on the values of a
    /// result cast to `[String: AnyHashable]` (`sync`, `invi`, `type` are numbers there, as on Apple).
    ///
    /// - Returns: `AnyHashable(boolValue)` for a boolean object, otherwise `nil`.
    @nonobjc public func _toCustomAnyHashable() -> AnyHashable? {
        CFTypeCheck.isBoolean(self) ? AnyHashable(boolValue) : nil
    }
}
#endif
