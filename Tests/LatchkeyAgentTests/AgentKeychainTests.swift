import Foundation
import Latchkey
import LatchkeyTestHarness
import LatchkeyTesting
import Testing

/// The typed `Keychain` through a real agent: a `Keychain(service:)` in a process whose context is the
/// agent (`KeychainContext.makeDefault(environment:)`) reads and writes through it, with the access group
/// the agent gives this executable, and the CLI sees the same items through the agent once granted.
struct AgentKeychainTests {
    @Test func aTypedKeychainInAnAgentContextReadsAndWritesThroughTheAgent() throws {
        let harness = try AgentHarness()
        try harness.unlock()
        let context = try KeychainContext.makeDefault(environment: harness.environment)
        let client = try #require(context.service as? AgentClient)
        let group = try #require(client.welcome.accessGroups.first)
        let granted = try harness.latchkey(["access", "grant", BuiltExecutable.latchkey, group])
        #expect(granted.status == 0, "\(granted.stderr)")

        try KeychainContext.with(context) {
            let keychain = Keychain(service: "typed")
            #expect(try keychain.resolvedService() is AgentClient)
            try keychain.set("typed-secret", forKey: "alice")
            #expect(try keychain.string(forKey: "alice") == "typed-secret")
            #expect(try keychain.allKeys() == ["alice"])
        }
        let read = try harness.latchkey(["find-generic-password", "-s", "typed", "-a", "alice", "-w"])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "typed-secret\n", "the CLI reads the typed value through the agent")

        // The other way: the CLI writes (group `latchkey`), a Keychain on a new client granted that group reads.
        let written = try harness.latchkey(["add-generic-password", "-s", "typed", "-a", "bob", "-w", "bob-secret"])
        #expect(written.status == 0, "\(written.stderr)")
        let grantedBack = try harness.latchkey([
            "access", "grant", client.welcome.executable, BuiltExecutable.latchkeyGroup,
        ])
        #expect(grantedBack.status == 0, "\(grantedBack.stderr)")
        let keychain = Keychain(service: "typed").keychainService(
            try AgentClient.connect(socketPath: harness.socketPath)
        )
        #expect(try keychain.string(forKey: "bob") == "bob-secret")
        #expect(try keychain.removeValue(forKey: "alice"))
        #expect(throws: KeychainError.self) { try keychain.resolvedStore() }
        let gone = try harness.latchkey(["find-generic-password", "-s", "typed", "-a", "alice", "-w"])
        #expect(gone.status == 44, "removed through the agent: \(gone.stderr)")
    }
}
