import CSystemdBus
import Foundation

/// Reads and writes the arguments of one sd-bus message as `BusValue`s.
///
/// Only sd-bus's non-variadic calls are used: `sd_bus_message_peek_type` drives a generic reader, and
/// `sd_bus_message_append_basic`/`open_container` a generic writer, so no C shim is needed. A
/// `BusMessage` borrows its message: it is valid only on the bus thread, during the callback or before
/// the message is sent.
struct BusMessage {
    let pointer: OpaquePointer

    /// The object path the message is addressed to.
    var path: String { sd_bus_message_get_path(pointer).map { String(cString: $0) } ?? "" }
    /// The interface, or "" when the call names none.
    var interface: String { sd_bus_message_get_interface(pointer).map { String(cString: $0) } ?? "" }
    /// The member (method or signal name).
    var member: String { sd_bus_message_get_member(pointer).map { String(cString: $0) } ?? "" }
    /// The sender's unique bus name (":1.42").
    var sender: String { sd_bus_message_get_sender(pointer).map { String(cString: $0) } ?? "" }
    /// The signature of the message's arguments.
    var signature: String { sd_bus_message_get_signature(pointer, 1).map { String(cString: $0) } ?? "" }

    // MARK: Reading

    /// Every remaining argument of the message.
    func readAll() throws(SecretServiceError) -> [BusValue] {
        var values: [BusValue] = []
        while let value = try readOne() { values.append(value) }
        return values
    }

    /// The next value, or `nil` at the end of the message or of the container being read.
    private func readOne() throws(SecretServiceError) -> BusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(pointer, &type, &contentsPointer)
        try check(peeked, "read the message")
        guard peeked > 0 else { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"):
            return try readArray(contents)
        case UInt8(ascii: "v"):
            try check(sd_bus_message_enter_container(pointer, type, contents), "enter a variant")
            guard let inner = try readOne() else { throw .invalidArguments("An empty variant.") }
            try check(sd_bus_message_exit_container(pointer), "leave a variant")
            return .variant(inner)
        case UInt8(ascii: "r"):
            try check(sd_bus_message_enter_container(pointer, type, contents), "enter a structure")
            let fields = try readAll()
            try check(sd_bus_message_exit_container(pointer), "leave a structure")
            return .structure(fields)
        default:
            return try readBasic(type)
        }
    }

    private func readArray(_ element: String) throws(SecretServiceError) -> BusValue {
        let arrayType = CChar(UInt8(ascii: "a"))
        if element == "y" {
            var bytes: UnsafeRawPointer?
            var count = 0
            try check(sd_bus_message_read_array(pointer, CChar(UInt8(ascii: "y")), &bytes, &count), "read bytes")
            guard let bytes, count > 0 else { return .bytes(Data()) }
            return .bytes(Data(bytes: bytes, count: count))
        }
        try check(sd_bus_message_enter_container(pointer, arrayType, element), "enter an array")
        let result: BusValue
        if element.hasPrefix("{") {
            let inner = String(element.dropFirst().dropLast())
            let keyType = String(inner.prefix(1))
            let valueType = String(inner.dropFirst())
            var entries: [BusValue.DictionaryEntry] = []
            while true {
                let entered = sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "e")), inner)
                try check(entered, "enter a dictionary entry")
                guard entered > 0 else { break }
                guard let key = try readOne(), let value = try readOne() else {
                    throw .invalidArguments("A dictionary entry without key or value.")
                }
                try check(sd_bus_message_exit_container(pointer), "leave a dictionary entry")
                entries.append(.init(key, value))
            }
            result = .dictionary(key: keyType, value: valueType, entries)
        } else {
            result = .array(element: element, try readAll())
        }
        try check(sd_bus_message_exit_container(pointer), "leave an array")
        return result
    }

    private func readBasic(_ type: CChar) throws(SecretServiceError) -> BusValue {
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var text: UnsafePointer<CChar>?
            try check(sd_bus_message_read_basic(pointer, type, &text), "read a string")
            let string = text.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(string)
            case UInt8(ascii: "g"): return .signature(string)
            default: return .string(string)
            }
        case UInt8(ascii: "b"):
            var value: Int32 = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read a boolean")
            return .boolean(value != 0)
        case UInt8(ascii: "y"):
            var value: UInt8 = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read a byte")
            return .byte(value)
        case UInt8(ascii: "i"):
            var value: Int32 = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read an int32")
            return .int32(value)
        case UInt8(ascii: "u"):
            var value: UInt32 = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read a uint32")
            return .uint32(value)
        case UInt8(ascii: "x"):
            var value: Int64 = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read an int64")
            return .int64(value)
        case UInt8(ascii: "t"):
            var value: UInt64 = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read a uint64")
            return .uint64(value)
        case UInt8(ascii: "d"):
            var value: Double = 0
            try check(sd_bus_message_read_basic(pointer, type, &value), "read a double")
            return .double(value)
        default:
            throw .invalidArguments("An argument of an unsupported D-Bus type.")
        }
    }

    // MARK: Writing

    /// Appends `values` to the message, in order.
    func append(_ values: [BusValue]) throws(SecretServiceError) {
        for value in values { try append(value) }
    }

    /// Appends one value to the message.
    func append(_ value: BusValue) throws(SecretServiceError) {
        switch value {
        case .string(let text), .objectPath(let text), .signature(let text):
            let type = CChar(UInt8(ascii: value.signature == "o" ? "o" : value.signature == "g" ? "g" : "s"))
            let status = text.withCString { sd_bus_message_append_basic(pointer, type, $0) }
            try check(status, "append a string")
        case .boolean(let flag):
            var raw: Int32 = flag ? 1 : 0
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "b")), &raw), "append a boolean")
        case .byte(var raw):
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "y")), &raw), "append a byte")
        case .int32(var raw):
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "i")), &raw), "append an int32")
        case .uint32(var raw):
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "u")), &raw), "append a uint32")
        case .int64(var raw):
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "x")), &raw), "append an int64")
        case .uint64(var raw):
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "t")), &raw), "append a uint64")
        case .double(var raw):
            try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "d")), &raw), "append a double")
        case .bytes(let bytes):
            let status = bytes.withUnsafeBytes { buffer in
                sd_bus_message_append_array(pointer, CChar(UInt8(ascii: "y")), buffer.baseAddress, buffer.count)
            }
            try check(status, "append bytes")
        case .array(let element, let elements):
            try container("a", element) { () throws(SecretServiceError) in try append(elements) }
        case .dictionary(let key, let valueType, let entries):
            try container("a", "{" + key + valueType + "}") { () throws(SecretServiceError) in
                for entry in entries {
                    try container("e", key + valueType) { () throws(SecretServiceError) in
                        try append(entry.key)
                        try append(entry.value)
                    }
                }
            }
        case .structure(let fields):
            try container("r", fields.map(\.signature).joined()) { () throws(SecretServiceError) in
                try append(fields)
            }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(SecretServiceError) in try append(inner) }
        }
    }

    private func container(
        _ type: Unicode.Scalar,
        _ contents: String,
        _ body: () throws(SecretServiceError) -> Void
    ) throws(SecretServiceError) {
        let opened = contents.withCString { sd_bus_message_open_container(pointer, CChar(UInt8(ascii: type)), $0) }
        try check(opened, "open a container")
        try body()
        try check(sd_bus_message_close_container(pointer), "close a container")
    }

    private func check(_ status: Int32, _ action: String) throws(SecretServiceError) {
        guard status >= 0 else {
            throw .invalidArguments("Cannot \(action): \(String(cString: strerror(-status))).")
        }
    }
}
