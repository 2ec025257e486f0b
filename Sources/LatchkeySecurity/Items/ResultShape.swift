#if !canImport(Darwin)
import Foundation
import Latchkey

/// Builds `SecItemAdd`/`SecItemCopyMatching` results (docs/apple-semantics.md §4) as Foundation objects, so that
/// `as? Data`, `as? [String: Any]` and `as? [[String: Any]]` work on swift-corelibs-foundation.
enum ResultShape {
    /// Attributes `SecItemAdd` does not return (docs/apple-semantics.md §4.3).
    private static let notReturnedByAdd: Set<AttributeName> = [.multiUser, .tombstone, "UUID", "persistref"]

    /// One found item's value for `SecItemCopyMatching`
    /// (docs/apple-semantics.md §4.1); `nil` when the flags produce none.
    static func copyMatchingValue(_ item: FoundItem, _ returns: ReturnFlags) -> AnyObject? {
        if returns.isEmpty { return nil }
        if returns == .data { return item.data.map(secretObject) }
        if returns == .persistentRef { return NSData(data: item.persistentReference) }
        // Only keys and certificates have reference objects (genp/inet have none on iOS either).
        if returns == .ref { return ItemReference.object(for: item) }
        // The client forces kSecReturnAttributes with kSecReturnData, so D+P carries every attribute;
        // there `accc` stays in serialized form (docs/apple-semantics.md §4.1).
        let rawAccessControl = returns == [.data, .persistentRef]
        var entries = ResultEntries(capacity: item.attributes.count + 4)
        addAttributes(of: item, to: &entries, rawAccessControl: rawAccessControl, excluding: [])
        if returns.contains(.ref) {
            entries.set("class", NSString(string: item.itemClass.rawValue))
            entries.set("UUID", NSString(string: uuid(item.persistentReference)))
            if let reference = ItemReference.object(for: item) { entries.set("v_Ref", reference) }
        }
        // With kSecReturnRef no reference can be built, so Apple leaves the secret in
        // (docs/apple-semantics.md §4.1 quirk).
        if returns.contains(.data) || returns.contains(.ref), let data = item.data {
            entries.set("v_Data", secretObject(data))
        }
        if returns.contains(.persistentRef) {
            entries.set("v_PersistentRef", NSData(data: item.persistentReference))
        }
        return entries.dictionary()
    }

    /// `SecItemAdd`'s result (docs/apple-semantics.md §4.3); `nil` when nothing is written.
    static func addValue(_ item: FoundItem, _ returns: ReturnFlags, accessControlGiven: Bool) -> AnyObject? {
        if returns.isEmpty { return nil }
        if returns == .ref { return ItemReference.object(for: item) }
        if returns == .data {
            return item.data.map { secretObject($0) as AnyObject } ?? NSNull()
        }
        if returns == .persistentRef { return NSData(data: item.persistentReference) }
        var entries = ResultEntries(capacity: item.attributes.count + 4)
        if returns.contains(.attributes) || returns.contains(.ref) {
            var excluded = notReturnedByAdd
            if !accessControlGiven { excluded.insert(.accessControl) }
            addAttributes(of: item, to: &entries, rawAccessControl: false, excluding: excluded)
        }
        if returns.contains(.ref) { entries.set("class", NSString(string: item.itemClass.rawValue)) }
        if returns.contains(.data) || returns.contains(.ref), let data = item.data {
            entries.set("v_Data", secretObject(data))
        }
        if returns.contains(.persistentRef) {
            entries.set("v_PersistentRef", NSData(data: item.persistentReference))
        }
        return entries.dictionary()
    }

    /// The secret as the `NSData` a result holds.
    private static func secretObject(_ secret: SecretData) -> NSData {
        NSData(data: secret.data)
    }

    /// Adds the attributes with Apple's short keys; `accc` is synthesized for items added without one.
    private static func addAttributes(
        of item: FoundItem,
        to entries: inout ResultEntries,
        rawAccessControl: Bool,
        excluding excluded: Set<AttributeName>
    ) {
        for (name, value) in item.attributes
        where name != .accessControl && name != IdentityItems.certificateData
            && (excluded.isEmpty || !excluded.contains(name))
        {
            entries.set(name.rawValue, ValueBridge.object(value))
        }
        if excluded.isEmpty || !excluded.contains(.accessControl) {
            let control = accessControl(of: item)
            entries.set("accc", rawAccessControl ? NSData(data: control.serialized) : control)
        }
    }

    /// The item's access control: the stored one, else its protection without constraints.
    static func accessControl(of item: FoundItem) -> SecAccessControl {
        let protection = item.attributes[.accessible]?.stringValue ?? "ak"
        guard let stored = item.attributes[.accessControl]?.dataValue else {
            return SecAccessControl(protection: protection, flags: [])
        }
        return SecAccessControl.deserialize(stored, fallbackProtection: protection)
    }

    /// The item's `UUID` attribute: its 16-byte persistent id in UUID form (stable per item).
    private static func uuid(_ persistentReference: Data) -> String {
        let bytes = [UInt8](persistentReference.suffix(16))
        guard bytes.count == 16 else { return UUID().uuidString }
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
        return uuid.uuidString
    }
}
#endif
