#if !canImport(Darwin)
import Foundation

/// The keys and values of one result dictionary, collected in order and made into an `NSDictionary` in
/// one step.
///
/// swift-corelibs-foundation builds an `NSDictionary` from a Swift `[String: AnyObject]` by converting the
/// whole dictionary to `[AnyHashable: Any]`, bridging every key and boxing every value again; handing it
/// the key and value objects directly costs about a third of that. As in a Swift dictionary, a later value
/// for the same key replaces the earlier one.
struct ResultEntries {
    private var keys: [NSObject] = []
    private var values: [AnyObject] = []
    /// Whether a value is not an `NSObject` (`SecKey`, `SecCertificate`, `SecIdentity` are Swift classes).
    private var holdsSwiftObjects = false

    /// Makes an empty collection with room for `capacity` entries.
    init(capacity: Int) {
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// Sets `key` to `value`.
    mutating func set(_ key: String, _ value: AnyObject) {
        keys.append(NSString(string: key))
        values.append(value)
        if !(value is NSObject) { holdsSwiftObjects = true }
    }

    /// The dictionary of the entries set so far.
    func dictionary() -> NSDictionary {
        // Swift objects go through Foundation's own boxing (as `NSDictionary(dictionary:)` stores them), so
        // that reading them back behaves exactly as before.
        if holdsSwiftObjects { return NSDictionary(objects: values, forKeys: keys) }
        return values.withUnsafeBufferPointer { values in
            keys.withUnsafeBufferPointer { keys in
                NSDictionary(objects: values.baseAddress, forKeys: keys.baseAddress, count: keys.count)
            }
        }
    }
}
#endif
