import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The agent's socket protocol from a raw client: a malformed, mutated, oversized or truncated frame gets
/// an error reply or a closed connection, never a crash of the agent; the idle lock (in process, with a
/// manual clock); the access policy file.
struct AgentProtocolTests {
    /// A raw connection to the agent from this test process, with a receive deadline so a silent agent
    /// fails the test instead of hanging it.
    final class RawConnection {
        let descriptor: Int32

        init(_ socketPath: String) throws {
            descriptor = try UnixSocket.connect(to: socketPath)
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(descriptor) }

        func send(_ payload: Data) throws { try AgentFrame.write(payload, to: descriptor) }
        func sendRaw(_ bytes: [UInt8]) throws { try AgentFrame.sendAll(bytes, to: descriptor) }
        func receive() throws(AgentFrame.Failure) -> Data { try AgentFrame.read(from: descriptor) }

        /// Sends a hello and returns the agent's welcome.
        func hello(accessGroups: [String]? = nil) throws -> AgentWelcome {
            try send(AgentHandshake.encode(AgentHandshake.Hello(accessGroups: accessGroups)))
            return try AgentHandshake.decode(AgentHandshake.Reply.self, from: receive()).result()
        }

        /// Sends an operation and returns the agent's answer.
        func perform(_ operation: KeychainOperation) throws -> KeychainOutcome {
            try send(KeychainWireCodec.encode(operation))
            return try KeychainWireCodec.decodeOutcome(receive())
        }
    }

    @Test func aMalformedHelloIsRefusedAndTheConnectionClosed() throws {
        let agent = try AgentHarness()
        let connection = try RawConnection(agent.socketPath)
        try connection.send(Data("{\"not\": \"a hello\"".utf8))
        let reply = try AgentHandshake.decode(AgentHandshake.Reply.self, from: connection.receive())
        #expect(reply.welcome == nil)
        #expect(reply.code == KeychainError.Code.decode.rawValue)
        #expect(throws: AgentFrame.Failure.closed) { try connection.receive() }
        #expect(try agent.latchkey(["show-keychain-info"]).status == 0, "the agent still serves")
    }

    @Test func malformedAndMutatedFramesGetErrorRepliesOnAnOpenConnection() throws {
        let agent = try AgentHarness()
        let connection = try RawConnection(agent.socketPath)
        let welcome = try connection.hello()
        #expect(welcome.keychain == AgentLocation.canonical(agent.keychain.path))
        #expect(welcome.lockState == .neverUnlocked)

        try connection.send(Data("garbage".utf8))
        #expect(throws: KeychainError.self) { try KeychainWireCodec.decodeOutcome(connection.receive()) }
        try connection.send(Data("{\"version\": 99, \"body\": {}}".utf8))
        do {
            _ = try KeychainWireCodec.decodeOutcome(connection.receive())
            Issue.record("a frame of another version was answered")
        } catch let error as KeychainError {
            #expect(error.code == .unimplemented)
        }

        let seeds = try [
            KeychainOperation.lockState,
            .find(FindRequest(ItemQuery(.genericPassword, attributes: [.service: .string("svc")]), withData: true)),
            .add(NewItem(.genericPassword, attributes: [.service: .string("svc")], data: SecretData(string: "x"))),
            .unlock(.passphrase(SecretData(string: "wrong"))),
        ].map { try [UInt8](KeychainWireCodec.encode($0)) }
        var mutator = ByteMutator(seed: 15)
        for round in 0..<300 {
            let seed = seeds[round % seeds.count]
            try connection.send(Data(mutator.mutate(seed, splicingWith: seeds, textTokens: true)))
            // Each mutated frame is answered (an outcome or an error), and the connection stays usable.
            _ = try? KeychainWireCodec.decodeOutcome(connection.receive())
        }
        guard case .lockState(let state) = try connection.perform(.lockState).storage else {
            Issue.record("lockState was not answered with a lock state")
            return
        }
        #expect(state == .neverUnlocked, "no mutated frame unlocked the keychain")
        #expect(!agent.agent.waitForLines(2, timeout: 0), "the agent printed nothing but its ready line")
        let stopped = agent.stop()
        #expect(stopped.status == 0 && stopped.signal == nil, "the agent ran until SIGTERM: \(stopped.stderr)")
    }

    /// A newer client's operation (a tag past the agent's last, docs/wire-protocol.md "Versioning") gets an
    /// error reply naming the agent's protocol version and the operations it knows; the connection keeps
    /// serving the operations both know.
    @Test func aNewerClientsOperationIsRefusedNamingTheVersionsOnAnOpenConnection() throws {
        let agent = try AgentHarness()
        let connection = try RawConnection(agent.socketPath)
        _ = try connection.hello()
        let next = KeychainOperation.Kind.highest.rawValue + 1
        try connection.send(Data([UInt8(KeychainWireCodec.version), next]))
        do {
            let outcome = try KeychainWireCodec.decodeOutcome(connection.receive())
            Issue.record("an unknown operation was answered with \(outcome.kind)")
        } catch let error as KeychainError {
            #expect(error.code == .decode)
            #expect(error.message.contains("operation \(next)"), "\(error.message)")
            #expect(error.message.contains("protocol version \(KeychainWireCodec.version)"), "\(error.message)")
            #expect(error.message.contains("1 to \(next - 1)"), "\(error.message)")
        }
        #expect(try connection.perform(.lockState).lockState() == .neverUnlocked, "the connection still serves")
        let stopped = agent.stop()
        #expect(stopped.status == 0 && stopped.signal == nil, "the agent ran until SIGTERM: \(stopped.stderr)")
    }

