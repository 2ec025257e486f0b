import Foundation
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyEngine

/// The handshake's two forms: Latchkey's clients send it binary, other clients JSON; each decodes back to the
/// same value, a truncated or padded binary frame is refused with -26275 and another version with -4.
struct AgentHandshakeWireTests {
    static let hellos: [AgentHandshake.Hello] = [
        AgentHandshake.Hello(accessGroups: nil, terminal: [:]),
        AgentHandshake.Hello(accessGroups: [], acceptRollback: false, terminal: [:]),
        AgentHandshake.Hello(
            accessGroups: ["com.example.a", "grüße", ""],
            acceptRollback: true,
            terminal: ["ttyname": "/dev/pts/3", "TERM": "xterm-256color", "DISPLAY": ":0", "WAYLAND_DISPLAY": "wl-0"]
        ),
    ]

    static let replies: [AgentHandshake.Reply] = [
        .accepted(
            AgentWelcome(
                keychain: "/home/a/.local/share/latchkey/login.keychain-db",
                accessGroups: ["latchkey", "com.example.shared"],
                lockState: .unlocked,
                executable: "/home/a/bin/tool.py",
                interpreter: "/usr/bin/python3.11",
                agentProcess: 4_194_304
            )
        ),
        .accepted(
            AgentWelcome(keychain: "/k", accessGroups: [], lockState: .neverUnlocked, executable: "/e", agentProcess: 1)
        ),
        .refused(KeychainError(.missingEntitlement, "no such group")),
    ]

    @Test(arguments: hellos) func helloRoundTripsInBothForms(_ hello: AgentHandshake.Hello) throws {
        let binary = AgentHandshake.encode(hello)
        #expect(!AgentHandshake.isJSON(binary))
        #expect(try AgentHandshake.decode(AgentHandshake.Hello.self, from: binary) == hello)
        let json = try AgentHandshake.encodeJSON(hello)
        #expect(AgentHandshake.isJSON(json))
        #expect(try AgentHandshake.decode(AgentHandshake.Hello.self, from: json) == hello)
        for length in 0..<binary.count {
            #expect(throws: KeychainError.self) {
                try AgentHandshake.decode(AgentHandshake.Hello.self, from: binary.prefix(length))
            }
        }
    }

    @Test(arguments: replies) func replyRoundTripsInBothForms(_ reply: AgentHandshake.Reply) throws {
        for json in [false, true] {
            let frame = try AgentHandshake.encode(reply, json: json)
            #expect(AgentHandshake.isJSON(frame) == json)
            #expect(try AgentHandshake.decode(AgentHandshake.Reply.self, from: frame) == reply)
        }
        let binary = try AgentHandshake.encode(reply, json: false)
        for length in 0..<binary.count {
            let error = #expect(throws: KeychainError.self) {
                try AgentHandshake.decode(AgentHandshake.Reply.self, from: binary.prefix(length))
            }
            #expect(error?.code == .decode)
        }
        let padded = binary + Data([0])
        #expect(throws: KeychainError.self) { try AgentHandshake.decode(AgentHandshake.Reply.self, from: padded) }
    }

    @Test func anotherVersionIsRefusedAsUnimplemented() {
        var frame = AgentHandshake.encode(AgentHandshake.Hello(accessGroups: nil, terminal: [:]))
        frame[frame.startIndex] = UInt8(AgentHandshake.version + 1)
        let error = #expect(throws: KeychainError.self) {
            try AgentHandshake.decode(AgentHandshake.Hello.self, from: frame)
        }
        #expect(error?.code == .unimplemented)
        let old = Data(#"{"version": 1, "accessGroups": null}"#.utf8)
        let refused = #expect(throws: KeychainError.self) {
            try AgentHandshake.decode(AgentHandshake.Hello.self, from: old)
        }
        #expect(refused?.code == .unimplemented)
    }
}
