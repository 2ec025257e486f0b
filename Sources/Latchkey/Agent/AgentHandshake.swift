import Foundation

/// The first exchange on every agent connection: the client's hello, then the agent's welcome or refusal.
///
/// The hello carries only what the client may choose: a subset of its groups (its `LATCHKEY_ACCESS_GROUPS`)
/// to narrow to. The agent decides the groups themselves from the executable the kernel names; asking for
/// a group outside them is refused with `missingEntitlement` (-34018).
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

        /// Makes a hello.
        package init(version: Int = AgentHandshake.version, accessGroups: [String]?, acceptRollback: Bool? = nil) {
            self.version = version
            self.accessGroups = accessGroups
            self.acceptRollback = acceptRollback
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

    /// Encodes a hello or a reply as a frame payload.
    package static func encode(_ value: some Encodable) throws(KeychainError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw KeychainError(.param, "The agent handshake cannot be encoded.")
        }
    }

    private struct VersionProbe: Decodable { var version: Int }

    /// Decodes a hello or a reply.
    ///
    /// - Throws: `decode` for a malformed frame, `unimplemented` for another protocol version.
    package static func decode<Value: Decodable & Sendable>(
        _ type: Value.Type,
        from payload: Data
    ) throws(KeychainError) -> Value {
        guard let probe = try? JSONDecoder().decode(VersionProbe.self, from: payload) else {
            throw KeychainError(.decode, "The agent handshake frame is malformed.")
        }
        guard probe.version == version else {
            throw KeychainError(
                .unimplemented,
                "The agent handshake has protocol version \(probe.version); this build speaks version \(version)."
            )
        }
        do {
            return try JSONDecoder().decode(Value.self, from: payload)
        } catch {
            throw KeychainError(.decode, "The agent handshake frame is malformed.")
        }
    }
}