    @Test func anOversizedFrameIsRefusedWithoutReadingIt() throws {
        let agent = try AgentHarness()
        let connection = try RawConnection(agent.socketPath)
        _ = try connection.hello()
        try connection.sendRaw([0xFF, 0xFF, 0xFF, 0xFF])
        do {
            _ = try KeychainWireCodec.decodeOutcome(connection.receive())
            Issue.record("an oversized frame was answered with an outcome")
        } catch let error as KeychainError {
            #expect(error.code == .param)
        }
        #expect(throws: AgentFrame.Failure.closed) { try connection.receive() }

        let truncated = try RawConnection(agent.socketPath)
        _ = try truncated.hello()
        try truncated.sendRaw([0x00, 0x00, 0x10, 0x00] + Array("{\"version\":1".utf8))
        let another = try RawConnection(agent.socketPath)
        _ = try another.hello()
        guard case .lockState = try another.perform(.lockState).storage else {
            Issue.record("a client was not served while another sent half a frame")
            return
        }
        #expect(try agent.latchkey(["show-keychain-info"]).status == 0, "the agent still serves")
    }

    @Test func theClientReconnectsOnceToARestartedAgent() throws {
        let agent = try AgentHarness()
        let client = try AgentClient.connect(socketPath: agent.socketPath)
        _ = try client.perform(.unlock(.passphrase(SecretData(string: AgentHarness.passphrase))))
        guard case .lockState(.unlocked) = try client.perform(.lockState).storage else {
            Issue.record("the agent is not unlocked")
            return
        }
        let stopped = agent.stop()
        #expect(stopped.status == 0)
        #expect(throws: KeychainError.self, "no agent answers: the request fails, it does not hang") {
            try client.perform(.lockState)
        }
        let restarted = try BuiltExecutable.spawn(["agent"], environment: agent.environment)
        defer {
            restarted.kill(SIGTERM)
            _ = restarted.waitForExit(timeout: 60)
        }
        #expect(restarted.waitForLines(1, timeout: 60))
        guard case .lockState(let state) = try client.perform(.lockState).storage else {
            Issue.record("the restarted agent did not answer with a lock state")
            return
        }
        #expect(state == .neverUnlocked, "the same client, reconnected: a restarted agent starts locked")
    }

    @Test func idleLockLocksAfterTheIdleTimeOnTheAgentsClock() throws {
        let keychain = TemporaryKeychain()
        _ = try keychain.open()
        let runtime = keychain.directory + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let clock = ManualClock()
        let server = try AgentServer.start(
            AgentConfiguration(
                keychainPath: keychain.path,
                socketPath: runtime + "/latchkey/agent.sock",
                policyPath: keychain.directory + "/access.json",
                stateDirectory: keychain.directory + "/state",
                storeOptions: keychain.options(),
                idleLock: 300,
                clock: clock
            )
        )
        defer { server.stop() }
        let client = try AgentClient.connect(socketPath: server.socketPath)
        #expect(client.welcome.accessGroups == [AccessPolicy.defaultGroup(forExecutable: client.welcome.executable)])
        _ = try client.perform(.unlock(.passphrase(keychain.passphrase)))
        try client.add(.genericPassword, attributes: [.service: .string("svc")], data: SecretData(string: "x"))

        clock.advance(by: 299)
        #expect(try client.findOne(ItemQuery(.genericPassword), withData: true).data == SecretData(string: "x"))
        #expect(server.lockState == .unlocked)

        clock.advance(by: 300)
        #expect(throws: KeychainError.self) { try client.findOne(ItemQuery(.genericPassword), withData: true) }
        #expect(server.lockState == .locked, "the request after 300 idle seconds found the keychain locked")
    }

    @Test func accessPolicyGrantsRevokesAndWritesAPrivateFile() throws {
        let keychain = TemporaryKeychain()
        let file = keychain.directory + "/config/latchkey/access.json"
        var policy = try AccessPolicy.load(from: file)
        #expect(policy.groups(forExecutable: "/usr/bin/tool") == ["/usr/bin/tool"], "the path is the default group")
        let first = policy.grant("shared", to: "/usr/bin/tool")
        let twice = policy.grant("shared", to: "/usr/bin/tool")
        let own = policy.grant("/usr/bin/tool", to: "/usr/bin/tool")
        #expect(first && !twice, "granting twice changes nothing")
        #expect(own, "granting the own group is recorded, and not repeated in the groups")
        #expect(policy.groups(forExecutable: "/usr/bin/tool") == ["/usr/bin/tool", "shared"], "no repeats, own first")
        let adopted = policy.adoptLegacyGroup(of: "/usr/bin/tool")
        let again = policy.adoptLegacyGroup(of: "/opt/other/tool")
        #expect(adopted && !again, "a legacy group is adopted once")
        #expect(policy.groups(forExecutable: "/usr/bin/tool") == ["/usr/bin/tool", "shared", "tool"])
        #expect(policy.groups(forExecutable: "/opt/other/tool") == ["/opt/other/tool"], "not by a same-named file")
        try policy.save(to: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: keychain.directory + "/config/latchkey")
        #expect(directory[.posixPermissions] as? Int == 0o700)
        #expect(try AccessPolicy.load(from: file) == policy)
        let revoked = policy.revoke(nil, from: "/usr/bin/tool")
        #expect(revoked)
        #expect(policy.grants.isEmpty)
        #expect(throws: KeychainError.self) { try AccessPolicy.validate(group: "a,b") }

        try Data("{\"version\": 99, \"grants\": {}}".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: KeychainError.self) { try AccessPolicy.load(from: file) }
    }
}
