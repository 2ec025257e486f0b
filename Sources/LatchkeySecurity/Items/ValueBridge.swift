#if !canImport(Darwin)
import Foundation
import Latchkey

/// Unwraps an `Optional` hidden inside an `Any` (e.g. `kCFBooleanTrue`, a `CFBoolean!`, put in a
/// `[String: Any]` literal).
private protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedAny: Any? { self.map { $0 as Any } }
}

/// Converts between the `Any` values of keychain dictionaries and the core's typed values.
enum ValueBridge {
    /// `value` with any `Optional` wrapping removed; `nil` for `nil` and `NSNull`.
    static func unwrap(_ value: Any) -> Any? {
        // What an NSDictionary hands out for strings, booleans and data: never wrapped, never null. Comparing
        // the dynamic type is far cheaper than the protocol and class casts below.
        if isPlainValue(value) { return value }
        var current: Any = value
        while let optional = current as? any OptionalValue {
            guard let inner = optional.wrappedAny else { return nil }
            current = inner
        }
        if current is NSNull { return nil }
        return current
    }

    /// The boolean a `CFBoolean` stands for; `nil` for anything that is not a boolean object (an
    /// `NSNumber(value: 1)` or a Swift `Int` is a number, not a boolean).
    static func boolean(_ value: Any) -> Bool? {
        let valueType = type(of: value)
        if valueType == Bool.self { return value as? Bool }
        if valueType == String.self || valueType == Data.self { return nil }
        if let number = value as? NSNumber, CFTypeCheck.isBoolean(number) {
            return number.boolValue
        }
        return nil
    }

    /// The entries of `dictionary` as `for (key, value) in dictionary` gives them, in the same order: each key
    /// as stored, each value as Foundation hands it out (an `NSString` as a `String`, `NSData` as `Data`,
    /// `NSDate` as `Date`, `kCFBooleanTrue`/`kCFBooleanFalse` as `Bool`, a boxed Swift value unboxed).
    ///
    /// The for-in loop looks every key up again, hashing each `NSString` key a second time; here the keys and
    /// values are read in one pass over the storage, and only a value of another class is looked up by its key.
    static func entries(of dictionary: NSDictionary) -> [(key: Any, value: Any)] {
        let dictionaryType = type(of: dictionary)
        guard dictionaryType == NSDictionary.self || dictionaryType == NSMutableDictionary.self else {
            return dictionary.map { ($0.key, $0.value) }
        }
        // Both read the same storage in the same order.
        let keys = dictionary.allKeys
        let values = dictionary.allValues
        var entries: [(key: Any, value: Any)] = []
        entries.reserveCapacity(keys.count)
        for index in keys.indices where index < values.count {
            let key = keys[index]
            guard let value = handedOut(values[index]) ?? dictionary.object(forKey: key) else { continue }
            entries.append((key, value))
        }
        return entries
    }

    /// What `NSDictionary` hands out for a stored object of the classes keychain dictionaries hold; `nil` for
    /// any other class (its value is then looked up, so Foundation decides).
    private static func handedOut(_ object: Any) -> Any? {
        let objectType = type(of: object)
        if objectType == NSString.self, let text = object as? NSString { return text as String }
        if objectType == NSNumber.self || objectType == NSNull.self { return object }
        if objectType == NSData.self, let data = object as? NSData { return Data(referencing: data) }
        if objectType == NSDate.self, let date = object as? NSDate { return date as Date }
        if let number = object as? NSNumber, CFTypeCheck.isBoolean(number) {
            if number === kCFBooleanTrue { return true }
            if number === kCFBooleanFalse { return false }
            return number
        }
        return nil
    }

    /// Whether `value` is a Swift `String`, `Bool` or `Data`, the types an `NSDictionary` hands out for its
    /// strings, booleans and data (`NSString`, boolean `NSNumber`s and `NSData` are bridged on the way out).
    static func isPlainValue(_ value: Any) -> Bool {
        let valueType = type(of: value)
        return valueType == String.self || valueType == Bool.self || valueType == Data.self
    }

    /// The bytes of a `Data`/`NSData`.
    static func data(_ value: Any) -> Data? {
        if let data = value as? Data { return data }
        if let data = value as? NSData { return Data(referencing: data) }
        return nil
    }

    /// The text of a `String`/`NSString`.
    static func string(_ value: Any) -> String? {
        let valueType = type(of: value)
        if valueType == String.self { return value as? String }
        // A dictionary's keys come as stored: an NSString is cast as a class, without the bridging cast.
        if valueType == NSString.self, let text = value as? NSString { return text as String }
        if let text = value as? String { return text }
        if let text = value as? NSString { return text as String }
        return nil
    }

    /// A number's integer or floating-point value.
    static func number(_ value: Any) -> AttributeValue? {
        if let flag = boolean(value) { return .bool(flag) }
        switch value {
        case let value as Int: return .number(Int64(value))
        case let value as Int64: return .number(value)
        case let value as Int32: return .number(Int64(value))
        case let value as Int16: return .number(Int64(value))
        case let value as Int8: return .number(Int64(value))
        case let value as UInt: return value <= UInt(Int64.max) ? .number(Int64(value)) : .double(Double(value))
        case let value as UInt64: return value <= UInt64(Int64.max) ? .number(Int64(value)) : .double(Double(value))
        case let value as UInt32: return .number(Int64(value))
        case let value as UInt16: return .number(Int64(value))
        case let value as UInt8: return .number(Int64(value))
        case let value as Double:
            return value.rounded() == value && abs(value) < 9e18 ? .number(Int64(value)) : .double(value)
        case let value as Float: return number(Double(value))
        case let value as NSNumber:
            let type = String(cString: value.objCType)
            if type == "d" || type == "f" { return number(value.doubleValue) }
            if type == "Q" || type == "L" || type == "I" { return number(value.uint64Value) }
            return .number(value.int64Value)
        default: return nil
        }
    }

    /// An attribute value as the core understands it, before the class's kind coerces it; `nil` for a
    /// value of no attribute type (arrays, dictionaries, arbitrary objects → `errSecParam`).
    static func attributeValue(_ value: Any, kind: AttributeKind?) -> AttributeValue? {
        if let text = string(value) { return .string(text) }
        if let bytes = data(value) { return .data(bytes) }
        if let date = value as? Date { return .date(date) }
        if let date = value as? NSDate { return .date(date as Date) }
        if let uuid = value as? UUID {
            return kind == .uuid ? .data(withUnsafeBytes(of: uuid.uuid) { Data($0) }) : .string(uuid.uuidString)
        }
        if let uuid = value as? NSUUID { return attributeValue(uuid as UUID, kind: kind) }
        return number(value)
    }

    /// The Foundation object a result dictionary holds for a stored value.
    static func object(_ value: AttributeValue) -> AnyObject {
        switch value {
        case .string(let text): NSString(string: text)
        case .data(let bytes): NSData(data: bytes)
        case .number(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .date(let date): NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        }
    }
}
#endif
