import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The first exchange on every agent connection: the client's hello, then the agent's welcome or refusal.
///
/// The hello carries only what the client may choose: a subset of its groups (its `LATCHKEY_ACCESS_GROUPS`)
/// to narrow to, and where the agent's prompter may show a question for it (its terminal and display, as
/// gpg-agent's clients tell it). The agent decides the groups themselves from the executable the kernel
/// names; asking for a group outside them is asked to the user when the agent has a prompter, else refused
/// with `missingEntitlement` (-34018).
package enum AgentHandshake {
    /// The protocol version of the handshake and of the operation frames after it.
    package static let version = KeychainWireCodec.version

    /// The client's first frame.
    package struct Hello: Codable, Sendable, Equatable {
        /// The handshake version.
        package var version: Int
        /// The groups the client narrows to, in order, or `nil` for every group the agent grants it.
        package var accessGroups: [String]?
        /// `true` when this connection's unlock accepts a keychain file rolled back to an older copy
        /// (`latchkey unlock --accept-rollback`); absent otherwise.
        package var acceptRollback: Bool?
        /// The client's terminal (`ttyname` of its standard input), passed to pinentry as `OPTION ttyname=`;
        /// absent from older clients and from processes without a terminal.
        package var ttyName: String?
        /// The client's `TERM`, passed to pinentry as `OPTION ttytype=` and in its environment.
        package var ttyType: String?
        /// The client's `DISPLAY` (X11), in pinentry's environment.
        package var display: String?
        /// The client's `WAYLAND_DISPLAY`, in pinentry's environment.
        package var waylandDisplay: String?

        /// Makes a hello; the terminal fields default to this process's own (`Hello.ownTerminal()`).
        package init(
            version: Int = AgentHandshake.version,
            accessGroups: [String]?,
            acceptRollback: Bool? = nil,
            terminal: [String: String] = Hello.ownTerminal()
        ) {
            self.version = version
            self.accessGroups = accessGroups
            self.acceptRollback = acceptRollback
            self.ttyName = terminal["ttyname"]
            self.ttyType = terminal["TERM"]
            self.display = terminal["DISPLAY"]
            self.waylandDisplay = terminal["WAYLAND_DISPLAY"]
        }

        /// This process's terminal and display: `ttyname` of standard input (key `ttyname`), and `TERM`,
        /// `DISPLAY`, `WAYLAND_DISPLAY` from the environment, each only when present and not empty.
        package static func ownTerminal(
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> [String: String] {
            var terminal: [String: String] = [:]
            if isatty(STDIN_FILENO) == 1, let name = ttyname(STDIN_FILENO) {
                terminal["ttyname"] = String(cString: name)
            }
            for key in ["TERM", "DISPLAY", "WAYLAND_DISPLAY"] {
                if let value = environment[key], !value.isEmpty { terminal[key] = value }
            }
            return terminal
        }
    }

    /// The agent's answer to a hello: a welcome or a refusal with Apple's status code.
    package struct Reply: Codable, Sendable, Equatable {
        /// The handshake version.
        package var version: Int
        /// Present when the connection is accepted.
        package var welcome: AgentWelcome?
        /// Present when refused: the status code.
        package var code: Int32?
        /// Present when refused: why.
        package var message: String?

        /// An accepted connection.
        package static func accepted(_ welcome: AgentWelcome) -> Reply {
            Reply(version: AgentHandshake.version, welcome: welcome, code: nil, message: nil)
        }

        /// A refused connection.
        package static func refused(_ error: KeychainError) -> Reply {
            Reply(version: AgentHandshake.version, welcome: nil, code: error.code.rawValue, message: error.message)
        }

        /// The welcome, or the refusal as a `KeychainError`.
        package func result() throws(KeychainError) -> AgentWelcome {
            if let welcome { return welcome }
            throw KeychainError(
                KeychainError.Code(rawValue: code ?? KeychainError.Code.internalComponent.rawValue),
                message ?? "The agent refused the connection."
            )
        }
    }

    /// Encodes a hello in its binary form (`AgentHandshake+Wire.swift`), the form Latchkey's clients send.
    package static func encode(_ hello: Hello) -> Data { hello.wireFrame() }

    /// Encodes a reply in the form of the hello it answers: JSON when the hello was JSON
    /// (`isJSON(_:)`), else binary.
    package static func encode(_ reply: Reply, json: Bool) throws(KeychainError) -> Data {
        json ? try encodeJSON(reply) : reply.wireFrame()
    }

    /// Encodes a hello or a reply in its JSON form (for clients in other languages, and tests).
    package static func encodeJSON(_ value: some Encodable) throws(KeychainError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw KeychainError(.param, "The agent handshake cannot be encoded.")
        }
    }

    /// Decodes a hello in either form.
    ///
    /// - Throws: `decode` for a malformed frame, `unimplemented` for another protocol version.
    package static func decode(_ type: Hello.Type, from payload: Data) throws(KeychainError) -> Hello {
        if isJSON(payload) { return try decodeJSON(Hello.self, from: payload) }
        return try WireReader.read(payload) { (reader: inout WireReader) throws(KeychainError) in
            try checkVersion(&reader)
            return try Hello.decodeWire(from: &reader)
        }
    }

    /// Decodes a reply in either form.
    ///
    /// - Throws: `decode` for a malformed frame, `unimplemented` for another protocol version.
    package static func decode(_ type: Reply.Type, from payload: Data) throws(KeychainError) -> Reply {
        if isJSON(payload) { return try decodeJSON(Reply.self, from: payload) }
        return try WireReader.read(payload) { (reader: inout WireReader) throws(KeychainError) in
            try checkVersion(&reader)
            return try Reply.decodeWire(from: &reader)
        }
    }

    private static func checkVersion(_ reader: inout WireReader) throws(KeychainError) {
        let found = try reader.byte("the handshake version")
        guard Int(found) == version else {
            throw KeychainError(
                .unimplemented,
                "The agent handshake has protocol version \(found); this build speaks version \(version). "
                    + Self.sameVersion
            )
        }
    }

    /// The next step after a version mismatch.
    private static let sameVersion =
        "Use the same Latchkey version for the agent and its clients (restart the agent after an upgrade)."

    private struct VersionProbe: Decodable { var version: Int }

    private static func decodeJSON<Value: Decodable & Sendable>(
        _ type: Value.Type,
        from payload: Data
    ) throws(KeychainError) -> Value {
        guard let probe = try? JSONDecoder().decode(VersionProbe.self, from: payload) else {
            throw KeychainError(.decode, "The agent handshake frame is malformed.")
        }
        guard probe.version == version else {
            throw KeychainError(
                .unimplemented,
                "The agent handshake has protocol version \(probe.version); this build speaks version \(version). "
                    + Self.sameVersion
            )
        }
        do {
            return try JSONDecoder().decode(Value.self, from: payload)
        } catch {
            throw KeychainError(.decode, "The agent handshake frame is malformed.")
        }
    }
}
