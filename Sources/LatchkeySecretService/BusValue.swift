import Foundation

/// One D-Bus value, with its type: what a message's arguments are read into and built from.
///
/// The Secret Service needs the basic types, byte arrays (secrets, keys), arrays, dictionaries, structures
/// and variants; sd-bus reads and writes each one through its non-variadic calls (`BusMessage`).
///
/// ```swift
/// let attributes = BusValue.stringDictionary(["service": "api"])   // a{ss}
/// let secret = BusValue.structure([.objectPath(session), .bytes(iv), .bytes(value), .string("text/plain")])
/// ```
public indirect enum BusValue: Sendable, Equatable {
    /// `s`
    case string(String)
    /// `o`
    case objectPath(String)
    /// `g`
    case signature(String)
    /// `b`
    case boolean(Bool)
    /// `y`
    case byte(UInt8)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `ay`, kept as bytes.
    case bytes(Data)
    /// `a<element>`: an array whose elements all have the signature `element` (not `y`, not a dictionary entry).
    case array(element: String, [BusValue])
    /// `a{<key><value>}`: a dictionary, entries in order.
    case dictionary(key: String, value: String, [DictionaryEntry])
    /// `(...)`
    case structure([BusValue])
    /// `v`
    case variant(BusValue)

    /// One entry of a `dictionary`.
    public struct DictionaryEntry: Sendable, Equatable {
        /// The key (a basic type).
        public var key: BusValue
        /// The value.
        public var value: BusValue

        /// An entry.
        public init(_ key: BusValue, _ value: BusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's D-Bus signature, for example `a{sv}`.
    public var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .boolean: "b"
        case .byte: "y"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// An `a{ss}` dictionary, keys sorted.
    public static func stringDictionary(_ map: [String: String]) -> BusValue {
        .dictionary(
            key: "s",
            value: "s",
            map.sorted { $0.key < $1.key }.map { DictionaryEntry(.string($0.key), .string($0.value)) }
        )
    }

    /// An `ao` array.
    public static func objectPaths(_ paths: [String]) -> BusValue {
        .array(element: "o", paths.map { .objectPath($0) })
    }

    /// An `a{sv}` dictionary of properties, keys sorted.
    public static func properties(_ map: [String: BusValue]) -> BusValue {
        .dictionary(
            key: "s",
            value: "v",
            map.sorted { $0.key < $1.key }.map { DictionaryEntry(.string($0.key), .variant($0.value)) }
        )
    }

    /// The string of an `s`, `o` or `g`, else `nil`.
    public var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    /// The bytes of an `ay`, else `nil`.
    public var bytesValue: Data? {
        switch self {
        case .bytes(let bytes): bytes
        case .variant(let inner): inner.bytesValue
        default: nil
        }
    }

    /// The boolean of a `b`, else `nil`.
    public var booleanValue: Bool? {
        switch self {
        case .boolean(let value): value
        case .variant(let inner): inner.booleanValue
        default: nil
        }
    }

    /// The number of a `u`, else `nil`.
    public var uint32Value: UInt32? {
        switch self {
        case .uint32(let value): value
        case .variant(let inner): inner.uint32Value
        default: nil
        }
    }

    /// The object paths of an `ao`, else `nil`.
    public var objectPathsValue: [String]? {
        switch self {
        case .array(_, let elements):
            let paths = elements.compactMap { element -> String? in
                if case .objectPath(let path) = element { path } else { nil }
            }
            return paths.count == elements.count ? paths : nil
        case .variant(let inner): return inner.objectPathsValue
        default: return nil
        }
    }

    /// The map of a dictionary with string keys and string values (`a{ss}`), else `nil`.
    public var stringDictionaryValue: [String: String]? {
        switch self {
        case .dictionary(_, _, let entries):
            var map: [String: String] = [:]
            for entry in entries {
                guard case .string(let key) = entry.key, let value = entry.value.stringValue else { return nil }
                map[key] = value
            }
            return map
        case .variant(let inner): return inner.stringDictionaryValue
        default: return nil
        }
    }

    /// The map of a dictionary with string keys (`a{sv}`, `a{s...}`), values as they are, else `nil`.
    public var keyedValues: [String: BusValue]? {
        switch self {
        case .dictionary(_, _, let entries):
            var map: [String: BusValue] = [:]
            for entry in entries {
                guard case .string(let key) = entry.key else { return nil }
                map[key] = entry.value
            }
            return map
        case .variant(let inner): return inner.keyedValues
        default: return nil
        }
    }
}
