import Foundation
import Latchkey
import LatchkeyAgent
import LatchkeyTesting
import Testing

@testable import LatchkeyTokens

/// The token manager through the per-user agent: tokens are stored and read through the agent's client,
/// and the agent's lock state (not this process's) decides whether they can be read.
struct AgentTokenTests {
    @Test func theTokenManagerStoresAndReadsThroughTheAgentWithItsLockState() async throws {
        let test = try TestKeychain()
        try test.store.close()
        let runtime = test.directory + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let server = try AgentServer.start(
            AgentConfiguration(
                keychainPath: test.path,
                socketPath: runtime + "/latchkey/agent.sock",
                policyPath: test.directory + "/access.json",
                stateDirectory: test.directory + "/state",
                storeOptions: KeychainStore.Options(kdfCost: .testing, deviceSecretPath: test.deviceSecretPath)
            )
        )
        defer { server.stop() }
        let client = try AgentClient.connect(socketPath: server.socketPath)
        _ = try client.perform(.unlock(test.credential))

        let keychain = Keychain(service: "ignored", accessibility: .whenUnlocked).keychainService(client)
        let manager = TokenManager(
            configuration: TokenManagerTests.configuration(),
            account: "alice",
            keychain: keychain,
            transport: ScriptedTransport()
        )
        let tokens = TokenManagerTests.tokens(expiresIn: 3600)
        try await manager.save(tokens)
        #expect(try await manager.storedTokens() == tokens)
        #expect(try await manager.authorizationHeader() == "Bearer AT-old-secret")

        let other = try AgentClient.connect(socketPath: server.socketPath)
        let item = try other.findOne(
            ItemQuery(.genericPassword, attributes: [.account: .string("alice")]),
            withData: false
        )
        #expect(item.attributes[.service] == .string(TokenManagerTests.configuration().service))

        _ = try other.perform(.lock)
        do {
            _ = try await manager.storedTokens()
            Issue.record("tokens were read while the agent is locked")
        } catch {
            #expect(error.code == .keychainLocked, "the agent's lock state decides: \(error)")
        }
        _ = try other.perform(.unlock(test.credential))
        #expect(try await manager.storedTokens() == tokens)
    }
}
