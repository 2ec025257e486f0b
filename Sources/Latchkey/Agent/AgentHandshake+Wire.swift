import Foundation

// The handshake's binary form (the form Latchkey's own clients send), beside its JSON form (for clients in
// other languages: a hello whose first byte is `{`). Same layout rules as the operation frames
// (`KeychainWireCodec`): one version byte, then the fields in order; strings length-prefixed UTF-8,
// optional values behind a presence byte, lists as a count and their elements.
//
//   hello:  version, accessGroups?[string], acceptRollback?bool, ttyName?, ttyType?, display?, waylandDisplay?
//   reply:  version, welcome?(keychain, accessGroups[string], lockState, executable, interpreter?,
//           agentProcess (zigzag)), code?(zigzag), message?
//
// JSON's Codable path costs a short `latchkey` process about half a millisecond of type-metadata look-ups on
// its first use, which the binary form never pays.

extension AgentHandshake {
    /// Whether `payload` is a handshake in its JSON form (its first byte is `{`).
    package static func isJSON(_ payload: Data) -> Bool { payload.first == UInt8(ascii: "{") }
}

extension AgentHandshake.Hello {
    /// The binary form of this hello.
    func wireFrame() -> Data {
        var writer = WireWriter(capacity: 64)
        writer.byte(UInt8(truncatingIfNeeded: version))
        writer.optionalStrings(accessGroups)
        writer.bool(acceptRollback != nil)
        if let acceptRollback { writer.bool(acceptRollback) }
        for field in [ttyName, ttyType, display, waylandDisplay] { writer.optionalString(field) }
        return writer.finish()
    }

    /// Reads a hello in its binary form (after `AgentHandshake.checkVersion`).
    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> Self {
        let groups = try reader.optionalStrings("the access groups")
        let rollback = try reader.optional("acceptRollback") { (reader: inout WireReader) throws(KeychainError) in
            try reader.bool("acceptRollback")
        }
        var hello = Self(accessGroups: groups, acceptRollback: rollback, terminal: [:])
        hello.ttyName = try reader.optionalString("ttyName")
        hello.ttyType = try reader.optionalString("ttyType")
        hello.display = try reader.optionalString("display")
        hello.waylandDisplay = try reader.optionalString("waylandDisplay")
        return hello
    }
}

extension AgentHandshake.Reply {
    /// The binary form of this reply.
    func wireFrame() -> Data {
        var writer = WireWriter(capacity: 256)
        writer.byte(UInt8(truncatingIfNeeded: version))
        writer.bool(welcome != nil)
        if let welcome {
            writer.string(welcome.keychain)
            writer.strings(welcome.accessGroups)
            writer.byte(welcome.lockState.wireTag)
            writer.string(welcome.executable)
            writer.optionalString(welcome.interpreter)
            writer.signed(Int64(welcome.agentProcess))
        }
        writer.bool(code != nil)
        if let code { writer.signed(Int64(code)) }
        writer.optionalString(message)
        return writer.finish()
    }

    /// Reads a reply in its binary form (after `AgentHandshake.checkVersion`).
    static func decodeWire(from reader: inout WireReader) throws(KeychainError) -> Self {
        let welcome = try reader.optional("the welcome") { (reader: inout WireReader) throws(KeychainError) in
            let keychain = try reader.string("the keychain")
            let groups = try reader.strings("the access groups")
            let lockState = try LockState.decodeWire(from: &reader)
            let executable = try reader.string("the executable")
            let interpreter = try reader.optionalString("the interpreter")
            let process = try reader.signed("the agent's process id")
            guard let agentProcess = Int32(exactly: process) else {
                throw WireReader.malformed("the agent's process id \(process) is out of range")
            }
            return AgentWelcome(
                keychain: keychain,
                accessGroups: groups,
                lockState: lockState,
                executable: executable,
                interpreter: interpreter,
                agentProcess: agentProcess
            )
        }
        let code = try reader.optional("the status code") { (reader: inout WireReader) throws(KeychainError) in
            let value = try reader.signed("the status code")
            guard let code = Int32(exactly: value) else {
                throw WireReader.malformed("the status code \(value) is out of range")
            }
            return code
        }
        let message = try reader.optionalString("the message")
        return Self(version: AgentHandshake.version, welcome: welcome, code: code, message: message)
    }
}

extension WireWriter {
    fileprivate mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }

    fileprivate mutating func strings(_ values: [String]) {
        varint(UInt64(values.count))
        for value in values { string(value) }
    }

    fileprivate mutating func optionalStrings(_ values: [String]?) {
        bool(values != nil)
        if let values { strings(values) }
    }
}

extension WireReader {
    fileprivate mutating func optionalString(_ what: @autoclosure () -> String) throws(KeychainError) -> String? {
        try optional(what()) { (reader: inout WireReader) throws(KeychainError) in try reader.string(what()) }
    }

    fileprivate mutating func strings(_ what: @autoclosure () -> String) throws(KeychainError) -> [String] {
        let count = try count(what())
        var values: [String] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try string(what())) }
        return values
    }

    fileprivate mutating func optionalStrings(_ what: @autoclosure () -> String) throws(KeychainError) -> [String]? {
        try optional(what()) { (reader: inout WireReader) throws(KeychainError) in try reader.strings(what()) }
    }
}
